"""Replay rendered versions of recorded games: one photo per turn, a new camera pose each time,
blanks as plain tiles. Prints turns scored as recorded, turns that needed review, and the time
per turn (read + track + validate + score).

    python benchmarks/bench_replay.py [--games 20] [--shared ../shared] [--size 1600x1200]
        [--model FILE.onnx] [--lexicon WORDS.txt | --no-dictionary]

Every photo is tracked against the game as recorded so far (a turn that needed review or was
read wrongly is then recorded as it really was, as a player would correct it), so one bad photo
does not spoil the rest of the game. Boards are drawn in the calibrated style of each edition
(`--random-styles`: a new random style, fonts and colours for every photo).

The games are English and, as in the product, words are checked with the shipped English word
list, which settles a cell that could be either of two letters when only one makes words.
`--lexicon` gives the players' own word list instead (one word a line), `--no-dictionary` none:
such cells then go to review.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

# The photos are rendered with the dev-only `training` package, which lives in the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.dictionary import Dictionary, DictionaryError, dictionary_for
from scorer.game import ChallengeWithdrawn, Game, GameError, Play, game_from_gcg
from scorer.gcg import GcgError, infer_variant, read_gcg_file
from scorer.turns import turn_from_reading
from training.photo_games import edition_style, turn_photos
from vision.classify import CellClassifier
from vision.decode import PhotoError
from vision.locate import BoardNotFound
from vision.pipeline import read_game_photo


def _tiles(play) -> set[tuple]:
    # A blank read as `?` is the same tile as the recorded blank with its letter.
    return {
        (p.square, p.tile.is_blank, "?" if p.tile.is_blank else p.tile.letter)
        for p in play.placements
    }


def _same(expected, got) -> bool:
    """Whether the replay recorded the turn as the game did: the same tiles and score."""
    if isinstance(expected, Play):
        if not isinstance(got, Play):
            return False
        return _tiles(expected.play) == _tiles(got.play) and expected.play.score == got.play.score
    if isinstance(expected, ChallengeWithdrawn):
        return isinstance(got, ChallengeWithdrawn)
    return got is not None and not isinstance(got, Play | ChallengeWithdrawn)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument(
        "--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared"
    )
    parser.add_argument("--size", default="1600x1200")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--random-styles", action="store_true")
    parser.add_argument("--model", help="an ONNX cell model to use instead of the shipped one")
    parser.add_argument("--lexicon", type=Path, help="a word list to settle uncertain letters")
    parser.add_argument("--no-dictionary", action="store_true", help="do not check words")
    args = parser.parse_args()
    gcg_dir = args.shared / "gcg"
    if not gcg_dir.is_dir():
        print(f"no recorded games at {gcg_dir}", file=sys.stderr)
        return 2
    size = tuple(int(v) for v in args.size.split("x"))
    classifier = CellClassifier(args.model)
    right = total = review = wrong = games = 0
    times: list[float] = []
    dictionaries: dict[str, Dictionary] = {}
    reasons: Counter[str] = Counter()
    for path in sorted(gcg_dir.glob("*/*.gcg")):
        if games >= args.games:
            break
        try:
            record = read_gcg_file(path)
            game = game_from_gcg(record, infer_variant(record))
        except (GcgError, GameError):
            continue
        if sum(isinstance(e, Play) for e in game.events) < 10:
            continue  # test positions, not games
        # One per variant, loaded once: the first turn's time should not include the load.
        name = game.variant.name
        if name not in dictionaries:
            try:
                dictionaries[name] = dictionary_for(
                    game.variant, args.lexicon, enabled=not args.no_dictionary
                )
                dictionaries[name].check("A")
            except DictionaryError as exc:
                print(exc, file=sys.stderr)
                return 2
        dictionary = dictionaries[name]
        games += 1
        style = None if args.random_styles else edition_style(game.variant.name)
        done: list = []
        g_right = g_total = 0
        photos = turn_photos(game, args.seed + games * 100, size=size, style=style)
        for number, photo in enumerate(photos):
            replay = Game(game.variant, game.players, tuple(done))
            replay.state  # noqa: B018  (fold the log before the clock starts)
            start = time.perf_counter()
            try:
                reading = read_game_photo(photo.jpeg, game.variant, replay.state.board, classifier)
                turn = turn_from_reading(replay, reading, dictionary)
                got = turn.event
            except (PhotoError, BoardNotFound):
                got, turn = None, None
            times.append((time.perf_counter() - start) * 1000)
            total += 1
            g_total += 1
            done = list(game.events[: photo.index + 1])
            if got is not None and _same(photo.event, got):
                right += 1
                g_right += 1
                continue
            if got is None:
                review += 1
                why = turn.result.message if turn else "no board found"
                reasons[re.split(r"[:(]", why)[0].strip()] += 1
            else:
                wrong += 1
                why = f"recorded {got} instead"
            print(f"  {path.name} photo {number + 1}: {why[:160]}")
        print(f"{path.parent.name}/{path.name}: {g_right}/{g_total} turns right")
    print(
        f"\n{games} games, {total} turns: {right} right, {review} needed review, "
        f"{wrong} recorded wrongly"
    )
    for why, count in reasons.most_common():
        print(f"  review: {count} {why}")
    if times:
        print(
            f"time per turn (read + track + score), {size[0]}x{size[1]} photo: "
            f"median {statistics.median(times):.0f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
