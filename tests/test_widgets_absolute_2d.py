"""The chapter 5 explorer: controls, distinct images, static HTML."""

import base64
import json
import re

from posenc.widgets.absolute_2d import absolute_2d_explorer


def test_controls_and_defaults():
    ex = absolute_2d_explorer()
    assert [c.name for c in ex.controls] == ["image", "dim", "temperature", "normalize", "channel"]
    assert [c.kind for c in ex.controls] == ["select", "slider", "slider", "checkbox", "select"]
    assert ex.n_combinations == 32
    first = {c.name: c.values[c.default_index] for c in ex.controls}
    assert first == {"image": (24, 24), "dim": 16, "temperature": 10000.0,
                     "normalize": False, "channel": "fastest"}
    assert ex.controls[0].labels == ("24 × 24", "12 × 18")


def test_every_control_changes_the_image():
    ex = absolute_2d_explorer()
    base = ex.png()
    for change in ({"image": (12, 18)}, {"dim": 64}, {"temperature": 10.0, "channel": "middle"},
                   {"normalize": True, "image": (12, 18)}, {"channel": "middle"}):
        assert ex.png(**change) != base, change
    # the temperature leaves the fastest pair alone but changes the similarity panel
    assert ex.png(temperature=10.0) != base


def test_static_html_has_one_image_per_combination():
    ex = absolute_2d_explorer(sizes=((12, 12), (12, 24)), dims=(16,), temperatures=(10.0, 10000.0))
    html = ex.static_html()
    data = json.loads(re.search(r"var data = (\{.*?\});\n", html).group(1))
    assert data["shape"] == [2, 1, 2, 2, 2]
    assert len(data["table"]) == 16 and len(data["images"]) == 16  # all distinct
    assert all(base64.b64decode(img).startswith(b"\x89PNG") for img in data["images"])
    assert "<select" in html and 'type="checkbox"' in html
