"""`scorekeeper replay`: photos of one game in order, one after each turn, become a score sheet.

Each photo is read, tracked against the board so far and scored; a turn that cannot be settled
stops the replay with a message naming the photo, the cells and their candidates.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from scorekeeper.variants import add_variant_arguments, chosen_variant
from scorer.board import square_name
from scorer.dictionary import Dictionary, DictionaryError, dictionary_for
from scorer.game import Game, GameError
from scorer.sheet import sheet_dict
from scorer.tracking import TrackResult
from scorer.turns import tile_like_confirmed, turn_from_reading
from scorer.variant import VariantError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="score a game from photos taken after each turn",
        description="Read photos of one game in order (the first may be the empty board or "
        "the board after move 1) and print the score sheet. An unchanged board is a pass.",
    )
    parser.add_argument("photos", nargs="+", metavar="PHOTO")
    add_variant_arguments(parser)
    parser.add_argument("--players", required=True, help="names in turn order, comma-separated")
    parser.add_argument("--json", action="store_true", help="print the sheet as JSON")
    parser.add_argument(
        "--lexicon",
        metavar="FILE",
        help="the players' word list, one word a line, instead of the variant's own dictionary",
    )
    parser.add_argument("--no-dictionary", action="store_true", help="do not check words")
    parser.set_defaults(run=run)


def _describe(result: TrackResult) -> str:
    parts = [result.message]
    for cell in result.uncertain:
        options = "/".join(cell.candidates) or "none"
        parts.append(f"{square_name(*cell.square)} ({cell.reason}): {options}")
    return "; ".join(parts)


def _print_sheet(game: Game, as_json: bool) -> None:
    sheet = sheet_dict(game)
    if as_json:
        print(json.dumps(sheet, ensure_ascii=False))
        return
    print(
        f"{'#':>3}  {'player':<12} {'kind':<10} {'pos':<4} {'word':<16} {'score':>5} {'total':>5}"
    )
    for number, move in enumerate(sheet["moves"], start=1):
        print(
            f"{number:>3}  {move['player']:<12} {move['kind']:<10} {move['position']:<4} "
            f"{move['word']:<16} {move['score']:>5} {move['total']:>5}"
        )
    print("totals: " + ", ".join(f"{name} {score}" for name, score in sheet["totals"].items()))


def run(args: argparse.Namespace) -> int:
    from vision.answers import tile_like_vacancies, unchanged_vacancies, with_vacancies
    from vision.classify import CellClassifier, UnreadableVariant, check_readable
    from vision.decode import PhotoError
    from vision.exemplars import with_known_letters
    from vision.locate import BoardNotFound
    from vision.pipeline import read_game_photo

    try:
        variant = chosen_variant(args)
        check_readable(variant)
        players = tuple(name.strip() for name in args.players.split(","))
        game = Game(variant, players)
        dictionary: Dictionary | None = dictionary_for(
            variant, args.lexicon, enabled=not args.no_dictionary
        )
    except (VariantError, UnreadableVariant, GameError, DictionaryError) as exc:
        print(f"scorekeeper replay: {exc}", file=sys.stderr)
        return 2

    try:
        classifier = CellClassifier()
    except (OSError, RuntimeError) as exc:
        print(f"scorekeeper replay: the cell model cannot be loaded: {exc}", file=sys.stderr)
        return 2

    previous_digest = None
    # Known tiles the previous photo read as empty (see scorer.tracking.track's `steady`).
    steady: frozenset[tuple[int, int]] = frozenset()
    # The looks of the last photo taken as read (`vision.answers.unchanged_vacancies`).
    earlier = None
    for photo in args.photos:
        try:
            data = Path(photo).read_bytes()
        except OSError as exc:
            print(f"scorekeeper replay: {photo}: cannot read: {exc.strerror}", file=sys.stderr)
            _print_sheet(game, args.json)
            return 2
        digest = hashlib.sha256(data).hexdigest()
        if digest == previous_digest:
            # The same file twice is a slip, not a pass: a pass is photographed anew.
            print(f"{photo}: the same bytes as the previous photo, skipped", file=sys.stderr)
            continue
        previous_digest = digest
        try:
            # Where no grid is found, one the known tiles vouch for.
            reading = read_game_photo(data, variant, game.state.board, classifier)
        except (PhotoError, BoardNotFound) as exc:
            print(f"scorekeeper replay: {photo}: {exc}", file=sys.stderr)
            _print_sheet(game, args.json)
            return 2
        # Squares in doubt between no tile and a blank, unchanged since the last photo, are
        # empty; the known board's vacant squares vouch for their kinds' empty look.
        if earlier is not None:
            reading = unchanged_vacancies(reading, earlier, game.state.board, variant.layout.rows)
        reading = with_vacancies(reading, game.state.board, variant.layout.rows)
        # The known tiles in this photo show how this set's look-alike letters differ.
        reading = with_known_letters(reading, game.state.board)
        turn = turn_from_reading(game, reading, dictionary, steady)
        # A play is not recorded short of a tile the photo read as an empty square.
        suspects = tile_like_vacancies(reading, game.state.board, variant.layout.rows)
        turn = tile_like_confirmed(turn, suspects)
        if not turn.committed:
            print(f"scorekeeper replay: {photo}: {_describe(turn.result)}", file=sys.stderr)
            _print_sheet(game, args.json)
            return 1
        steady = turn.result.gone
        earlier = getattr(reading, "looks", None)
        if turn.event is None:
            continue  # the empty board before the first move
        if turn.result.invalid_words:
            listed = ", ".join(turn.result.invalid_words)
            print(f"{photo}: not in the dictionary: {listed} (challenge it?)", file=sys.stderr)
        for misread in turn.result.misreads:
            print(
                f"{photo}: {square_name(*misread.square)} read as {misread.read}, "
                f"kept {misread.known}",
                file=sys.stderr,
            )
        try:
            game = game.apply(turn.event)
        except (GameError, ValueError) as exc:
            print(f"scorekeeper replay: {photo}: {exc}", file=sys.stderr)
            _print_sheet(game, args.json)
            return 1
    _print_sheet(game, args.json)
    return 0
