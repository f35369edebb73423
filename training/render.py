"""Synthetic photos of Scrabble-family boards with known grid corners and contents.

Boards are drawn top-down with Pillow (Cyrillic text, premium labels, tiles with value subscripts,
wood grain, raised sides and shadows) and then photographed with OpenCV/numpy: a tilted camera,
a cluttered table, uneven light, blur, noise and JPEG. Colours and shapes are calibrated by eye and
by measurement on ../shared/realphotos (black Эрудит board with blue plastic tiles; red-framed
English boards with wooden tiles); the photos themselves are never used as training data.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from scorer.notation import split_tiles, tile_count, tile_text, unbracket
from scorer.variant import Variant, load_variant
from training.fonts import FACES, REGULAR_SANS, Split, check_installed, font_paths

RGB = tuple[int, int, int]

GRID = 15  # squares a side of the standard board, the one training data is drawn on

# Tile faces (face, text). "mint" is held out of training.
# The Эрудит tiles measured on ../shared/realphotos/erudit: from a saturated sky blue, nearly the
# colour of the board's word ×2 squares, to a royal blue, by light and camera.
ERUDIT_BLUES: tuple[RGB, RGB] = ((32, 150, 240), (52, 96, 182))
TILE_PALETTES: dict[str, tuple[RGB, RGB]] = {
    "erudit_blue": (ERUDIT_BLUES[0], (248, 250, 252)),
    "royal_blue": ((62, 94, 170), (245, 245, 250)),
    "wood": ((212, 186, 146), (28, 24, 20)),
    "pale_wood": ((228, 208, 172), (35, 30, 28)),
    "grey_wood": ((190, 178, 160), (30, 30, 30)),
    "pale_grey_wood": ((206, 202, 196), (28, 28, 28)),
    "ivory": ((238, 230, 205), (22, 22, 22)),
    "white": ((246, 246, 242), (25, 40, 120)),
    "black": ((32, 32, 35), (240, 240, 235)),
    "black_gold": ((30, 30, 30), (225, 190, 90)),
    "red": ((170, 40, 45), (245, 240, 235)),
    "green": ((40, 115, 70), (245, 245, 240)),
    "yellow": ((232, 200, 80), (25, 25, 25)),
    "navy": ((35, 45, 95), (240, 240, 240)),
}
HELDOUT_TILE_PALETTES: dict[str, tuple[RGB, RGB]] = {
    "mint": ((168, 214, 190), (30, 40, 110)),
}
WOODEN = {"wood", "pale_wood", "grey_wood", "pale_grey_wood"}

# Boards: (cell, line, line width in cells, frame).
BOARD_PALETTES: dict[str, tuple[RGB, RGB, float, RGB]] = {
    "erudit_black": ((84, 80, 82), (22, 22, 24), 0.12, (26, 26, 28)),
    "classic_grey": ((188, 182, 166), (246, 246, 240), 0.07, (150, 35, 40)),
    "deluxe_cream": ((238, 224, 190), (38, 38, 38), 0.12, (40, 40, 40)),
    "beige_red": ((222, 212, 185), (120, 110, 95), 0.05, (160, 30, 35)),
    "white": ((240, 240, 236), (140, 140, 140), 0.04, (230, 230, 230)),
    "green": ((40, 110, 75), (225, 225, 215), 0.06, (30, 70, 45)),
    "dark_wood": ((95, 62, 40), (40, 26, 18), 0.08, (60, 38, 25)),
    "navy": ((45, 55, 90), (200, 200, 205), 0.05, (30, 35, 60)),
}

# Premium squares by layout code: = word×3, - word×2, " letter×3, ' letter×2, * star centre.
PREMIUM_PALETTES: dict[str, dict[str, RGB]] = {
    "classic": {
        "=": (200, 55, 60),
        "-": (238, 170, 172),
        '"': (40, 120, 200),
        "'": (160, 205, 232),
        "*": (238, 170, 172),
    },
    "erudit": {
        "=": (215, 85, 95),
        "-": (40, 170, 245),
        '"': (245, 222, 90),
        "'": (40, 165, 125),
        "+": (246, 244, 244),
        "*": (40, 170, 245),
    },
    "muted": {
        "=": (150, 90, 90),
        "-": (200, 160, 150),
        '"': (90, 120, 150),
        "'": (150, 175, 190),
        "*": (200, 160, 150),
    },
}
PREMIUM_LABELS: dict[str, dict[str, str]] = {
    "english": {
        "=": "TRIPLE\nWORD\nSCORE",
        "-": "DOUBLE\nWORD\nSCORE",
        '"': "TRIPLE\nLETTER\nSCORE",
        "'": "DOUBLE\nLETTER\nSCORE",
    },
    "short": {"=": "3W", "-": "2W", '"': "3L", "'": "2L"},
    "initials": {"=": "TW", "-": "DW", '"': "TL", "'": "DL"},
    "times": {"=": "×3", "-": "×2", '"': "×3", "'": "×2"},
    "russian": {"=": "СЛОВО\n×3", "-": "СЛОВО\n×2", '"': "БУКВА\n×3", "'": "БУКВА\n×2"},
    "none": {},
}
# Labels only the held-out edition family prints (`heldout_edition`).
HELDOUT_LABELS: dict[str, dict[str, str]] = {
    "german": {
        "=": "DREIFACHER\nWORTWERT",
        "-": "DOPPELTER\nWORTWERT",
        '"': "DREIFACHER\nBUCHSTABEN-\nWERT",
        "'": "DOPPELTER\nBUCHSTABEN-\nWERT",
    },
    "numbers": {"=": "3", "-": "2", '"': "3", "'": "2"},
    "mot": {
        "=": "MOT\nTRIPLE",
        "-": "MOT\nCOMPTE\nDOUBLE",
        '"': "LETTRE\nTRIPLE",
        "'": "LETTRE\nDOUBLE",
    },
}
ALL_LABELS = {**PREMIUM_LABELS, **HELDOUT_LABELS}


@dataclass(frozen=True)
class Style:
    """Everything that makes one physical edition look the way it does."""

    name: str
    board: RGB
    line: RGB
    line_width: float
    frame: RGB
    frame_width: float
    premiums: dict[str, RGB]
    premium_inset: float
    premium_labels: str
    premium_text: dict[str, RGB]
    tile_face: RGB
    tile_text: RGB
    tile_size: float
    tile_radius: float
    grain: float
    font: str
    letter_scale: float
    subscripts: bool
    value_beside: bool
    lift: float
    jitter: float
    # Wood-print squares: grain over the whole playing grid, premium squares included.
    square_grain: float = 0.0
    # The centre square's mark: "plain" (its premium colour only), "star", "logo" or "dark".
    centre: str = "plain"


def _checked(path: str) -> str:
    check_installed([face for face in FACES if face.path == path])
    return path


@functools.cache
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@functools.cache
def _cap_ratio(path: str) -> float:
    """Cap height of a font as a fraction of its size."""
    _, top, _, _ = _font(path, 100).getbbox("H", anchor="ls")
    return -top / 100


def _vary(rng: np.random.Generator, colour: RGB, amount: float) -> RGB:
    shifted = np.asarray(colour, float) * rng.uniform(1 - amount, 1 + amount) + rng.normal(
        0, 255 * amount / 3, 3
    )
    return tuple(int(v) for v in np.clip(shifted, 0, 255))  # type: ignore[return-value]


def _random_rgb(rng: np.random.Generator, light: bool) -> RGB:
    hsv = np.uint8(
        [
            [
                [
                    rng.integers(0, 180),
                    rng.integers(20, 200),
                    rng.integers(170, 250) if light else rng.integers(25, 110),
                ]
            ]
        ]
    )
    return tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0])  # type: ignore[return-value]


def _premium_text(rng: np.random.Generator, premiums: dict[str, RGB]) -> dict[str, RGB]:
    """Label colours: one dark or light ink for all squares, or (as on Эрудит boards) a deep shade
    of each square's own colour."""
    pick = rng.random()
    if pick < 0.45:
        return dict.fromkeys(premiums, (30, 30, 35))
    if pick < 0.65:
        return dict.fromkeys(premiums, (245, 245, 245))
    depth = rng.uniform(0.35, 0.6)
    return {code: tuple(int(v * depth) for v in c) for code, c in premiums.items()}  # type: ignore[misc]


