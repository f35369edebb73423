"""Play as players: whole recorded games kept through the HTTP API the way people at the table
would, from rendered phone photos. Prints, per game and in total, the turns, the turns right with
no question at all, the questions asked (reviews and the answers sent), retakes, corners marked,
moves typed, turns lost (the game could not go on, and why) and turns recorded wrongly.

    python benchmarks/bench_players.py [--games 6] [--first K] [--seed 7] [--size 1600x1200]
        [--styles heldout|calibrated|random] [--questions] [--shared ../shared] [--variant de]

Each recorded game of ``../shared/gcg`` (10 plays or more) is played on the FastAPI app in-process
(TestClient, a temporary SQLite database, the real vision pipeline). One board style per game:
a held-out edition (`training.render.heldout_edition`, the default), the calibrated style of the
variant's edition, or a random training style. The players photograph the empty board, then the
board after every turn, each photo a new pose and light, sent with `after`: the game's head as
their page last saw it; and they:

- answer a `needs_review` from the truth: the real content of the squares asked about (a blank's
  letter through the blank endpoint), every misread square when none is asked about, or confirm;
- on `no_board` (or a photo the service refuses) retake once, then mark the true grid corners
  on the retake, then type the move (`POST /moves`, GCG notation);
- pass or exchange with a photo of the unchanged board (the service records a pass: a photo
  cannot tell an exchange, so the players then say it was one: `instead_of_pass`), withdraw a
  challenged-off play with a photo of the board without it (the challenge endpoint when the
  photo fails), and record a failed five-point challenge and the racks left at the end through
  their endpoints;
- when a committed move differs from the record (tiles or score), undo it and type it, so that
  one misread does not spoil the rest of the game; it still counts as recorded wrongly.

With `--variant NAME` (de, fr, es, pl, en: a variant with a word list) the games are not the
recorded ones but `--games` games of that variant played by `training.self_play` from the seeds
`--seed`·1000 + `--first` + k, the same players, styles and printout.

A turn that cannot be recorded at all stops its game (a lost turn, with the reason); the
benchmark goes on to the next game. At the end the service's sheet is compared with the record's.
Overlays are not drawn (a player's phone shows them; they cost time, not answers).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

# The photos are rendered with the dev-only `training` package, which lives in the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient

from scorer.board import Board, square_name
from scorer.game import (
    ChallengeFailed,
    ChallengeWithdrawn,
    EndOfGame,
    Event,
    Exchange,
    Game,
    GameError,
    Pass,
    Play,
    TimePenalty,
    game_from_gcg,
)
from scorer.gcg import GcgError, infer_variant, read_gcg_file
from scorer.notation import split_tiles
from scorer.sheet import sheet_dict
from scorer.variant import load_variant
from server.app import create_app
from training.photo_games import edition_style, phone_pose, photo_rows
from training.render import Style, heldout_edition, random_style, render_board_photo
from training.self_play import self_play

PHOTOGRAPHED = (Play, Pass, Exchange, ChallengeWithdrawn)
# Rounds of answers to one photo's questions before the players give up on it and type the move.
MAX_ROUNDS = 6


class Lost(Exception):
    """The game cannot go on: a turn could not be recorded."""


@dataclass
class Tally:
    """The figures of one game, or of all of them."""

    turns: int = 0
    right: int = 0
    reviews: int = 0
    answers: int = 0
    retakes: int = 0
    corners: int = 0
    typed: int = 0
    lost: int = 0
    wrong: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("turns", "right", "reviews", "answers", "retakes", "corners", "typed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.lost += other.lost
        self.wrong += other.wrong

    def line(self) -> str:
        return (
            f"{self.turns} turns, {self.right} right with no question, {self.reviews} reviews "
            f"({self.answers} answers), {self.retakes} retakes, {self.corners} corners marked, "
            f"{self.typed} typed, {self.lost} lost, {self.wrong} recorded wrongly"
        )


@dataclass
class Shot:
    """One rendered photo: the JPEG and the grid's corners as seen (TL, TR, BR, BL)."""

    jpeg: bytes
    corners: list[list[float]]


def seen_corners(corners: np.ndarray) -> list[list[float]]:
    """The renderer's corners follow the board (row 1 / column A first); the API wants them as the
    photo is seen: clockwise on the screen from the top-left."""
    start = int(np.argmin(corners.sum(axis=1)))
    return [[float(x), float(y)] for x, y in np.roll(corners, -start, axis=0)]


