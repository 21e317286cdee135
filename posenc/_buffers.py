"""Fixed tables that a module can rebuild from its own arguments.

posenc keeps fixed tables (a sinusoidal table, ALiBi's slopes, Swin's relative index, RoPE's
cos/sin cache) as non-persistent buffers: they are not in a state dict, since they follow from
the module's arguments. A module built on the ``meta`` device and materialised with
``to_empty`` then holds uninitialised memory in those buffers, and ``load_state_dict`` restores
only what is in the state dict. :class:`FixedTables` closes that gap: each module says how to
rebuild its tables in ``reset_buffers()``, and loading a state dict calls it.
"""

from __future__ import annotations

from typing import Any

from torch import nn

__all__ = ["FixedTables"]


class FixedTables(nn.Module):
    """An ``nn.Module`` whose non-persistent tables are rebuilt after ``load_state_dict``.

    Subclasses implement :meth:`reset_buffers` (rebuild every fixed table on the device and
    with the dtype of the buffer it replaces) and call ``super().__init__()`` first. Call
    ``reset_buffers()`` yourself after ``to_empty`` if you do not load a state dict.
    """

    def __init__(self) -> None:
        super().__init__()
        self.register_load_state_dict_post_hook(_rebuild)

    def reset_buffers(self) -> None:
        """Rebuild the fixed tables from the module's arguments (in place of their memory)."""
        raise NotImplementedError


def _rebuild(module: FixedTables, incompatible_keys: Any) -> None:
    module.reset_buffers()
