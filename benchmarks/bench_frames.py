"""The table camera on whole recorded games: a phone on a stand sends a frame a second while the
players play, and the service makes the turns. Prints, per game and in total, the turns made once
(committed, asked), the turns missed (recorded late: a missed turn offered with the next one as
two plays, each for its own player), the false turns (a turn made with no move to make, or a move
made twice), the turns recorded wrongly, the turns asked whose answers could not record them (the
players type them), the latency from the first frame without the hand to the
frame that made the turn, and the median time the service took per frame.

    python benchmarks/bench_frames.py [--games 20] [--first K] [--seed 7]
        [--styles calibrated|heldout|random] [--shared ../shared] [--cache DIR] [--trace]

Each recorded game of ``../shared/gcg`` (10 plays or more, as `bench_players.py` picks them) is
rendered by `training.table_frames`: one camera pose, table, light and exposure (one game in five
overexposed) per game; per play a hand reaching in from the player's side, the tiles laid one by
one under it (sometimes the hand lifted off between two tiles for a frame), the hand leaving and
four still frames; a withdrawn play taken back the same way; a pass or exchange a hand hovering
over the board, then the pass button (its endpoint), as failed challenges and the racks at the end
go through theirs; glare from a lamp coming and going and the phone knocked to a new view now and
then. The frames go to ``POST /api/games/{id}/frames`` on the app in-process (TestClient, a
temporary SQLite database, the real vision pipeline, a clock that moves one second per frame); with
``--cache DIR`` each frame's JPEG is kept there and read back by the next run of the same game and
style. A `needs_review` is answered from the truth as `bench_players.py` does; a move recorded
wrongly is undone and typed so the game goes on. At the end the service's sheet is compared with
the record's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

# The frames are rendered with the dev-only `training` package, which lives in the checkout; the
# players' habits (answering a review from the truth) are bench_players.py's.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_players import Lost, Player, _compare, _key, _style, shared_games  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from scorer.game import ChallengeFailed, EndOfGame, Event, Exchange, Game, Pass  # noqa: E402
from scorer.sheet import sheet_dict  # noqa: E402
from server.app import create_app  # noqa: E402
from training.table_frames import FRAME_SIZE, Shot, TableScene, game_script  # noqa: E402

TRACE = False  # --trace: print every frame's answer
# Cached frames are kept under a name with this in it: change it when the renderer changes.
RENDERER = "r4"


def exposure(seed: int) -> float:
    """A game's camera exposure: one in five overexposed (a phone metering a dark table), a
    pale board then clipping partly or mostly to white. Drawn apart from the scene's own draws."""
    rng = np.random.default_rng((seed, 2))
    return float(rng.uniform(1.3, 1.7)) if rng.random() < 0.2 else 1.0


@dataclass
class Figures:
    """One game's figures, or all games'."""

    frames: int = 0
    turns: int = 0
    committed: int = 0
    asked: int = 0
    missed: int = 0
    late: int = 0
    false: int = 0
    wrong: int = 0
    stuck: int = 0
    handle_ms: list[float] = field(default_factory=list)
    latency_s: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, other: Figures) -> None:
        names = (
            "frames",
            "turns",
            "committed",
            "asked",
            "missed",
            "late",
            "false",
            "wrong",
            "stuck",
        )
        for name in names:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.handle_ms += other.handle_ms
        self.latency_s += other.latency_s

    def line(self) -> str:
        median = statistics.median(self.handle_ms) if self.handle_ms else 0.0
        late = max(self.latency_s) if self.latency_s else 0.0
        mean = statistics.mean(self.latency_s) if self.latency_s else 0.0
        return (
            f"{self.turns} turns: {self.committed} committed, {self.asked} asked, "
            f"{self.missed} missed ({self.late} of them recorded late, with the next), "
            f"{self.false} false turns, {self.wrong} recorded wrongly, "
            f"{self.stuck} asked that the answers could not record (typed); "
            f"latency after the hand left mean {mean:.1f} s, max {late:.1f} s; "
            f"{self.frames} frames, median {median:.1f} ms a frame"
        )