def _key(move: dict[str, Any]) -> tuple:
    """A sheet line as compared: a photo cannot tell an exchange from a pass (both score 0), and
    a play is the words it made with their scores, not how it is written (one tile that makes
    two words, JO and ON, is "11H JO" or "I11 ON": the same move)."""
    if move["kind"] in ("pass", "exchange"):
        return (move["player"], "pass", move["score"], move["total"])
    if move.get("words"):
        words = tuple(sorted((w["word"], w["score"]) for w in move["words"]))
        return (move["player"], move["kind"], words, move["score"], move["total"])
    return (
        move["player"],
        move["kind"],
        move["position"],
        move["word"],
        move["score"],
        move["total"],
    )


class Player:
    """The people at the table for one game: they hold the record (the truth) and the API."""

    def __init__(
        self, client: TestClient, game: Game, style: Style | None, seed: int, size: tuple[int, int]
    ) -> None:
        self.client = client
        self.game = game
        self.style = style
        self.size = size
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.shots = 0
        self.tally = Tally()
        self.id = ""
        self.auth: dict[str, str] = {}
        self.questions = False  # note every question asked, with the truth
        # The game's head as the players' page last saw it, sent with each photo (`after`).
        self.head = 0

    # --- HTTP ----------------------------------------------------------------------------------

    def post(self, path: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
        response = self.client.post(f"/api/games/{self.id}{path}", headers=self.auth, **kwargs)
        body = response.json() if response.content else {}
        if response.status_code >= 500:
            raise Lost(f"POST {path}: {response.status_code} {body}")
        game = body.get("game") or body
        if response.status_code == 200 and "head" in game:
            self.head = game["head"]
        return response.status_code, body

    def create(self) -> None:
        options: dict[str, Any] = {}
        failed = [e for e in self.game.events if isinstance(e, ChallengeFailed)]
        if self.game.variant.options.challenge == "five_point":
            options["challenge"] = "five_point"
            if failed and failed[0].bonus is not None:
                options["challenge_bonus"] = failed[0].bonus
        body = {"variant": self.game.variant.name, "players": list(self.game.players)}
        if options:
            body["options"] = options
        response = self.client.post("/api/games", json=body)
        if response.status_code != 201:
            raise Lost(f"cannot create the game: {response.status_code} {response.text[:200]}")
        created = response.json()
        self.id = created["id"]
        self.auth = {"Authorization": f"Bearer {created['token']}"}

    def sheet(self) -> dict[str, Any]:
        return self.client.get(f"/api/games/{self.id}").json()

    # --- photos --------------------------------------------------------------------------------

    def shoot(self, board: Board) -> Shot:
        """A new phone photo of `board`: another pose, light and side of the table."""
        self.shots += 1
        rows = photo_rows(board, self.game.variant.blank_symbol)
        image, corners, _ = render_board_photo(
            rows,
            self.game.variant.name,
            self.style,
            self.seed * 1000 + self.shots,
            self.size,
            phone_pose(self.rng),
        )
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])
        assert ok
        return Shot(encoded.tobytes(), seen_corners(corners))

    def send(self, shot: Shot, corners: bool = False) -> tuple[int, dict[str, Any]]:
        data = {"after": str(self.head)}
        if corners:
            data["corners"] = json.dumps(shot.corners)
        files = {"photo": ("board.jpg", shot.jpeg, "image/jpeg")}
        return self.post("/turns", files=files, data=data)

    def photograph(self, board: Board, where: str) -> dict[str, Any] | None:
        """Photograph `board` as the next turn: retake once when refused, then mark the corners
        on the retake. Returns the TURN answer, or None when no photo would do."""
        shot = self.shoot(board)
        status, body = self.send(shot)
        if status == 200:
            return body
        self.tally.notes.append(f"{where}: {body.get('error')}: {body.get('detail', '')[:120]}")
        if body.get("error") not in ("no_board", "illegal_play"):
            return None
        self.tally.retakes += 1
        shot = self.shoot(board)
        status, body = self.send(shot)
        if status == 200:
            return body
        if body.get("error") != "no_board":
            self.tally.notes.append(f"{where}: retake: {body.get('error')}")
            return None
        self.tally.corners += 1
        status, body = self.send(shot, corners=True)
        if status == 200:
            return body
        self.tally.notes.append(f"{where}: with corners: {body.get('error')}: {body.get('detail')}")
        return None

    # --- review --------------------------------------------------------------------------------

    def answer(self, turn: dict[str, Any], truth: Board, where: str) -> dict[str, Any] | None:
        """Answer a `needs_review` from the truth until the turn is committed; None when the
        players give up on the photo (it is then rejected)."""
        self.tally.reviews += 1
        # One token per square: a Spanish CH tile is `[CH]` in the rows' text.
        squares = [split_tiles(row) for row in truth.rows]
        before: list[str] = []
        for _ in range(MAX_ROUNDS):
            if turn["status"] == "committed":
                return turn
            cells: dict[str, str] = {}
            asked = turn["uncertain"]
            questions = [cell["square"] for cell in asked]
            if (not asked or questions == before) and turn["board"]:
                # Nothing asked, or the question the players just answered asked again: they tap
                # every square of the board as read that is wrong (the page lets them).
                if asked:
                    self.tally.notes.append(f"{where}: asked {', '.join(questions)} again")
                read = [split_tiles(row) for row in turn["board"]]
                asked = [
                    {"square": square_name(r, c), "row": r, "col": c}
                    for r, row in enumerate(squares)
                    for c, ch in enumerate(row)
                    if read[r][c] != ch and not (ch.islower() and read[r][c] == "?")
                ]
            if not asked:
                self.tally.answers += 1
                status, body = self.post("/review/confirm")
                if status != 200:
                    self.tally.notes.append(f"{where}: confirm: {body.get('error')}")
                    break
                turn = body
                continue
            before = questions
            if self.questions:
                self.tally.notes.append(
                    f"{where}: {turn['message'][:90]}; asked "
                    + ", ".join(
                        f"{c['square']} {'/'.join(c.get('candidates') or [])}"
                        f"={squares[c['row']][c['col']]}"
                        for c in asked
                    )
                )
            blanks = []
            for cell in asked:
                ch = squares[cell["row"]][cell["col"]]
                if ch.islower():
                    blanks.append((cell["square"], ch))
                else:
                    cells[cell["square"]] = ch
            status, body = 200, turn
            if cells:
                self.tally.answers += 1
                status, body = self.post("/review/correct", json={"cells": cells})
            for square, ch in blanks:
                if status != 200 or body["status"] == "committed":
                    break
                self.tally.answers += 1
                status, body = self.post(
                    "/review/blank", json={"square": square, "letter": ch.upper()}
                )
                if status == 400:  # read as a letter, not a blank: name the blank's square
                    self.tally.answers += 1
                    status, body = self.post("/review/correct", json={"cells": {square: ch}})
            if status != 200:
                self.tally.notes.append(
                    f"{where}: review answer {status} {body.get('error')}: "
                    f"{body.get('detail', '')[:120]}"
                )
                break
            turn = body
        if turn["status"] == "committed":
            return turn
        self.tally.notes.append(f"{where}: still under review after the answers; rejected")
        self.post("/review/reject")
        return None

    # --- turns ---------------------------------------------------------------------------------

    def type_move(self, expected: dict[str, Any], event: Event, where: str) -> dict[str, Any]:
        """Record the recorded turn without a photo: typed, or through its endpoint."""
        self.tally.typed += 1
        kind = expected["kind"]
        if kind == "play":
            move = {"position": expected["position"], "word": expected["word"]}
            status, body = self.post("/moves", json=move)
            if status != 200:
                raise Lost(f"{where}: typed {move}: {status} {body}")
            return body["game"]
        if kind == "exchange" and isinstance(event, Exchange):
            swap = {"tiles": event.tiles} if event.tiles else {"count": event.size}
            status, body = self.post("/exchange", json=swap)
        elif kind in ("pass", "exchange"):
            status, body = self.post("/pass")
        elif kind == "withdrawn":
            challenger = self.game.players[
                (self.game.players.index(expected["player"]) + 1) % len(self.game.players)
            ]
            status, body = self.post("/challenge", json={"challenger": challenger, "valid": False})
        else:
            raise Lost(f"{where}: no way to record a {kind!r} line")
        if status != 200:
            raise Lost(f"{where}: {kind}: {status} {body}")
        return body

    def photo_turn(self, index: int, event: Event, number: int) -> None:
        where = f"turn {number}"
        prefix = Game(self.game.variant, self.game.players, self.game.events[: index + 1])
        truth = prefix.state.board
        expected = [_key(m) for m in sheet_dict(prefix)["moves"]]
        last = sheet_dict(prefix)["moves"][-1]
        self.tally.turns += 1
        notes = len(self.tally.notes)
        turn = self.photograph(truth, where)
        # Right with no question: the first photo committed, nothing refused or asked.
        clean = turn is not None and turn["status"] == "committed"
        if turn is not None and turn["status"] == "needs_review":
            turn = self.answer(turn, truth, where)
        got = self.type_move(last, event, where) if turn is None else turn["game"]
        unrecorded = turn is not None and turn["move"] is None and len(got["moves"]) < len(expected)
        if unrecorded and isinstance(event, Pass | Exchange):
            # An unchanged empty board is no turn (the game has not begun): a first-turn pass
            # or exchange cannot be photographed, so it goes through its endpoint.
            self.tally.notes.append(f"{where}: the unchanged empty board records nothing")
            got = self.type_move(last, event, where)
        passed = turn is not None and (turn["move"] or {}).get("kind") == "pass"
        if passed and isinstance(event, Exchange) and len(got["moves"]) == len(expected):
            # A photo cannot tell an exchange from a pass: the players say it was an exchange.
            swap = {"tiles": event.tiles} if event.tiles else {"count": event.size}
            status, body = self.post("/exchange", json={**swap, "instead_of_pass": True})
            if status != 200:
                raise Lost(f"{where}: the pass made an exchange: {status} {body}")
            got = body
        clean = clean and len(self.tally.notes) == notes
        lines = [_key(m) for m in got["moves"]]
        if lines != expected:
            self.tally.wrong += 1
            wrong = got["moves"][-1] if got["moves"] else None
            self.tally.notes.append(
                f"{where}: recorded wrongly: {_brief(wrong)} instead of {_brief(last)}"
            )
            status, body = self.post("/undo")
            if status != 200:
                raise Lost(f"{where}: undo: {status} {body}")
            got = self.type_move(last, event, where)
            if [_key(m) for m in got["moves"]] != expected:
                raise Lost(f"{where}: the sheet still differs after typing {_brief(last)}")
        elif clean:
            self.tally.right += 1

    def play(self) -> None:
        """The whole game: the empty board, then every recorded event."""
        self.create()
        empty = Board.from_rows(Game(self.game.variant, self.game.players).state.board.rows)
        # The empty board is not a turn: its questions and retakes are noted, not counted.
        counted = dataclasses.replace(self.tally)
        turn = self.photograph(empty, "empty board")
        if turn is not None and turn["status"] == "needs_review":
            self.answer(turn, empty, "empty board")
        asked = self.tally.answers - counted.answers
        self.tally = dataclasses.replace(counted, notes=self.tally.notes)
        if asked:
            self.tally.notes.append(f"empty board: {asked} answers")
        number = 0
        for index, event in enumerate(self.game.events):
            if isinstance(event, PHOTOGRAPHED):
                number += 1
                self.photo_turn(index, event, number)
            elif isinstance(event, ChallengeFailed):
                challenger = self.game.players[event.challenger]
                status, body = self.post(
                    "/challenge", json={"challenger": challenger, "valid": True}
                )
                if status != 200:
                    raise Lost(f"failed challenge by {challenger}: {status} {body}")
            elif isinstance(event, EndOfGame):
                racks = dict(zip(self.game.players, event.racks, strict=True))
                status, body = self.post("/end", json={"racks": racks})
                if status != 200:
                    raise Lost(f"end of game, racks {racks}: {status} {body}")
            elif isinstance(event, TimePenalty):
                self.tally.notes.append(
                    f"a time penalty of {event.points} has no endpoint: not recorded"
                )
            else:
                self.tally.notes.append(f"{type(event).__name__} not recorded")


