"""A club's evening: twenty tables at once on two server processes sharing one PostgreSQL, one of
them killed with SIGKILL in the middle. Prints whether every committed turn is there exactly
once, the duplicates, the totals against the games played, turn latency (p50, p95) under that
load, the errors by status, the hangs, and what the director's page saw.

    python benchmarks/bench_club.py [--games 20] [--turns 5] [--workers 2] [--seed 16]
        [--size 1600x1200] [--cache DIR] [--shared ../shared]

It starts its own PostgreSQL (`tools.pgserver`, a temp data dir) and two `scorekeeper serve
--workers N` processes on loopback, each in its own process group. The games are the first
`--games` recorded games of ``../shared/gcg``, each cut after its first `--turns` photographed
turns (the games are short so that 2 CPU cores read every photo in minutes). Every photo is
rendered before the clock starts (the club's own sets: the variant's calibrated board style, a
new pose per photo; `--cache` keeps them for the next run), and the players (bench_players'
`Player`) then photograph the empty board and every turn, answer reviews from the truth, retake
when a photo is refused, and undo and type a move recorded wrongly. On top:

- a retake now and then: a share of the turns is first photographed without the board in the
  frame (refused: `no_board`), then taken again;
- a phone retrying an upload: a share of the uploads is sent a second time with the same bytes
  and Idempotency-Key, as a phone does when an answer is slow; the answer must be the first;
- two phones on one game: at a share of the tables each player uses their own phone, one on each
  server; after every turn the other phone reads the game and must see it;
- halfway through the evening's turns the first server is killed (SIGKILL to its process group:
  the machine is gone). Its phones get no answer, switch to the other address and send the same
  request again (a photo, a typed move, a pass, an undo... with its Idempotency-Key; a review
  answer only if the game still waits for it); a request that hears nothing in `--timeout`
  seconds is a hang;
- the director's page is polled every 3 s throughout.

At the end each game's sheet is read from the surviving server and compared with the record:
every line present once (none missing, none extra), the totals the record's.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import httpx
import numpy as np

# The photos are rendered with the dev-only `training` package, which lives in the checkout;
# the players are bench_players' (this folder).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_players

from scorer.board import Board
from scorer.game import Event, Game
from scorer.sheet import sheet_dict
from tools.pgserver import PostgresUnavailable, TempPostgres
from training.photo_games import edition_style, phone_pose, photo_rows
from training.render import render_board_photo

REPO = Path(__file__).resolve().parent.parent
POLL_S = 3.0  # the director's page polls this often
START_TIMEOUT_S = 120


# --- photos, rendered before the clock starts --------------------------------------------------


def _render(job: tuple[list[str], str, int, tuple[int, int]]) -> tuple[bytes, list[list[float]]]:
    """One photo of `rows` (a process pool's job): the JPEG and the corners as seen."""
    rows, variant, seed, size = job
    rng = np.random.default_rng(seed)
    image, corners, _ = render_board_photo(
        rows, variant, edition_style(variant), seed, size, phone_pose(rng)
    )
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])
    assert ok
    return encoded.tobytes(), bench_players.seen_corners(corners)


def render_all(
    jobs: list[tuple[list[str], str, int, tuple[int, int]]], cache: Path | None
) -> list[bench_players.Shot]:
    """Every job's photo, from `cache` when it holds it (and put there when not)."""

    def name(job: tuple[list[str], str, int, tuple[int, int]]) -> str:
        return hashlib.sha256(json.dumps(job).encode()).hexdigest()[:24]

    shots: list[bench_players.Shot | None] = [None] * len(jobs)
    todo = []
    for i, job in enumerate(jobs):
        if cache is not None and (cache / f"{name(job)}.jpg").is_file():
            corners = json.loads((cache / f"{name(job)}.json").read_text())
            shots[i] = bench_players.Shot((cache / f"{name(job)}.jpg").read_bytes(), corners)
        else:
            todo.append(i)
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        for i, (jpeg, corners) in zip(
            todo, pool.map(_render, [jobs[i] for i in todo]), strict=True
        ):
            shots[i] = bench_players.Shot(jpeg, corners)
            if cache is not None:
                (cache / f"{name(jobs[i])}.jpg").write_bytes(jpeg)
                (cache / f"{name(jobs[i])}.json").write_text(json.dumps(corners))
    return [shot for shot in shots if shot is not None]