class Clock:
    """The service's clock: one second per frame sent."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def send_event(player: Player, event: Event) -> None:
    """An event the camera cannot see, through its endpoint (the page's buttons)."""
    game = player.game
    if isinstance(event, Exchange):
        swap = {"tiles": event.tiles} if event.tiles else {"count": event.size}
        status, body = player.post("/exchange", json=swap)
    elif isinstance(event, Pass):
        status, body = player.post("/pass")
    elif isinstance(event, ChallengeFailed):
        challenger = game.players[event.challenger]
        status, body = player.post("/challenge", json={"challenger": challenger, "valid": True})
    elif isinstance(event, EndOfGame):
        racks = dict(zip(game.players, event.racks, strict=True))
        status, body = player.post("/end", json={"racks": racks})
    else:
        player.tally.notes.append(f"{type(event).__name__} has no endpoint: not recorded")
        return
    if status != 200:
        raise Lost(f"{type(event).__name__}: {status} {body}")


class Frames:
    """A game's rendered frames, kept on disk under `cache` (None: rendered every time): a
    frame's JPEG is the same for the same game, style, seed and renderer, so a second run reads
    it back instead of rendering it again."""

    def __init__(self, scene: TableScene, name: str, cache: Path | None) -> None:
        self.scene = scene
        self.folder = None if cache is None else cache / name
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)

    def frame(self, shot: Shot, number: int) -> bytes:
        """The JPEG of frame `number` of the game's script."""
        path = None if self.folder is None else self.folder / f"{number:05d}.jpg"
        if path is not None and path.is_file():
            return path.read_bytes()
        data = self.scene.render(shot, number)
        if path is not None:
            partial = path.with_suffix(".part")
            partial.write_bytes(data)
            partial.replace(path)  # a run stopped halfway leaves no half-written frame
        return data