def random_style(rng: np.random.Generator, split: Split = "train") -> Style:
    """A random edition: board, premium squares, tiles and font of the given split.

    The held-out split uses fonts and a tile palette that training never sees. A share of the
    training boards are the two calibrated editions (`erudit_style`, `scrabble_style`) with their
    colours, fonts and proportions varied.
    """
    fonts = font_paths(split)
    if split == "train" and rng.random() < 0.35:
        pick = rng.random()
        if pick < 0.45:
            # Эрудит tiles are printed in a heavy sans; English tiles in a regular one.
            return _varied(rng, erudit_style(rng), font_paths(split, bold=True))
        return _varied(rng, scrabble_style() if pick < 0.75 else deluxe_style(), fonts)
    palettes = TILE_PALETTES if split == "train" else HELDOUT_TILE_PALETTES
    tile_name = str(rng.choice(sorted(palettes)))
    if split == "train" and rng.random() < 0.2:
        tile_name = str(rng.choice(["erudit_blue", "wood", "pale_grey_wood"]))
    face, text = palettes[tile_name]
    if rng.random() < 0.15:
        face = _random_rgb(rng, rng.random() < 0.5)
        text = (20, 20, 20) if np.mean(face) > 128 else (240, 240, 240)
    board_name = str(rng.choice(sorted(BOARD_PALETTES)))
    cell, line, line_width, frame = BOARD_PALETTES[board_name]
    if rng.random() < 0.2:
        cell = _random_rgb(rng, rng.random() < 0.5)
        line = (235, 235, 230) if rng.random() < 0.5 else (30, 30, 30)
    premiums = dict(PREMIUM_PALETTES[str(rng.choice(sorted(PREMIUM_PALETTES)))])
    if rng.random() < 0.2:
        premiums = {code: _random_rgb(rng, True) for code in premiums}
    if rng.random() < 0.15:
        # Premium squares the colour of the tiles, as the Эрудит word ×2 squares are.
        premiums = {code: face if rng.random() < 0.4 else c for code, c in premiums.items()}
    premiums = {code: _vary(rng, c, 0.1) for code, c in premiums.items()}
    labels = str(rng.choice(sorted(PREMIUM_LABELS)))
    wooden = tile_name in WOODEN
    return Style(
        name=f"{split}:{board_name}/{tile_name}/{labels}",
        board=_vary(rng, cell, 0.12),
        line=_vary(rng, line, 0.1),
        line_width=float(line_width * rng.uniform(0.6, 1.4)),
        frame=_vary(rng, frame, 0.15),
        frame_width=float(rng.uniform(0.15, 1.2)),
        premiums=premiums,
        premium_inset=float(rng.choice([0.0, 0.0, rng.uniform(0.05, 0.14)])),
        premium_labels=labels,
        premium_text=_premium_text(rng, premiums),
        tile_face=_vary(rng, face, 0.1),
        tile_text=_vary(rng, text, 0.05),
        tile_size=float(rng.uniform(0.82, 0.97)),
        tile_radius=float(rng.uniform(0.04, 0.2)),
        grain=float(rng.uniform(0.03, 0.1)) if wooden else 0.0,
        font=str(rng.choice(fonts)),
        letter_scale=float(rng.uniform(0.36, 0.66)),
        subscripts=bool(rng.random() < 0.85),
        value_beside=bool(rng.random() < 0.4),
        lift=float(rng.uniform(0.0, 0.3)),
        # Loosely placed wooden tiles lie up to a third of a cell off their squares.
        jitter=float(rng.choice([rng.uniform(0.0, 0.06), rng.uniform(0.06, 0.12)])),
    )