def _brief(move: dict[str, Any] | None) -> str:
    if move is None:
        return "nothing"
    if move["kind"] == "play":
        return f"{move['position']} {move['word']} {move['score']}"
    return f"{move['kind']} {move['score']}"


def _style(kind: str, rng: np.random.Generator, variant_name: str) -> Style:
    if kind == "calibrated":
        return edition_style(variant_name)
    if kind == "random":
        return random_style(rng)
    return heldout_edition(rng)


def recorded_games(gcg_dir: Path) -> list[tuple[Path, Game]]:
    """The recorded games of 10 plays or more, in file order."""
    games = []
    for path in sorted(gcg_dir.glob("*/*.gcg")):
        try:
            record = read_gcg_file(path)
            game = game_from_gcg(record, infer_variant(record))
        except (GcgError, GameError):
            continue
        if sum(isinstance(e, Play) for e in game.events) >= 10:
            games.append((path, game))
    return games


def shared_games(shared: Path) -> list[tuple[Path, Game]] | None:
    """`recorded_games` of `shared`/gcg, or None (said on stderr) when there is no such folder."""
    gcg_dir = shared / "gcg"
    if not gcg_dir.is_dir():
        print(f"no recorded games at {gcg_dir}: nothing to play (give --shared)", file=sys.stderr)
        return None
    return recorded_games(gcg_dir)


