"""Recorded games turned into photo sequences: one rendered phone photo after every turn, each
with its own camera pose, light and side of the table. Used for the bundled sample games
(`python -m training.photo_games samples/games/erudit_short.gcg --out samples/erudit_game`)
and by `benchmarks/bench_replay.py`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scorer.board import Board
from scorer.game import ChallengeWithdrawn, Event, Exchange, Game, Pass, Play, game_from_gcg
from scorer.gcg import infer_variant, read_gcg_file
from scorer.notation import split_tiles
from scorer.sheet import sheet_dict
from training.render import Pose, Style, erudit_style, render_board_photo, scrabble_style

# Events a photo can show: the board after each of them.
PHOTOGRAPHED = (Play, Pass, Exchange, ChallengeWithdrawn)


@dataclass(frozen=True)
class TurnPhoto:
    """One photo of a game: the JPEG, the event it follows (`index` in the game's events), and
    the board it shows."""

    jpeg: bytes
    event: Event
    index: int
    board: Board


def photo_rows(board: Board, blank_symbol: str) -> list[str]:
    """The board as the renderer draws it: blanks as plain tiles (`?`) or the variant's `*`."""
    blank = blank_symbol or "?"
    return [
        "".join(blank if ch == "?" or ch.islower() else ch for ch in split_tiles(row))
        for row in board.rows
    ]


# The boards of the real photos: the black Эрудит board; a Scrabble board for the other sets.
EDITION_STYLES = {"erudit": erudit_style}


def edition_style(variant_name: str) -> Style:
    """The calibrated board style for an edition's sample photos."""
    return EDITION_STYLES.get(variant_name, scrabble_style)()


def phone_pose(rng: np.random.Generator) -> Pose:
    """A player's photo of the whole board from any side of the table, filling much of the frame."""
    return Pose(
        quarter_turns=int(rng.integers(0, 4)),
        angle=float(rng.normal(0, 5)),
        tilt=float(rng.uniform(0, 25)),
        tilt_direction=float(rng.uniform(0, 360)),
        fill=float(rng.uniform(0.6, 0.8)),
    )


def turn_photos(
    game: Game,
    seed: int,
    size: tuple[int, int] = (1600, 1200),
    quality: int = 88,
    style: Style | None = None,
) -> Iterator[TurnPhoto]:
    """A photo after every photographable event of `game`, each from a new camera pose, light
    and side of the table; `style` None draws a new random board style for every photo."""
    rng = np.random.default_rng(seed)
    for index, event in enumerate(game.events):
        if not isinstance(event, PHOTOGRAPHED):
            continue
        board = Game(game.variant, game.players, game.events[: index + 1]).state.board
        rows = photo_rows(board, game.variant.blank_symbol)
        image, _, _ = render_board_photo(
            rows, game.variant.name, style, seed + index, size, phone_pose(rng)
        )
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        yield TurnPhoto(encoded.tobytes(), event, index, board)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("gcg", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    record = read_gcg_file(args.gcg)
    variant = infer_variant(record)
    game = game_from_gcg(record, variant)
    args.out.mkdir(parents=True, exist_ok=True)
    photographed = []
    style = edition_style(variant.name)
    for number, photo in enumerate(turn_photos(game, args.seed, style=style), start=1):
        (args.out / f"turn_{number:02d}.jpg").write_bytes(photo.jpeg)
        # A photo cannot tell an exchange from a pass: the sheet records what the photos show.
        event = photo.event
        photographed.append(Pass(event.player) if isinstance(event, Exchange) else event)
    expected = sheet_dict(Game(game.variant, game.players, tuple(photographed)))
    expected["variant"] = variant.name
    (args.out / "expected_sheet.json").write_text(
        json.dumps(expected, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
