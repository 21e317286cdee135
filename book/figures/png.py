"""PNG bytes for the book's pages: a 256-colour palette, and the size read from the header.

Used by the inline figures' 2× PNGs (:func:`book.figures._base.retina_palette_png`) and by the
explorers' pre-rendered frames (:mod:`book.explorers.explorer`), which keep a page small.
"""

from __future__ import annotations

import io
import struct

from posenc._checks import check_int

__all__ = ["palette_png", "png_size"]


def palette_png(data: bytes, colors: int = 256) -> bytes:
    """The PNG ``data`` with its colours reduced to a palette of ``colors``: about a third the bytes.

    The static book embeds every pre-rendered figure in the page, so this is what keeps pages
    with several explorers small. Matplotlib's figures use few colours, and Pillow's fast
    octree quantiser keeps every pixel within a few levels of the original (measured: at most
    15 of 255 per channel on the book's explorers), and white stays white. The live explorer
    shows the full PNG.

    Args:
        data: the bytes of a PNG file.
        colors: the size of the palette (2 to 256).

    Returns:
        the bytes of the palette PNG.
    """
    colors = check_int("colors", colors, minimum=2)
    if colors > 256:
        raise ValueError(f"colors must be <= 256 (a PNG palette), got {colors}")
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be the bytes of a PNG file, got {type(data).__name__}")
    from PIL import Image  # Pillow comes with matplotlib

    image = Image.open(io.BytesIO(data)).convert("RGB")
    small = image.quantize(colors=colors, method=Image.Quantize.FASTOCTREE)
    # the octree averages each bucket, which turns the white background into (254, 254, 254):
    # snap near-white palette entries back to white so the figure sits flush on the page
    palette = small.getpalette() or []
    small.putpalette(
        [
            255 if min(palette[i - i % 3 : i - i % 3 + 3]) >= 250 else v
            for i, v in enumerate(palette)
        ]
    )
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=True)
    return out.getvalue()


def png_size(data: bytes) -> tuple[int, int]:
    """The ``(width, height)`` in pixels of a PNG file, read from its header.

    Args:
        data: the bytes of a PNG file.

    Returns:
        the width and height.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be the bytes of a PNG file, got {type(data).__name__}")
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("data must be the bytes of a PNG file (no PNG header found)")
    width, height = struct.unpack(">II", data[16:24])
    return width, height
