"""`BoardReading`: what the vision pipeline saw in one photo, the only thing `scorer` receives.

It holds the board text rows (DESIGN.md §4), per-cell classes, confidences and top-3, the grid
corners in the photo, the rotation applied to make tiles upright, a quality score and timings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorer.notation import tile_text

# Cell class names that are not letters, and how each is written in the board text.
EMPTY = "empty"
BLANK = "blank"
STAR = "star"
_NON_LETTER_TEXT = {EMPTY: ".", BLANK: "?", STAR: "?"}


def board_char(cls: str) -> str:
    """The board-text token of a cell class: '.' empty, '?' a blank or star tile, else the
    letter itself (upper case), a tile of several letters in brackets.

    >>> board_char("empty"), board_char("star"), board_char("Ж"), board_char("CH")
    ('.', '?', 'Ж', '[CH]')
    """
    return _NON_LETTER_TEXT.get(cls, tile_text(cls.upper()))


@dataclass(frozen=True)
class BoardReading:
    """One photo's reading. Indices are [row][col] of the upright board, row 0 at the top.

    `corners` are the grid's corners in the photo's pixels (upright after EXIF), listed as the
    board's top-left, top-right, bottom-right, bottom-left *after* `rotation` quarter turns
    clockwise were applied to the grid as seen to make tiles upright; `quality` in [0, 1] says how
    well the grid fit.
    """

    variant: str
    classes: list[list[str]]
    confidence: list[list[float]]
    top3: list[list[list[tuple[str, float]]]]
    corners: list[list[float]]
    rotation: int
    quality: float
    photo_size: tuple[int, int]  # (width, height) of the upright full-size photo
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Per cell, [row][col], its look (`vision.calibrate.cell_looks`): later photos of a game
    # weigh the players' answers about squares by it (`vision.answers`).
    looks: list[list[list[float]]] | None = None
    # Per cell, [row, col, half, colour], the colours of its middle's four halves
    # (`vision.calibrate.cell_looks`): a square a neighbour's overhang half covers.
    halves: np.ndarray | None = field(default=None, compare=False, repr=False)
    # Per cell, [row, col, feature], the cell model's features of its crop (`training.features`):
    # a doubtful letter is compared with the known tiles of the same photo (`vision.exemplars`).
    features: np.ndarray | None = field(default=None, compare=False, repr=False)
    # Per cell, [row, col], whether its colours are a tile's and plainly not its premium
    # square's (`vision.calibrate.tile_coloured`, set in a game by `vision.answers.vouched`): a
    # letter read there is no printed label taken for one (`scorer.tracking`'s lone labels).
    tile_coloured: np.ndarray | None = field(default=None, compare=False, repr=False)
    # Other grids the premium squares placed (`vision.locate.GridLocation.alternatives`), in the
    # upright full-size photo's pixels as the image is seen (TL, TR, BR, BL): to be read with
    # `corners` where the game's known tiles vouch for one and not for this reading's grid.
    alternatives: list[list[list[float]]] = field(default_factory=list, compare=False, repr=False)

    @property
    def rows(self) -> list[str]:
        """The board text (DESIGN.md §4), one string per row."""
        return ["".join(board_char(c) for c in row) for row in self.classes]

    @property
    def text(self) -> str:
        """The board text as printed by `scorekeeper read`."""
        return "\n".join(self.rows)

    def uncertain(self, threshold: float) -> list[tuple[int, int]]:
        """(row, col) of the cells whose top-class confidence is below `threshold`."""
        return [
            (r, c)
            for r, line in enumerate(self.confidence)
            for c, value in enumerate(line)
            if value < threshold
        ]

    def to_json(self, photo: str) -> dict[str, Any]:
        """DESIGN.md §5's object for `scorekeeper read --json` (plus `quality` and `top3`)."""
        return {
            "photo": photo,
            "variant": self.variant,
            "rows": self.rows,
            "confidence": [[round(v, 4) for v in row] for row in self.confidence],
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "rotation": self.rotation,
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
            "quality": round(self.quality, 3),
            "top3": [
                [[[board_char(cls), round(p, 4)] for cls, p in cell] for cell in row]
                for row in self.top3
            ],
        }
