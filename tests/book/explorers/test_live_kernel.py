"""Every live explorer works in JupyterLab too: its kernel widget draws values no frame had.

The page draws a live explorer in the reader's browser (``tests/browser/test_live_*.py``); in a
kernel, the same controls are ipywidgets sliders over the same ranges, and the figure is drawn
by posenc through matplotlib. For each explorer of :data:`tests.browser.live.CASES`, each live
control is moved to the value the browser tests enter, and the kernel's figure must change.
"""

from __future__ import annotations

import pytest

from tests.browser.live import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_kernels_widget_draws_the_values_the_page_takes(name: str) -> None:
    case = CASES[name]
    explorer = case.make()
    box = explorer.widget
    inputs = {c.name: i for c, i in zip(explorer.controls, box.inputs, strict=True)}
    for c in explorer.controls:
        if c.live is None:
            continue
        value = case.new_values[c.name][0]
        before = box.image.value
        inputs[c.name].value = value
        assert inputs[c.name].value == pytest.approx(value), c.name
        assert box.image.value == explorer.png(**{k: i.value for k, i in inputs.items()})
        assert box.image.value != before, f"{name}: {c.name} = {value} changed nothing"