# Tile faces only the held-out edition family uses (face, text).
EDITION_TILES: dict[str, tuple[RGB, RGB]] = {
    "white_plastic": ((244, 244, 240), (20, 20, 20)),
    "cream_plastic": ((236, 226, 196), (40, 30, 25)),
    "mint": HELDOUT_TILE_PALETTES["mint"],
    "orange": ((236, 140, 50), (25, 25, 25)),
    "lilac": ((190, 170, 220), (30, 20, 60)),
}
EDITION_KINDS = ("german", "wood_print", "any")


def _hued(hue: float, saturation: float, value: float) -> RGB:
    hsv = np.uint8([[[int(hue) % 180, min(255, int(saturation)), min(255, int(value))]]])
    return tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0])  # type: ignore[return-value]


def heldout_edition(rng: np.random.Generator, kind: str | None = None) -> Style:
    """A procedural edition of the family kept out of training: green boards with saturated
    premium squares and white tiles (as German sets), wood-print squares with premiums printed
    over the grain («Словодел»), and boards and premiums of any hue, pale tints to saturated; a
    printed centre star, logo or black square; German, French or numeric labels; held-out
    typefaces (PT) and tile colours. Nothing here reaches `random_style(rng, "train")`.
    """
    kind = kind or str(rng.choice(EDITION_KINDS))
    fonts = font_paths("heldout")
    tile_name = str(rng.choice(sorted(EDITION_TILES)))
    grain = 0.0
    if kind == "german":
        board = _hued(rng.uniform(55, 80), rng.uniform(120, 220), rng.uniform(70, 130))
        line = _vary(rng, (225, 225, 215), 0.05)
        hues = {
            "=": 0,
            "-": rng.uniform(5, 15),
            '"': rng.uniform(105, 120),
            "'": rng.uniform(90, 100),
        }
        sats = {"=": 220, "-": 120, '"': 200, "'": 110}
        premiums = {
            c: _hued(h, sats[c] * rng.uniform(0.8, 1.1), rng.uniform(170, 240))
            for c, h in hues.items()
        }
        tile_name = str(rng.choice(["white_plastic", "cream_plastic", "white_plastic"]))
        labels = str(rng.choice(["german", "none", "numbers"]))
    else:
        if kind == "wood_print":
            board = _vary(rng, (214, 180, 130), 0.12)
            line = _vary(rng, (90, 60, 35), 0.2) if rng.random() < 0.6 else board
            grain = float(rng.uniform(0.05, 0.14))
        else:
            board = _random_rgb(rng, rng.random() < 0.6)
            line = _random_rgb(rng, rng.random() < 0.5)
        first = rng.uniform(0, 180)
        saturation = rng.uniform(40, 255)
        premiums = {
            c: _hued(
                first + i * rng.uniform(30, 50),
                saturation * rng.uniform(0.7, 1.1),
                rng.uniform(150, 245),
            )
            for i, c in enumerate("=-\"'")
        }
        if kind == "wood_print":
            # Printed over wood, the premium colours take on the board's brown.
            premiums = {
                c: tuple(int(0.6 * p + 0.4 * b) for p, b in zip(v, board, strict=True))
                for c, v in premiums.items()
            }  # type: ignore[misc]
        labels = str(rng.choice(["german", "mot", "numbers", "none", "russian", "short"]))
    premiums["*"] = premiums["-"]
    premiums["+"] = _vary(rng, board, 0.05) if rng.random() < 0.5 else (245, 245, 240)
    face, text = EDITION_TILES[tile_name]
    wooden = tile_name == "cream_plastic" and rng.random() < 0.3
    return Style(
        name=f"edition:{kind}/{tile_name}/{labels}",
        board=board,
        line=line,
        line_width=float(rng.choice([rng.uniform(0.0, 0.03), rng.uniform(0.03, 0.14)])),
        frame=_random_rgb(rng, rng.random() < 0.4),
        frame_width=float(rng.uniform(0.15, 1.2)),
        premiums=premiums,
        premium_inset=float(rng.choice([0.0, rng.uniform(0.03, 0.12)])),
        premium_labels=labels,
        premium_text=_premium_text(rng, premiums),
        tile_face=_vary(rng, face, 0.08),
        tile_text=_vary(rng, text, 0.05),
        tile_size=float(rng.uniform(0.84, 0.97)),
        tile_radius=float(rng.uniform(0.03, 0.22)),
        grain=float(rng.uniform(0.02, 0.06)) if wooden else 0.0,
        font=str(rng.choice(fonts)),
        letter_scale=float(rng.uniform(0.4, 0.62)),
        subscripts=bool(rng.random() < 0.9),
        value_beside=bool(rng.random() < 0.35),
        lift=float(rng.uniform(0.0, 0.25)),
        jitter=float(rng.uniform(0.0, 0.07)),
        square_grain=grain,
        centre=str(rng.choice(["star", "logo", "plain", "dark"])),
    )