def play_game(
    figures: Figures,
    client: TestClient,
    clock: Clock,
    game: Game,
    style: Any,
    seed: int,
    cache: Path | None = None,
    name: str = "",
) -> None:
    """Play one recorded game in front of the table camera, counting into `figures` (raises
    `Lost` when a turn cannot be recorded at all)."""
    player = Player(client, game, style, seed, FRAME_SIZE)
    player.create()
    scene = TableScene(game.variant, style, seed, exposure=exposure(seed))
    frames = Frames(scene, f"{name}-{style.name}-{seed}-{RENDERER}", cache)
    rng = np.random.default_rng(seed)
    due: tuple[int, float] | None = None  # the turn whose hand left, and when
    made: set[int] = set()
    unmade: list[int] = []  # turns no turn was made for (yet: a later one may record them)
    for number, shot in enumerate(game_script(game, scene, rng)):
        for event in shot.before:
            send_event(player, event)
        if shot.turn is not None:
            if due is not None and due[0] not in made:
                figures.missed += 1
                figures.notes.append(f"event {due[0]}: no turn made")
                unmade.append(due[0])
            due = (shot.turn, clock.now)
            figures.turns += 1
        data = frames.frame(shot, number)
        began = time.perf_counter()
        status, body = player.post("/frames", files={"frame": ("frame.jpg", data, "image/jpeg")})
        figures.handle_ms.append((time.perf_counter() - began) * 1000)
        figures.frames += 1
        at = clock.now
        clock.now += 1.0
        if TRACE:
            print(
                f"    {number:4d} {'hand' if shot.hand else '    '} view {shot.view} "
                f"{'glare' if shot.glare else '     '} turn {shot.turn}: {status} "
                f"{body.get('status', body.get('error'))} changed {len(body.get('changed', []))} "
                f"{body.get('message', '')[:90]}"
            )
        if status != 200:
            figures.notes.append(f"frame {number}: {status} {body.get('error')}")
            continue
        if body["status"] not in ("committed", "needs_review"):
            continue
        if due is None or due[0] in made or body.get("turn_id") is None:
            figures.false += 1
            figures.notes.append(f"frame {number}: a false turn: {body['status']} {body['move']}")
            player.post("/undo" if body["status"] == "committed" else "/review/reject")
            continue
        index, since = due
        made.add(index)
        figures.latency_s.append(at - since)
        prefix = Game(game.variant, game.players, game.events[: index + 1])
        expected = [_key(m) for m in sheet_dict(prefix)["moves"]]
        where = f"event {index} (frame {number})"
        if body["status"] == "needs_review":
            figures.asked += 1
            turn = player.answer(body, prefix.state.board, where)
            got = player.sheet() if turn is None else turn["game"]
        else:
            figures.committed += 1
            got = body["game"]
        keys = [_key(m) for m in got["moves"]]
        if keys != expected:
            lines = sheet_dict(prefix)["moves"]
            if keys == expected[: len(keys)]:
                # Nothing recorded differs from the record: the turn is missing, not wrong.
                figures.stuck += 1
                figures.notes.append(f"{where}: not recorded after the answers: typed")
            else:
                figures.wrong += 1
                figures.notes.append(
                    f"{where}: recorded wrongly: {got['moves'][-2:]} for {lines[-1]}"
                )
            # The players put the sheet right: undo what differs, type what is missing.
            same = next(
                (k for k, (a, b) in enumerate(zip(keys, expected, strict=False)) if a != b),
                min(len(keys), len(expected)),
            )
            for _ in range(len(keys) - same):
                player.post("/undo")
            for line in lines[same:]:
                player.type_move(line, game.events[index], where)
            unmade.clear()  # missed, and typed
        elif unmade:
            # A missed turn recorded with this one (two plays offered, each for its player).
            figures.late += len(unmade)
            figures.notes.append(f"{where}: events {unmade} recorded with it, late")
            unmade.clear()
    if due is not None and due[0] not in made:
        figures.missed += 1
        figures.notes.append(f"event {due[0]}: no turn made")
    figures.notes += player.tally.notes
    same = _compare(player.sheet(), game)
    figures.notes.append(f"sheet: {same or 'as recorded'}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first", type=int, default=0, help="skip the first K recorded games")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--styles", choices=("heldout", "calibrated", "random"), default="calibrated"
    )
    parser.add_argument(
        "--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared"
    )
    parser.add_argument("--trace", action="store_true", help="print every frame's answer")
    parser.add_argument(
        "--cache", type=Path, help="keep rendered frames in this folder and reuse them"
    )
    args = parser.parse_args()
    global TRACE
    TRACE = args.trace
    games = shared_games(args.shared)
    if games is None:
        return 2
    chosen = games[args.first : args.first + args.games]
    total = Figures()
    start = time.perf_counter()
    clock = Clock()
    with tempfile.TemporaryDirectory() as data_dir:
        app = create_app(data_dir=data_dir, overlay=lambda data, reading: b"", clock=clock)
        with TestClient(app) as client:
            for number, (path, game) in enumerate(chosen):
                seed = args.seed * 1000 + args.first + number
                style = _style(args.styles, np.random.default_rng(seed), game.variant.name)
                began = time.perf_counter()
                figures = Figures()
                try:
                    name = path.stem.rsplit("__", 1)[-1]
                    play_game(figures, client, clock, game, style, seed, args.cache, name)
                except Lost as exc:
                    figures.notes.append(f"LOST, the game stops: {exc}")
                print(f"{path.parent.name}/{path.name} ({game.variant.name}, {style.name}):")
                print(f"  {figures.line()}")
                for note in figures.notes:
                    print(f"  {note}")
                print(f"  {time.perf_counter() - began:.0f} s", flush=True)
                total.add(figures)
    print(f"\n{len(chosen)} games: {total.line()}")
    print(f"{time.perf_counter() - start:.0f} s in all, styles {args.styles}, 1280x960 frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
