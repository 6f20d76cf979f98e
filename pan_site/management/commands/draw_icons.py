"""Draw the installed app's PNG icons (static/img/icons/) in pure Python: the favicon's
two cards and heart on the felt, anti-aliased from signed distances, written with zlib.

Run once after a change of design: `python manage.py draw_icons`; the PNGs are committed.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

Colour = tuple[int, int, int]
Shape = Callable[[float, float], float]  # signed distance in units of the icon's side

FELT: Colour = (0x1D, 0x5C, 0x3A)
CARD: Colour = (0xFF, 0xFF, 0xFF)
EDGE: Colour = (0x12, 0x40, 0x2A)
HEART: Colour = (0xC6, 0x28, 0x28)

# name -> (side in pixels, maskable): a maskable icon fills its square and keeps its
# drawing inside the middle 80 % that every mask leaves (the "safe zone").
ICONS = {
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "maskable-512.png": (512, True),
    "apple-touch-icon.png": (180, True),  # iOS rounds the corners itself
    "badge-96.png": (96, None),  # Android's status bar: the heart alone, white on clear
}


def rounded_box(cx: float, cy: float, half_w: float, half_h: float, r: float, turn: float) -> Shape:
    cos, sin = math.cos(turn), math.sin(turn)

    def distance(x: float, y: float) -> float:
        dx, dy = x - cx, y - cy
        u, v = abs(cos * dx + sin * dy) - half_w + r, abs(-sin * dx + cos * dy) - half_h + r
        outside = math.hypot(max(u, 0.0), max(v, 0.0))
        return outside + min(max(u, v), 0.0) - r

    return distance


def heart(cx: float, cy: float, size: float) -> Shape:
    """A heart pointing down: a square turned 45° and two circles on its upper sides."""
    half = size / 2
    square = rounded_box(cx, cy, half, half, 0.0, math.pi / 4)
    offset = half / math.sqrt(2)
    left, right = (cx - offset, cy - offset), (cx + offset, cy - offset)

    def distance(x: float, y: float) -> float:
        return min(
            square(x, y),
            math.hypot(x - left[0], y - left[1]) - half,
            math.hypot(x - right[0], y - right[1]) - half,
        )

    return distance


def coverage(distance: float, pixel: float) -> float:
    return min(1.0, max(0.0, 0.5 - distance / pixel))


def draw(side: int, maskable: bool | None) -> bytes:
    """The icon's RGBA rows, ready for PNG (filter byte 0 before each row)."""
    pixel = 1.0 / side
    if maskable is None:
        layers = [(heart(0.5, 0.56, 0.5), (255, 255, 255), None)]
        background: Shape | None = None
    else:
        scale = 0.62 if maskable else 0.78  # the drawing's share of the side

        def at(v: float) -> float:
            return 0.5 + (v - 0.5) * scale

        back = rounded_box(at(0.44), at(0.5), 0.3 * scale, 0.42 * scale, 0.06 * scale, -0.14)
        front = rounded_box(at(0.56), at(0.5), 0.3 * scale, 0.42 * scale, 0.06 * scale, 0.0)
        stroke = 0.035 * scale
        layers = [
            (back, CARD, stroke),
            (front, CARD, stroke),
            (heart(at(0.56), at(0.56), 0.28 * scale), HEART, None),
        ]
        background = (lambda x, y: -1.0) if maskable else rounded_box(0.5, 0.5, 0.5, 0.5, 0.18, 0)
    rows = bytearray()
    for row in range(side):
        rows.append(0)
        y = (row + 0.5) * pixel
        for column in range(side):
            x = (column + 0.5) * pixel
            r = g = b = 0.0
            a = 0.0
            if background is not None:
                a = coverage(background(x, y), pixel)
                r, g, b = (c * a for c in FELT)
            for shape, colour, edge in layers:
                d = shape(x, y)
                if d > pixel:
                    continue
                fill = coverage(d, pixel)
                paint = colour
                if edge is not None:
                    ring = coverage(abs(d + edge / 2) - edge / 2, pixel)
                    mix = ring / fill if fill else 0.0
                    paint = tuple(
                        c * (1 - mix) + e * mix for c, e in zip(colour, EDGE, strict=True)
                    )
                r, g, b = (p * fill + q * (1 - fill) for p, q in zip(paint, (r, g, b), strict=True))
                a = fill + a * (1 - fill)
            if a > 0:
                rows += bytes(round(min(255.0, c / a)) for c in (r, g, b))
            else:
                rows += b"\0\0\0"
            rows.append(round(a * 255))
    return bytes(rows)


def png(side: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", side, side, 8, 6, 0, 0, 0)  # 8 bits, RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


class Command(BaseCommand):
    help = "Draw the app's PNG icons into static/img/icons/."

    def handle(self, *args: Any, **options: Any) -> None:
        folder = Path(settings.BASE_DIR) / "static" / "img" / "icons"
        folder.mkdir(parents=True, exist_ok=True)
        for name, (side, maskable) in ICONS.items():
            (folder / name).write_bytes(png(side, draw(side, maskable)))
            if options["verbosity"]:
                self.stdout.write(f"{folder / name}: {side}×{side}")