def _varied(rng: np.random.Generator, base: Style, fonts: list[str]) -> Style:
    """A calibrated edition under other light, print runs and tile placement, its letters in one
    of `fonts`."""
    face = base.tile_face
    if base.grain > 0:
        # Worn, greyish wood can be nearly the board's colour: then only grain, edges and the
        # hidden grid lines tell a plain blank tile from an empty square.
        face = tuple(  # type: ignore[assignment]
            int(f + (b - f) * t)
            for f, b, t in zip(face, base.board, [rng.uniform(0, 0.7)] * 3, strict=True)
        )
    return dataclasses.replace(
        base,
        name=f"{base.name}~",
        board=_vary(rng, base.board, 0.15),
        line=_vary(rng, base.line, 0.1),
        line_width=float(base.line_width * rng.uniform(0.7, 1.3)),
        frame=_vary(rng, base.frame, 0.15),
        frame_width=float(rng.uniform(0.15, 1.0)),
        premiums={code: _vary(rng, c, 0.1) for code, c in base.premiums.items()},
        premium_inset=float(base.premium_inset * rng.uniform(0.5, 1.5)),
        premium_text={code: _vary(rng, c, 0.1) for code, c in base.premium_text.items()},
        # Wood looks lighter or darker than the board by the light (the real English photos show
        # both), plastic keeps its colour.
        tile_face=_vary(rng, face, 0.15 if base.grain > 0 else 0.08),
        tile_text=_vary(rng, base.tile_text, 0.04),
        tile_size=float(np.clip(base.tile_size + rng.normal(0, 0.03), 0.82, 1.0)),
        tile_radius=float(base.tile_radius * rng.uniform(0.6, 1.4)),
        grain=float(base.grain * rng.uniform(0.5, 1.5)),
        font=str(rng.choice(fonts)),
        letter_scale=float(base.letter_scale * rng.uniform(0.85, 1.15)),
        lift=float(rng.uniform(0.0, 0.3)),
        jitter=float(base.jitter * rng.uniform(0.5, 2.0)),
    )


def erudit_style(rng: np.random.Generator | None = None) -> Style:
    """The black Эрудит board with blue plastic tiles, as in ../shared/realphotos/erudit: blue
    tiles with a white letter and its value printed right after it, word ×2 squares of nearly the
    tiles' blue, labels printed in a deep shade of each square's colour, a plain white centre.

    With `rng`, the tiles' blue is drawn between the sky and royal blues seen in those photos.
    """
    cell, line, line_width, frame = BOARD_PALETTES["erudit_black"]
    mix = 0.0 if rng is None else float(rng.uniform(0, 1))
    sky, royal = (np.asarray(c, float) for c in ERUDIT_BLUES)
    face: RGB = tuple(int(v) for v in sky + (royal - sky) * mix)  # type: ignore[assignment]
    text = TILE_PALETTES["erudit_blue"][1]
    premiums = PREMIUM_PALETTES["erudit"]
    return Style(
        name="erudit",
        board=cell,
        line=line,
        line_width=line_width,
        frame=frame,
        frame_width=0.4,
        premiums=premiums,
        premium_inset=0.08,
        premium_labels="times",
        premium_text={
            "=": (120, 30, 40),
            "-": (40, 60, 110),
            '"': (220, 90, 50),
            "'": (20, 90, 60),
            "+": (40, 40, 45),
            "*": (40, 60, 110),
        },
        tile_face=face,
        tile_text=text,
        tile_size=0.93,
        tile_radius=0.15,
        grain=0.0,
        font=font_paths("train")[0],
        letter_scale=0.44,
        subscripts=True,
        value_beside=True,
        lift=0.1,
        jitter=0.03,
    )


def scrabble_style() -> Style:
    """A red-framed English board with wooden tiles and printed premium labels: tiles nearly as
    wide as a square, a regular-weight sans letter left of centre, its small value low at its
    right (as on the boards in ../shared/realphotos/english)."""
    cell, line, line_width, frame = BOARD_PALETTES["classic_grey"]
    face, text = TILE_PALETTES["wood"]
    premiums = PREMIUM_PALETTES["classic"]
    return Style(
        name="scrabble",
        board=cell,
        line=line,
        line_width=line_width,
        frame=frame,
        frame_width=0.5,
        premiums=premiums,
        premium_inset=0.0,
        premium_labels="english",
        premium_text=dict.fromkeys(premiums, (30, 30, 35)),
        tile_face=face,
        tile_text=text,
        tile_size=0.96,
        tile_radius=0.08,
        grain=0.06,
        font=_checked(REGULAR_SANS),
        letter_scale=0.45,
        subscripts=True,
        value_beside=False,
        lift=0.2,
        jitter=0.06,
    )


def deluxe_style() -> Style:
    """An English deluxe board: cream squares between raised dark grid ribs, muted premium squares
    (dark slate letter ×3, pale blue letter ×2, rose word ×2, brick word ×3) with printed words,
    pale grey wooden tiles, as in two of the photos in ../shared/realphotos/english."""
    premiums = {
        "=": (150, 52, 45),
        "-": (228, 176, 164),
        '"': (62, 72, 84),
        "'": (172, 196, 212),
        "*": (228, 176, 164),
    }
    face, text = TILE_PALETTES["pale_grey_wood"]
    # The same English set (labels, grain, regular letters with the value low right) on another
    # board with other tiles.
    return dataclasses.replace(
        scrabble_style(),
        name="deluxe",
        board=(236, 224, 192),
        line=(34, 34, 36),
        line_width=0.1,
        frame=(205, 180, 140),
        frame_width=0.6,
        premiums=premiums,
        premium_inset=0.04,
        premium_text={
            "=": (240, 235, 230),
            "-": (40, 35, 35),
            '"': (235, 235, 235),
            "'": (35, 40, 50),
            "*": (40, 35, 35),
        },
        tile_face=face,
        tile_text=text,
        tile_size=0.9,
        tile_radius=0.06,
        lift=0.15,
        jitter=0.05,
    )


# ---- drawing the top-down board -------------------------------------------------------------


def _text_block(
    draw: ImageDraw.ImageDraw,
    box: tuple[float, float, float, float],
    text: str,
    font_path: str,
    colour: RGB,
    fill: float,
) -> None:
    """Draw multi-line text centred in box, scaled to fill that fraction of it."""
    x0, y0, x1, y1 = box
    lines = text.split("\n")
    size = max(4, int((y1 - y0) * fill / len(lines)))
    font = _font(font_path, size)
    widths = [draw.textlength(line, font=font) for line in lines]
    if max(widths) > (x1 - x0) * 0.92:
        size = max(4, int(size * (x1 - x0) * 0.92 / max(widths)))
        font = _font(font_path, size)
    height = size * len(lines)
    for i, line in enumerate(lines):
        y = (y0 + y1) / 2 - height / 2 + i * size + size / 2
        draw.text(((x0 + x1) / 2, y), line, font=font, fill=colour, anchor="mm")