def photo_size(text: str) -> tuple[int, int]:
    """`WIDTHxHEIGHT` (the `--size` option) as (width, height)."""
    width, height = text.split("x")
    return int(width), int(height)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--first", type=int, default=0, help="skip the first K recorded games")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--size", default="1600x1200")
    parser.add_argument("--styles", choices=("heldout", "calibrated", "random"), default="heldout")
    parser.add_argument(
        "--questions", action="store_true", help="print every question asked, with the truth"
    )
    parser.add_argument(
        "--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared"
    )
    parser.add_argument(
        "--variant", help="self-played games of this variant instead of the recorded ones"
    )
    args = parser.parse_args()
    if args.variant:
        variant = load_variant(args.variant)
        seeds = range(args.seed * 1000 + args.first, args.seed * 1000 + args.first + args.games)
        chosen = [(f"self-play {variant.name} seed {s}", self_play(variant, s)) for s in seeds]
    else:
        games = shared_games(args.shared)
        if games is None:
            return 2
        recorded = games[args.first : args.first + args.games]
        chosen = [(f"{path.parent.name}/{path.name}", game) for path, game in recorded]
    size = photo_size(args.size)
    total = Tally()
    sheets_right = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as data_dir:
        # No overlays: a phone draws them for the players; they change no answer.
        app = create_app(data_dir=data_dir, overlay=lambda data, reading: b"")
        with TestClient(app) as client:
            for number, (name, game) in enumerate(chosen):
                seed = args.seed * 1000 + args.first + number
                rng = np.random.default_rng(seed)
                style = _style(args.styles, rng, game.variant.name)
                player = Player(client, game, style, seed, size)
                player.questions = args.questions
                began = time.perf_counter()
                lost = ""
                try:
                    player.play()
                except Lost as exc:
                    lost = str(exc)
                    player.tally.lost += 1
                tally = player.tally
                print(f"{name} ({game.variant.name}, style {style.name}): {tally.line()}")
                for note in tally.notes:
                    print(f"  {note}")
                if lost:
                    print(f"  LOST, the game stops: {lost}")
                elif player.id:
                    same = _compare(player.sheet(), game)
                    sheets_right += same == ""
                    print(f"  sheet: {same or 'as recorded'}")
                print(f"  {time.perf_counter() - began:.0f} s")
                total.add(tally)
    print(f"\n{len(chosen)} games: {total.line()}")
    print(f"sheets as recorded at the end: {sheets_right}/{len(chosen)}")
    print(f"{time.perf_counter() - start:.0f} s in all, styles {args.styles}, {size[0]}x{size[1]}")
    return 0


def _compare(sheet: dict[str, Any], game: Game) -> str:
    """'' when the service's sheet is the record's (exchanges as passes), else what differs."""
    recorded = sheet_dict(game)
    problems = []
    if sheet["totals"] != recorded["totals"]:
        problems.append(f"totals {sheet['totals']} instead of {recorded['totals']}")
    got = [_key(m) for m in sheet["moves"]]
    want = [_key(m) for m in recorded["moves"]]
    if got != want:
        first = next(
            (k for k, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
            min(len(got), len(want)),
        )
        problems.append(
            f"{len(got)} lines instead of {len(want)}, first difference at line {first + 1}: "
            f"{got[first] if first < len(got) else None} vs {want[first] if first < len(want) else None}"
        )
    shipped = load_variant(game.variant.name)
    if game.variant.end != shipped.end:
        problems.append(
            f"the record settles racks by {game.variant.end.out_bonus}, the service by "
            f"{shipped.end.out_bonus}"
        )
    return "; ".join(problems)


if __name__ == "__main__":
    sys.exit(main())