def no_board_photo(size: tuple[int, int], seed: int) -> bytes:
    """A photo of the table with no board in the frame (the player missed it)."""
    rng = np.random.default_rng(seed)
    image = np.full((size[1], size[0], 3), (70, 110, 150), np.uint8)
    image = cv2.add(image, rng.integers(0, 40, image.shape, dtype=np.uint8))
    image = cv2.GaussianBlur(image, (9, 9), 0)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])
    assert ok
    return encoded.tobytes()


def cut(game: Game, turns: int) -> Game:
    """`game` up to (and with) its `turns`-th photographed turn."""
    seen = 0
    for index, event in enumerate(game.events):
        seen += isinstance(event, bench_players.PHOTOGRAPHED)
        if seen == turns:
            return Game(game.variant, game.players, game.events[: index + 1])
    return game


def boards_of(game: Game) -> list[Board]:
    """The boards the players photograph: the empty one, then the one after each turn."""
    boards = [Game(game.variant, game.players).state.board]
    for index, event in enumerate(game.events):
        if isinstance(event, bench_players.PHOTOGRAPHED):
            boards.append(Game(game.variant, game.players, game.events[: index + 1]).state.board)
    return boards


# --- the room ----------------------------------------------------------------------------------


@dataclass
class Figures:
    """What every phone saw, counted under one lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    photo_ms: list[float] = field(default_factory=list)
    request_ms: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    not_json: int = 0
    hangs: int = 0
    failovers: int = 0
    retries: int = 0
    retries_differing: list[str] = field(default_factory=list)
    stale_reads: int = 0
    turns_done: int = 0
    director_polls: int = 0
    director_errors: Counter = field(default_factory=Counter)
    director_ms: list[float] = field(default_factory=list)

    def answer(self, path: str, response: httpx.Response, ms: float) -> None:
        with self.lock:
            self.request_ms.append(ms)
            if path.endswith("/turns") and response.status_code == 200:
                self.photo_ms.append(ms)
            if response.status_code >= 400:
                code = "?"
                try:
                    body = response.json()
                    code = body["error"]
                    assert body["detail"]
                except (ValueError, KeyError, TypeError, AssertionError):
                    self.not_json += 1
                self.statuses[(response.status_code, code)] += 1


class Server:
    """One `scorekeeper serve` process (and its workers) in its own process group."""

    def __init__(self, name: str, db: str, port: int, workers: int, data_dir: Path) -> None:
        self.name = name
        self.url = f"http://127.0.0.1:{port}"
        self.alive = True
        command = [sys.executable, "-m", "scorekeeper.cli", "serve", "--db", db, "--port"]
        command += [str(port), "--data-dir", str(data_dir), "--workers", str(workers)]
        self.log = data_dir.with_suffix(".log")
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [*command, "--no-director-token"],
                cwd=REPO,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_up(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                httpx.get(f"{self.url}/api/variants", timeout=5).raise_for_status()
                return
            except httpx.HTTPError:
                time.sleep(0.5)
        raise SystemExit(f"{self.name} did not start: see {self.log}")

    def kill(self) -> None:
        """SIGKILL the server and its workers at once."""
        self.alive = False
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


class Phone:
    """A player's phone: HTTP to its home server, and to the other address from the first request
    that hears nothing (the same request sent again there). Looks like a TestClient to `Player`.
    """

    def __init__(
        self,
        servers: list[Server],
        home: int,
        figures: Figures,
        timeout_s: float,
        retry: float,
        seed: int,
    ) -> None:
        self.servers = servers
        self.home = home
        self.figures = figures
        self.clients = [httpx.Client(base_url=s.url, timeout=timeout_s) for s in servers]
        self.retry_share = retry
        self.rng = np.random.default_rng(seed)

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        for _ in range(len(self.servers) + 1):
            began = time.perf_counter()
            try:
                response = self.clients[self.home].request(method, path, **kwargs)
            except httpx.TimeoutException:
                with self.figures.lock:
                    self.figures.hangs += 1
                raise bench_players.Lost(f"{method} {path}: no answer (a hang)") from None
            except httpx.TransportError:
                # The server is gone: the phone tries the other address.
                with self.figures.lock:
                    self.figures.failovers += 1
                self.home = (self.home + 1) % len(self.servers)
                if method == "POST" and "/review/" in path and not self._still_pending(path):
                    return self._landed(path)
                continue
            self.figures.answer(path, response, 1000 * (time.perf_counter() - began))
            return response
        raise bench_players.Lost(f"{method} {path}: no server answers")

    def _game_path(self, path: str) -> str:
        return "/".join(path.split("/")[:4])  # /api/games/ID

    def _still_pending(self, path: str) -> bool:
        game = self.clients[self.home].get(self._game_path(path)).json()
        return game["pending"] is not None

    def _landed(self, path: str) -> httpx.Response:
        """The answer a review answer would have had: it landed before the server died."""
        game = self.clients[self.home].get(self._game_path(path)).json()
        body = {
            "status": "committed",
            "move": game["moves"][-1] if game["moves"] else None,
            "uncertain": [],
            "board": game["board"],
            "game": game,
        }
        return httpx.Response(200, json=body)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        files = kwargs.get("files")
        if files and path.endswith("/turns"):
            data = files["photo"][1] + json.dumps(kwargs.get("data")).encode()
            key = hashlib.sha256(data).hexdigest()[:40]
            kwargs["headers"] = {**kwargs.get("headers", {}), "Idempotency-Key": key}
            first = self._send("POST", path, **kwargs)
            if first.status_code == 200 and self.rng.random() < self.retry_share:
                again = self._send("POST", path, **kwargs)
                with self.figures.lock:
                    self.figures.retries += 1
                    if (
                        again.status_code != 200
                        or again.json()["turn_id"] != first.json()["turn_id"]
                    ):
                        self.figures.retries_differing.append(f"{path}: {again.text[:120]}")
            return first
        if "/review/" not in path and path != "/api/games":
            # Every other write of a game carries its own key, so that sent again it counts once.
            key = self.rng.bytes(16).hex()
            kwargs["headers"] = {**kwargs.get("headers", {}), "Idempotency-Key": key}
        return self._send("POST", path, **kwargs)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self._send("GET", path, **kwargs)


class ClubPlayer(bench_players.Player):
    """The people at one table: pre-rendered photos, a retake now and then, one or two phones."""

    def __init__(
        self,
        phones: list[Phone],
        game: Game,
        shots: dict[tuple[str, ...], bench_players.Shot],
        no_board: bytes,
        seed: int,
        retake_share: float,
        think_s: float,
        figures: Figures,
    ) -> None:
        super().__init__(phones[0], game, None, seed, (0, 0))  # type: ignore[arg-type]
        self.phones = phones
        self.photos = shots
        self.no_board = no_board
        self.retake_share = retake_share
        self.think_s = think_s
        self.figures = figures
        self.taken: Counter = Counter()
        self.missed: set[tuple[str, ...]] = set()

    def shoot(self, board: Board) -> bench_players.Shot:
        rows = tuple(photo_rows(board, self.game.variant.blank_symbol))
        shot = self.photos[rows]
        first = self.taken[rows] == 0 and rows not in self.missed
        if first and self.rng.random() < self.retake_share:
            self.missed.add(rows)  # the board was not in the frame: it is taken again
            return bench_players.Shot(self.no_board + self.id.encode(), shot.corners)
        self.taken[rows] += 1
        if self.taken[rows] == 1:
            return shot
        # Another photo of the same board: the same pose, another JPEG (other bytes).
        image = cv2.imdecode(np.frombuffer(shot.jpeg, np.uint8), cv2.IMREAD_COLOR)
        quality = 80 + self.taken[rows]
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        return bench_players.Shot(encoded.tobytes(), shot.corners)

    def photo_turn(self, index: int, event: Event, number: int) -> None:
        time.sleep(float(self.rng.uniform(0, 2 * self.think_s)))
        self.client = self.phones[number % len(self.phones)]  # type: ignore[assignment]
        super().photo_turn(index, event, number)
        if len(self.phones) > 1:
            other = self.phones[(number + 1) % len(self.phones)]
            seen = other.get(f"/api/games/{self.id}").json()
            prefix = Game(self.game.variant, self.game.players, self.game.events[: index + 1])
            if len(seen["moves"]) != len(sheet_dict(prefix)["moves"]):
                with self.figures.lock:
                    self.figures.stale_reads += 1
        with self.figures.lock:
            self.figures.turns_done += 1


def _director(servers: list[Server], token: str, figures: Figures, stop: threading.Event) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    while not stop.wait(POLL_S):
        server = next((s for s in servers if s.alive), None)
        if server is None:
            return
        began = time.perf_counter()
        try:
            response = httpx.get(f"{server.url}/api/director/games", headers=headers, timeout=60)
        except httpx.HTTPError as exc:
            with figures.lock:
                figures.director_errors[type(exc).__name__] += 1
            continue
        with figures.lock:
            figures.director_polls += 1
            figures.director_ms.append(1000 * (time.perf_counter() - began))
            if response.status_code != 200:
                figures.director_errors[response.status_code] += 1


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _lines(sheet: dict[str, Any]) -> Counter:
    return Counter(bench_players._key(m) for m in sheet["moves"])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--turns", type=int, default=5, help="photographed turns per game")
    parser.add_argument("--workers", type=int, default=2, help="workers per server process")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--size", default="1600x1200")
    parser.add_argument("--retakes", type=float, default=0.15, help="share of turns retaken")
    parser.add_argument("--retries", type=float, default=0.2, help="share of uploads sent twice")
    parser.add_argument("--two-phones", type=float, default=0.25, help="share of such tables")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between turns")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a hang")
    parser.add_argument("--cache", type=Path, default=None, help="keep rendered photos here")
    parser.add_argument(
        "--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared"
    )
    args = parser.parse_args()
    recorded = bench_players.shared_games(args.shared)
    if recorded is None:
        return 2
    size = bench_players.photo_size(args.size)
    games = [cut(game, args.turns) for _, game in recorded]
    games = games[: args.games]
    rng = np.random.default_rng(args.seed)

    began = time.perf_counter()
    jobs, owners = [], []
    for number, game in enumerate(games):
        for k, board in enumerate(boards_of(game)):
            rows = photo_rows(board, game.variant.blank_symbol)
            jobs.append((rows, game.variant.name, args.seed * 100_000 + number * 100 + k, size))
            owners.append(number)
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    rendered = render_all(jobs, args.cache)
    shots: list[dict[tuple[str, ...], bench_players.Shot]] = [{} for _ in games]
    for job, shot, number in zip(jobs, rendered, owners, strict=True):
        shots[number][tuple(job[0])] = shot
    no_board = no_board_photo(size, args.seed)
    print(f"{len(rendered)} photos rendered in {time.perf_counter() - began:.0f} s ({args.size})")

    try:
        postgres = TempPostgres(max_connections=200)
    except PostgresUnavailable as exc:
        print(f"cannot run: {exc}", file=sys.stderr)
        return 2
    with postgres, tempfile.TemporaryDirectory(prefix="scorekeeper-club-") as temp:
        db = postgres.create_database("club")
        token = subprocess.run(
            [
                sys.executable,
                "-m",
                "scorekeeper.cli",
                "director-token",
                "--db",
                db,
                "--data-dir",
                temp,
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        ports = [_free_port() for _ in range(2)]
        servers = [
            Server(f"server {i + 1}", db, ports[i], args.workers, Path(temp) / f"s{i + 1}")
            for i in range(2)
        ]
        try:
            for server in servers:
                server.wait_up()
            return _evening(args, games, shots, no_board, servers, token, rng)
        finally:
            for server in servers:
                server.kill()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _evening(
    args: argparse.Namespace,
    games: list[Game],
    shots: list[dict[tuple[str, ...], bench_players.Shot]],
    no_board: bytes,
    servers: list[Server],
    token: str,
    rng: np.random.Generator,
) -> int:
    figures = Figures()
    players = []
    two_phone_tables = 0
    for number, game in enumerate(games):
        home = number % 2
        count = 2 if rng.random() < args.two_phones else 1
        two_phone_tables += count == 2
        phones = [
            Phone(servers, (home + k) % 2, figures, args.timeout, args.retries, number * 10 + k)
            for k in range(count)
        ]
        seed = args.seed * 1000 + number
        players.append(
            ClubPlayer(
                phones, game, shots[number], no_board, seed, args.retakes, args.think, figures
            )
        )
    planned = sum(len(boards_of(game)) - 1 for game in games)
    stop = threading.Event()
    director = threading.Thread(target=_director, args=(servers, token, figures, stop))
    killed: dict[str, Any] = {}

    def killer() -> None:
        while not stop.wait(0.2):
            if figures.turns_done >= planned // 2:
                killed["turns"] = figures.turns_done
                killed["at"] = time.perf_counter() - began
                servers[0].kill()
                return

    lost: list[str] = []

    def play(player: ClubPlayer) -> None:
        try:
            player.play()
        except (bench_players.Lost, httpx.HTTPError) as exc:
            player.tally.lost += 1
            lost.append(f"{player.id}: {type(exc).__name__}: {exc}")

    began = time.perf_counter()
    director.start()
    kill_thread = threading.Thread(target=killer)
    kill_thread.start()
    with ThreadPoolExecutor(max_workers=len(players)) as pool:
        list(pool.map(play, players))
    elapsed = time.perf_counter() - began
    stop.set()
    director.join()
    kill_thread.join()

    survivor = next(s for s in servers if s.alive)
    missing = extra = sheets_right = totals_right = complete = 0
    total = bench_players.Tally()
    for player in players:
        total.add(player.tally)
        if not player.id:
            continue
        sheet = httpx.get(f"{survivor.url}/api/games/{player.id}", timeout=60).json()
        record = sheet_dict(player.game)
        want, got = Counter(bench_players._key(m) for m in record["moves"]), _lines(sheet)
        missing += sum((want - got).values())
        extra += sum((got - want).values())
        sheets_right += bench_players._compare(sheet, player.game) == ""
        totals_right += sheet["totals"] == record["totals"]
        complete += not player.tally.lost
    workers = args.workers
    print(
        f"{len(games)} games at once, {args.turns} photographed turns each ({planned} turns), "
        f"{two_phone_tables} tables with two phones; 2 servers x {workers} workers on one "
        f"PostgreSQL; {elapsed:.0f} s"
    )
    if killed:
        print(
            f"server 1 killed (SIGKILL) after {killed['turns']} of {planned} turns, "
            f"{killed['at']:.0f} s in; {figures.failovers} requests sent again to server 2"
        )
    print(f"games played to the end: {complete}/{len(games)}; lost: {len(lost)}")
    for line in lost:
        print(f"  LOST {line}")
    print(
        f"every committed turn present exactly once: {'yes' if missing == extra == 0 else 'NO'} "
        f"(lines missing {missing}, extra {extra})"
    )
    print(
        f"duplicates from phone retries: {len(figures.retries_differing)} of {figures.retries} "
        f"retried uploads"
    )
    for line in figures.retries_differing:
        print(f"  {line}")
    print(
        f"totals equal to the games played: {totals_right}/{len(games)}; sheets as recorded: "
        f"{sheets_right}/{len(games)}"
    )
    print(f"players: {total.line()}")
    print(
        f"photo turn latency (POST /turns answered 200, {len(figures.photo_ms)}): "
        f"p50 {_percentile(figures.photo_ms, 0.5) / 1000:.1f} s, "
        f"p95 {_percentile(figures.photo_ms, 0.95) / 1000:.1f} s; all {len(figures.request_ms)} "
        f"requests p50 {_percentile(figures.request_ms, 0.5):.0f} ms"
    )
    errors = ", ".join(f"{s} {c}: {n}" for (s, c), n in sorted(figures.statuses.items()))
    print(f"errors by status: {errors or 'none'}; not a JSON error: {figures.not_json}")
    print(f"hangs (no answer in {args.timeout:.0f} s): {figures.hangs}")
    print(f"second phone saw an older game: {figures.stale_reads}")
    director_errors = dict(figures.director_errors) or "none"
    print(
        f"director's page: {figures.director_polls} polls, p50 "
        f"{_percentile(figures.director_ms, 0.5):.0f} ms, p95 "
        f"{_percentile(figures.director_ms, 0.95):.0f} ms, errors {director_errors}"
    )
    for player in players:
        for note in player.tally.notes:
            print(f"  {player.id}: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