def _draw_premiums(
    draw: ImageDraw.ImageDraw,
    layout: tuple[str, ...],
    style: Style,
    r: int,
    origin: float,
    rng: np.random.Generator,
) -> None:
    labels = ALL_LABELS[style.premium_labels]
    half_line = style.line_width * r / 2
    for row, codes in enumerate(layout):
        for col, code in enumerate(codes):
            if code not in style.premiums:
                continue
            x0, y0 = origin + col * r + half_line, origin + row * r + half_line
            x1, y1 = x0 + r - 2 * half_line, y0 + r - 2 * half_line
            inset = style.premium_inset * r
            # Эрудит-style inserts sit off-centre in their cell.
            dx, dy = rng.uniform(-inset, inset) * 0.6, rng.uniform(-inset, inset) * 0.6
            box = (x0 + inset + dx, y0 + inset + dy, x1 - inset + dx, y1 - inset + dy)
            draw.rounded_rectangle(box, radius=inset * 1.5 + 1, fill=style.premiums[code])
            text = labels.get(code, "")
            if not text:
                continue
            small = style.premium_labels == "times" and code in "'\""
            if small:
                bx0, by0, bx1, by1 = box
                box = (bx0 + (bx1 - bx0) * 0.45, by0 + (by1 - by0) * 0.55, bx1, by1)
            # Эрудит's ×2/×3 labels are large: the digit stands half a cell high on word squares.
            fill = 0.5 if "\n" in text else 0.75 if style.premium_labels == "times" else 0.55
            _text_block(draw, box, text, style.font, style.premium_text[code], fill)


def _draw_centre(
    draw: ImageDraw.ImageDraw, layout: tuple[str, ...], style: Style, r: int, origin: float
) -> None:
    """The centre square's printed mark, if the edition has one."""
    if style.centre == "plain":
        return
    row, col = next(
        (i, line.index(code)) for i, line in enumerate(layout) for code in "*+" if code in line
    )
    cx, cy = origin + (col + 0.5) * r, origin + (row + 0.5) * r
    ink = style.premium_text.get("*", (30, 30, 35))
    if style.centre == "star":
        points = [
            (
                cx + (0.36 if i % 2 == 0 else 0.15) * r * math.sin(math.pi * i / 5),
                cy - (0.36 if i % 2 == 0 else 0.15) * r * math.cos(math.pi * i / 5),
            )
            for i in range(10)
        ]
        draw.polygon(points, fill=ink)
    elif style.centre == "logo":
        draw.ellipse(
            (cx - 0.38 * r, cy - 0.3 * r, cx + 0.38 * r, cy + 0.3 * r),
            outline=ink,
            width=max(1, r // 14),
        )
        draw.ellipse((cx - 0.16 * r, cy - 0.12 * r, cx + 0.16 * r, cy + 0.12 * r), fill=ink)
    else:
        half = r / 2 - style.line_width * r / 2
        draw.rectangle((cx - half, cy - half, cx + half, cy + half), fill=(24, 24, 26))


def _grained(
    board: Image.Image, amount: float, box: tuple[int, int, int, int], rng: np.random.Generator
) -> Image.Image:
    """Wood grain printed over the playing grid, the pixels box = (x0, y0, x1, y1)."""
    arr = np.asarray(board).astype(np.float32)
    x0, y0, x1, y1 = box
    yy = np.arange(y1 - y0, dtype=np.float32)[:, None]
    xx = np.arange(x1 - x0, dtype=np.float32)[None, :]
    slope, period = rng.uniform(-0.15, 0.15), rng.uniform(40, 160)
    phase = yy + xx * slope + 6 * np.sin(xx / period + rng.uniform(0, 6))
    stripes = np.sin(phase / rng.uniform(2.0, 5.0)) * np.sin(phase / rng.uniform(12, 40))
    arr[y0:y1, x0:x1, :3] *= 1 + amount * stripes[..., None]
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGBA")


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, colour: RGB) -> None:
    width = max(2, int(size * 0.16))
    for angle in (90, 30, 150):
        dx, dy = math.cos(math.radians(angle)) * size / 2, math.sin(math.radians(angle)) * size / 2
        draw.line((cx - dx, cy - dy, cx + dx, cy + dy), fill=colour, width=width)


