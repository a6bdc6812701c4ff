"""The coverage map as a PNG picture, drawn with Pillow (the optional ``draw`` extra) on
the SVG's layout: the same boxes, colours and texts; padding cells greyed."""

from __future__ import annotations

import io

from .coverage import Coverage
from .svg import PADDING_FILL, fill_of, layout

#: What to say when Pillow is missing.
INSTALL_HINT = ("PNG output needs Pillow: install the draw extra "
                "(pip install 'tileir[draw]', or pip install -e '.[draw]' in a checkout)")
#: Text colours by style (the SVG's stylesheet).
TEXT_FILL = {"title": "#000000", "legend": "#000000", "label": "#000000", "axis": "#555555",
             "small": "#444444"}
CELL_STROKE = "#888888"


class PillowMissing(RuntimeError):
    """Pillow is not installed: `INSTALL_HINT` says how to get it."""


def render(cov: Coverage) -> bytes:
    """The PNG file of `cov`; `PillowMissing` without Pillow."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise PillowMissing(INSTALL_HINT) from None
    lay = layout(cov)
    image = Image.new("RGB", (lay.width, lay.height), "#ffffff")
    draw = ImageDraw.Draw(image)
    for b in lay.boxes:
        fill = fill_of(b.cell)
        draw.rectangle((b.x, b.y, b.x + b.w, b.y + b.h),
                       fill=PADDING_FILL if fill.startswith("url(") else fill,
                       outline=CELL_STROKE)
    for x, y, w, h in lay.outlines:
        draw.rectangle((x, y, x + w, y + h), outline="#000000", width=2)
    fonts = {size: _font(ImageFont, size) for size in (9, 12)}
    for t in lay.texts:
        font = fonts[9 if t.style == "small" else 12]
        left, top, right, bottom = draw.textbbox((0, 0), t.text, font=font)
        x = {"start": t.x, "middle": t.x - (right - left) / 2, "end": t.x - (right - left)}
        draw.text((x[t.anchor], t.y - bottom), t.text, fill=TEXT_FILL[t.style], font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _font(image_font: object, size: int) -> object:
    """Pillow's built-in font at `size` pixels (its fixed bitmap font on old Pillow)."""
    try:
        return image_font.load_default(size=size)
    except TypeError:                      # (Pillow before 10.1 has one size only)
        return image_font.load_default()


__all__ = ["INSTALL_HINT", "PillowMissing", "render"]
