"""The rules core: variants as data, the board, move finding, scoring, dictionaries, games, GCG.

Pure logic with no image code and no I/O beyond reading the package's own data files.
"""

from scorer.board import Board, BoardTextError, Tile
from scorer.variant import (
    Layout,
    Options,
    Premium,
    Variant,
    VariantError,
    load_variant,
    variant_names,
)

__all__ = [
    "Board",
    "BoardTextError",
    "Layout",
    "Options",
    "Premium",
    "Tile",
    "Variant",
    "VariantError",
    "load_variant",
    "variant_names",
]