def _tile_patch(
    content: str, value: int, style: Style, r: int, rng: np.random.Generator
) -> Image.Image:
    """One tile face as an RGBA patch of 2r×2r pixels with the tile centred."""
    size = 2 * r
    side = style.tile_size * r * rng.uniform(0.97, 1.03)
    c = size / 2
    box = (c - side / 2, c - side / 2, c + side / 2, c + side / 2)
    face = _vary(rng, style.tile_face, 0.04)
    patch = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(patch)
    draw.rounded_rectangle(box, radius=style.tile_radius * side, fill=face + (255,))
    if style.grain > 0:
        arr = np.asarray(patch).astype(np.float32)
        yy = np.arange(size, dtype=np.float32)[:, None]
        xx = np.arange(size, dtype=np.float32)[None, :]
        angle = rng.uniform(-0.3, 0.3)
        phase = yy + xx * angle + 3 * np.sin(xx / rng.uniform(8, 30) + rng.uniform(0, 6))
        stripes = np.sin(phase / rng.uniform(1.5, 4.0)) * np.sin(phase / rng.uniform(9, 20))
        arr[..., :3] *= 1 + style.grain * stripes[..., None]
        patch = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGBA")
        draw = ImageDraw.Draw(patch)
    ink = _vary(rng, style.tile_text, 0.04) + (255,)
    if content == "*":
        _star(draw, c, c, side * 0.62, ink[:3])
    elif content:
        sub = style.subscripts and value > 0
        height = style.letter_scale * side
        # Size and centre every glyph by the cap height, so accents (Й, Ё, Ї) stick out above.
        font = _font(style.font, max(6, int(height / _cap_ratio(style.font))))
        x0, _, x1, _ = font.getbbox(content, anchor="ls")
        if len(content) > 1 and x1 - x0 > 0.8 * side:
            # Two letters on one tile (Spanish CH) are printed narrower to fit it.
            font = _font(style.font, max(6, int(font.size * 0.8 * side / (x1 - x0))))
            x0, _, x1, _ = font.getbbox(content, anchor="ls")
        y0, y1 = -_cap_ratio(style.font) * font.size, 0.0
        noise = rng.normal(0, side * 0.015, 2)
        ty = c - (y0 + y1) / 2 + noise[1]
        if not sub:
            draw.text((c - (x0 + x1) / 2 + noise[0], ty), content, font=font, fill=ink, anchor="ls")
            return patch
        digits = str(value)
        if style.value_beside:
            # Value right after the letter on its baseline (Эрудит sets): letter and value are
            # centred together, so in small renderings the digits touch the letter (Г3, Ф10).
            digit = height * rng.uniform(0.5, 0.7)
            sfont = _font(style.font, max(5, int(digit / _cap_ratio(style.font))))
            # Printed tight: a digit may tuck under an overhanging bar (Г3, Т2).
            gap = side * rng.uniform(-0.04, 0.04)
            width = (x1 - x0) + gap + sfont.getlength(digits)
            tx = c - width / 2 - x0 + noise[0]
            draw.text((tx, ty), content, font=font, fill=ink, anchor="ls")
            drop = digit * rng.uniform(0.0, 0.25)
            draw.text((tx + x1 + gap, ty + drop), digits, font=sfont, fill=ink, anchor="ls")
        else:
            # Value low at the bottom right, from just after the letter to the tile's corner
            # (Scrabble sets); the letter sits left of centre to make room.
            digit = side * rng.uniform(0.16, 0.3)
            sfont = _font(style.font, max(5, int(digit / _cap_ratio(style.font))))
            tx = c - side * rng.uniform(0.03, 0.1) - (x0 + x1) / 2 + noise[0]
            draw.text((tx, ty - 0.02 * side), content, font=font, fill=ink, anchor="ls")
            right = c + side * rng.uniform(0.24, 0.42)
            draw.text(
                (right, c + side * rng.uniform(0.26, 0.4)),
                digits,
                font=sfont,
                fill=ink,
                anchor="rs",
            )
    return patch


def _place_tile(
    board: Image.Image,
    patch: Image.Image,
    centre: tuple[float, float],
    lift: tuple[float, float],
    angle: float,
    style: Style,
    relief: tuple[float, float],
) -> None:
    """Composite a tile with its raised side and soft shadow; lift is the top face's offset and
    relief (side brightness, shadow opacity) how strongly the light shows the tile's edges."""
    side_tone, shadow_opacity = relief
    rotated = patch.rotate(angle, resample=Image.BILINEAR)
    alpha = rotated.split()[3]
    size = rotated.size[0]
    x, y = int(round(centre[0] - size / 2)), int(round(centre[1] - size / 2))
    shadow = Image.new("RGBA", rotated.size, (0, 0, 0, 0))
    shadow.putalpha(
        alpha.filter(ImageFilter.GaussianBlur(size * 0.05)).point(lambda a: a * shadow_opacity)
    )
    board.alpha_composite(shadow, (x + int(size * 0.03), y + int(size * 0.04)))
    steps = max(1, int(math.hypot(*lift) / 2))
    if math.hypot(*lift) >= 1:
        dark = Image.new(
            "RGBA", rotated.size, tuple(int(v * side_tone) for v in style.tile_face) + (0,)
        )
        dark.putalpha(alpha)
        for i in range(steps):
            t = i / steps
            board.alpha_composite(dark, (x + int(lift[0] * t), y + int(lift[1] * t)))
    board.alpha_composite(rotated, (x + int(round(lift[0])), y + int(round(lift[1]))))


def render_topdown(
    rows: list[str],
    layout: tuple[str, ...],
    style: Style,
    r: int,
    rng: np.random.Generator,
    values: dict[str, int],
    tile_seed: int | None = None,
) -> tuple[np.ndarray, float]:
    """The board seen from straight above, RGB, r pixels per cell, as many cells as `layout`.

    Returns the image and the offset in pixels of the grid's top-left corner (the grid is
    width·r × height·r pixels starting there). `tile_seed`: each tile is drawn from its own
    generator, seeded by it, its square and its letter, and `rng` draws nothing for tiles, so the
    same board with tiles added looks the same elsewhere (a table camera's frames of one game).
    """
    height, width = len(layout), len(layout[0])
    origin = style.frame_width * r
    side_x, side_y = int(round(2 * origin + width * r)), int(round(2 * origin + height * r))
    board = Image.new("RGBA", (side_x, side_y), style.frame + (255,))
    draw = ImageDraw.Draw(board)
    draw.rectangle((origin, origin, origin + width * r, origin + height * r), fill=style.line)
    half_line = style.line_width * r / 2
    for row in range(height):
        for col in range(width):
            x0, y0 = origin + col * r + half_line, origin + row * r + half_line
            draw.rectangle(
                (x0, y0, x0 + r - 2 * half_line, y0 + r - 2 * half_line), fill=style.board
            )
    _draw_premiums(draw, layout, style, r, origin, rng)
    _draw_centre(draw, layout, style, r, origin)
    if style.square_grain > 0:
        grid_box = (int(origin), int(origin), int(origin + width * r), int(origin + height * r))
        board = _grained(board, style.square_grain, grid_box, rng)
    lift_angle = rng.uniform(0, 2 * math.pi)
    lift = (style.lift * r * math.cos(lift_angle), style.lift * r * math.sin(lift_angle))
    # Light from above hardly shows a tile's edges; light from the side darkens them.
    relief = (float(rng.uniform(0.6, 0.95)), float(rng.uniform(0.15, 0.5)))
    for row, line in enumerate(rows):
        for col, ch in enumerate(split_tiles(line)):
            if ch == ".":
                continue
            content = "" if ch == "?" or ch.islower() else unbracket(ch)
            own = (
                rng
                if tile_seed is None
                else np.random.default_rng((tile_seed, row, col, *map(ord, ch)))
            )
            patch = _tile_patch(content, values.get(content, 0), style, r, own)
            jitter = own.normal(0, style.jitter * r, 2)
            centre = (origin + (col + 0.5) * r + jitter[0], origin + (row + 0.5) * r + jitter[1])
            _place_tile(board, patch, centre, lift, own.normal(0, 2.5), style, relief)
    arr = np.asarray(board.convert("RGB")).astype(np.float32)
    texture = cv2.resize(
        rng.normal(0, 1, (side_y // 8 + 1, side_x // 8 + 1)).astype(np.float32),
        (side_x, side_y),
        interpolation=cv2.INTER_CUBIC,
    )
    arr *= 1 + 0.03 * texture[..., None]
    arr += rng.normal(0, 2.0, arr.shape).astype(np.float32)
    return np.clip(arr, 0, 255).astype(np.uint8), origin


# ---- photographing it -----------------------------------------------------------------------


@dataclass(frozen=True)
class Pose:
    """Where the camera sees the board: quarter turns, extra in-plane angle (degrees), tilt of
    the camera off vertical (degrees) and its direction, and the grid's size as a fraction of the
    photo's shorter side."""

    quarter_turns: int = 0
    angle: float = 0.0
    tilt: float = 0.0
    tilt_direction: float = 0.0
    fill: float = 0.7
    centre: tuple[float, float] = (0.5, 0.5)


def random_pose(rng: np.random.Generator, max_tilt: float = 40.0) -> Pose:
    """A hand-held phone's view of the board from any side of the table."""
    return Pose(
        quarter_turns=int(rng.integers(0, 4)),
        angle=float(rng.normal(0, 6)),
        tilt=float(rng.uniform(0, max_tilt)),
        tilt_direction=float(rng.uniform(0, 360)),
        fill=float(rng.uniform(0.35, 0.9)),
        centre=(float(rng.uniform(0.42, 0.58)), float(rng.uniform(0.42, 0.58))),
    )


def _fitting_pose(
    rng: np.random.Generator, size: tuple[int, int], extent: tuple[float, float] = (1.0, 1.0)
) -> Pose:
    """A random pose shrunk until the whole grid lies inside the photo; `extent` is the grid's
    width and height over its longer side."""
    w, h = size
    pose = random_pose(rng)
    ex, ey = extent
    unit = np.float32([[-ex, -ey], [ex, -ey], [ex, ey], [-ex, ey]])
    for _ in range(12):
        seen = _projection(pose, size, unit, pose.fill * min(w, h) / 2)
        if (seen.min(0) > 0).all() and (seen.max(0) < [w, h]).all():
            break
        pose = dataclasses.replace(pose, fill=pose.fill * 0.9)
    return pose


def _projection(pose: Pose, size: tuple[int, int], points: np.ndarray, scale: float) -> np.ndarray:
    """Project board-plane points (pixels, centred) through a pinhole camera tilted by pose."""
    w, h = size
    a = math.radians(pose.angle + 90 * pose.quarter_turns)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    p = points @ rot.T * scale
    t, d = math.radians(pose.tilt), math.radians(pose.tilt_direction)
    axis = np.array([math.cos(d), math.sin(d), 0.0])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    r3 = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * k @ k
    xyz = np.c_[p, np.zeros(len(p))] @ r3.T
    focal = 1.1 * max(w, h)
    depth = focal + xyz[:, 2]
    u = focal * xyz[:, 0] / depth + pose.centre[0] * w
    v = focal * xyz[:, 1] / depth + pose.centre[1] * h
    return np.c_[u, v]


def _background(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = np.asarray(_random_rgb(rng, rng.random() < 0.6), np.float32)
    base = base * 0.4 + base.mean() * 0.6  # tables are mostly dull: wood, cloth, laminate
    low = cv2.resize(
        rng.normal(0, 1, (4, 4, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
    )
    img = base + 25 * low
    if rng.random() < 0.5:
        yy = np.arange(h, dtype=np.float32)[:, None]
        xx = np.arange(w, dtype=np.float32)[None, :]
        grain = np.sin((yy + 0.1 * xx + 8 * np.sin(xx / 90)) / rng.uniform(3, 12))
        img = img * (1 + 0.06 * grain[..., None])
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(0, 6))):
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        if rng.random() < 0.5:
            axes = (int(rng.integers(w // 30, w // 6)), int(rng.integers(h // 30, h // 6)))
            cv2.ellipse(img, (cx, cy), axes, float(rng.uniform(0, 180)), 0, 360, colour, -1)
        else:
            rect = (
                (cx, cy),
                (float(rng.uniform(w / 20, w / 2)), float(rng.uniform(h / 30, h / 8))),
                float(rng.uniform(0, 180)),
            )
            cv2.fillPoly(img, [cv2.boxPoints(rect).astype(np.int32)], colour)
    return img


def _photo_effects(img: np.ndarray, rng: np.random.Generator, cell_px: float) -> np.ndarray:
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    light = cv2.resize(
        rng.normal(0, 1, (3, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
    )
    out *= (1 + rng.uniform(0.05, 0.25) * light)[..., None]
    if rng.random() < 0.4:
        # A soft shadow of a hand or phone across part of the board.
        mask = np.zeros((h, w), np.float32)
        pts = (rng.random((5, 2)) * [w, h]).astype(np.int32)
        cv2.fillPoly(mask, [cv2.convexHull(pts)], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), max(w, h) * 0.03)
        out *= (1 - rng.uniform(0.2, 0.5) * mask)[..., None]
    if rng.random() < 0.3:
        glare = np.zeros((h, w), np.float32)
        cv2.circle(
            glare,
            (int(rng.integers(0, w)), int(rng.integers(0, h))),
            int(max(w, h) * rng.uniform(0.03, 0.12)),
            1.0,
            -1,
        )
        glare = cv2.GaussianBlur(glare, (0, 0), max(w, h) * 0.03)
        out += (rng.uniform(40, 120) * glare)[..., None]
    out *= rng.uniform(0.85, 1.15, 3).astype(np.float32) * rng.uniform(0.7, 1.2)
    out = 255 * (np.clip(out, 0, 255) / 255) ** rng.uniform(0.8, 1.25)
    sigma = rng.uniform(0, 0.04) * cell_px
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out += rng.normal(0, rng.uniform(0, 7), out.shape).astype(np.float32)
    out8 = np.clip(out, 0, 255).astype(np.uint8)
    quality = int(rng.integers(45, 96))
    ok, buf = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out8


def render_board_photo(
    rows: list[str],
    variant: str | Variant = "erudit",
    style: Style | None = None,
    seed: int = 0,
    size: tuple[int, int] = (1200, 900),
    pose: Pose | None = None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A synthetic phone photo of a board holding `rows` (board text format, `*` a star tile) on
    the layout of `variant` (a shipped variant's name or a `Variant`), of any size.

    Returns (BGR image, grid corners, rows): corners is a 4×2 float32 array of the playing grid's
    outer corners in image pixels, in board order — the top-left corner of row 1 / column A, then
    top-right, bottom-right, bottom-left — so they follow the board, not the photo, when the board
    is turned. The same arguments always give the same image.

    >>> img, corners, truth = render_board_photo(["." * 15] * 15, "en", seed=1)
    """
    rng = np.random.default_rng(seed)
    chosen = load_variant(variant) if isinstance(variant, str) else variant
    height, width = chosen.layout.height, chosen.layout.width
    if len(rows) != height or any(tile_count(line) != width for line in rows):
        raise ValueError(f"the rows do not fill the {width}×{height} board of {chosen.name}")
    longer = max(height, width)
    style = style or random_style(rng)
    pose = pose or _fitting_pose(rng, size, (width / longer, height / longer))
    w, h = size
    values = {letter: chosen.value(letter) for letter in chosen.alphabet}
    # The grid's longer side spans `pose.fill` of the photo's shorter side.
    cell_in_photo = pose.fill * min(w, h) / longer
    r = int(np.clip(cell_in_photo * 1.2, 24, 96))
    top, origin = render_topdown(rows, chosen.layout.rows, style, r, rng, values)
    side_y, side_x = top.shape[:2]
    centre = np.float32([side_x / 2, side_y / 2])
    board_pts = np.float32([[0, 0], [side_x, 0], [side_x, side_y], [0, side_y]]) - centre
    grid_pts = np.float32(
        [
            [origin, origin],
            [origin + width * r, origin],
            [origin + width * r, origin + height * r],
            [origin, origin + height * r],
        ]
    )
    scale = cell_in_photo / r
    dst = _projection(pose, size, board_pts, scale).astype(np.float32)
    corners = _projection(pose, size, grid_pts - centre, scale).astype(np.float32)
    homography = cv2.getPerspectiveTransform(board_pts + centre, dst)
    bgr_top = cv2.cvtColor(top, cv2.COLOR_RGB2BGR)
    photo = _background(rng, w, h)
    shadow = cv2.warpPerspective(np.full((side_y, side_x), 255, np.uint8), homography, (w, h))
    shadow = cv2.GaussianBlur(
        np.roll(shadow, (int(cell_in_photo * 0.3),) * 2, (0, 1)), (0, 0), cell_in_photo * 0.3 + 1
    )
    photo = (photo * (1 - 0.4 * shadow[..., None] / 255)).astype(np.uint8)
    warped = cv2.warpPerspective(bgr_top, homography, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((side_y, side_x), 255, np.uint8), homography, (w, h))
    photo = np.where(mask[..., None] > 127, warped, photo)
    photo = _photo_effects(photo, rng, cell_in_photo)
    return photo, corners, list(rows)


def bag_rows(rng: np.random.Generator, variant: Variant, tiles: int) -> list[str]:
    """`tiles` tiles drawn from the variant's bag, blanks included, on random squares."""
    blank = variant.blank_symbol or "?"
    bag = [letter for letter, (count, _) in variant.tiles.items() for _ in range(count)]
    bag += [blank] * variant.blank_count
    drawn = rng.choice(len(bag), size=tiles, replace=False)
    cells = ["."] * (GRID * GRID)
    for square, index in zip(rng.choice(GRID * GRID, tiles, replace=False), drawn, strict=True):
        cells[square] = tile_text(bag[index])
    return ["".join(cells[r * GRID : (r + 1) * GRID]) for r in range(GRID)]


def random_rows(
    rng: np.random.Generator,
    alphabet: tuple[str, ...],
    density: float,
    blank: str = "?",
    height: int = GRID,
    width: int = GRID,
) -> list[str]:
    """Random contents of a `height` x `width` board: each cell a tile with probability density
    (letters uniform, a few blanks or stars), for training and tests rather than plausible play."""
    cells = []
    for _ in range(height * width):
        if rng.random() >= density:
            cells.append(".")
        elif rng.random() < 0.1:
            # Blank tiles are the hardest tiles to tell from empty squares: show plenty of them.
            cells.append(blank)
        else:
            cells.append(tile_text(str(rng.choice(alphabet))))
    return ["".join(cells[i * width : (i + 1) * width]) for i in range(height)]
