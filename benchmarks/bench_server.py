"""Server figures: turn latency through HTTP for a 12 MP photo with the real vision pipeline
(median), and requests per second for GET of a game's score sheet, on loopback only.

Run: python benchmarks/bench_server.py [--photos 5]
(the photo is rendered with the dev-only `training` package).
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import httpx

# The photo is rendered with the dev-only `training` package, which lives in the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROWS = ["." * 15] * 7 + [".......CAT....."] + ["." * 15] * 7


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _photo_12mp() -> bytes:
    """A rendered 4000×3000 phone photo of a board with CAT at 8H, as a JPEG."""
    from training.render import render_board_photo

    image, _, _ = render_board_photo(ROWS, "en", seed=4, size=(4000, 3000))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


def _serve(data_dir: str) -> tuple[subprocess.Popen, str]:
    """`scorekeeper serve` in its own process (so the client does not share its interpreter)."""
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scorekeeper.cli",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            data_dir,
        ]
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{base}/api/games", timeout=1).raise_for_status()
            return server, base
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("scorekeeper serve did not start")


def _new_game(client: httpx.Client) -> tuple[str, dict[str, str]]:
    created = client.post("/api/games", json={"variant": "en", "players": ["Ann", "Bob"]})
    created.raise_for_status()
    body = created.json()
    return body["id"], {"Authorization": f"Bearer {body['token']}"}


def bench_turns(client: httpx.Client, photos: int) -> None:
    """Median latency of a first turn from a 12 MP photo, over HTTP, and of its overlay fetched
    after the answer, as the phone page does (which also keeps one turn's overlay, drawn after
    its answer, from running into the next turn's read); and, from the answers' Server-Timing
    headers, what each turn cost besides its own read, in the service and outside it (upload,
    multipart parsing, the answer, HTTP)."""
    data = _photo_12mp()
    print(f"photo: 4000x3000 JPEG, {len(data) / 1e6:.1f} MB")
    times, overlays, statuses = [], [], []
    reads, services = [], []
    for _ in range(photos):
        game_id, auth = _new_game(client)
        start = time.perf_counter()
        response = client.post(
            f"/api/games/{game_id}/turns",
            files={"photo": ("board.jpg", data, "image/jpeg")},
            headers=auth,
        )
        times.append(time.perf_counter() - start)
        timings = _server_timing(response.headers.get("Server-Timing", ""))
        if {"read", "turn"} <= timings.keys():
            reads.append(timings["read"] / 1000)
            services.append(timings["turn"] / 1000)
        body = response.json()
        statuses.append(body.get("status") or body.get("error"))
        if body.get("overlay_url"):
            client.get(body["overlay_url"]).raise_for_status()
            overlays.append(time.perf_counter() - start - times[-1])
    print(
        f"turn latency over HTTP: median {statistics.median(times) * 1000:.0f} ms, "
        f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms ({photos} photos)"
    )
    if overlays:
        print(
            f"overlay fetched after the answer: median {statistics.median(overlays) * 1000:.0f} ms"
        )
    print(f"outcomes: {', '.join(sorted(set(statuses)))}")
    if reads and len(reads) == len(times):
        ms = [
            statistics.median(values) * 1000
            for values in (
                reads,
                [t - r for t, r in zip(times, reads, strict=True)],
                [s - r for s, r in zip(services, reads, strict=True)],
                [t - s for t, s in zip(times, services, strict=True)],
            )
        ]
        print(
            f"the server's own read: median {ms[0]:.0f} ms; each turn besides its read: median "
            f"{ms[1]:.0f} ms, in the service {ms[2]:.0f} ms, outside it {ms[3]:.0f} ms"
        )
    bench_read_alone(data, photos, statistics.median(times) * 1000)


def _server_timing(header: str) -> dict[str, float]:
    """{name: ms} of a `Server-Timing` header such as `read;dur=151.2, turn;dur=160.4`."""
    timings = {}
    for metric in filter(None, (part.strip() for part in header.split(","))):
        name, _, duration = metric.partition(";dur=")
        timings[name] = float(duration)
    return timings


def bench_read_alone(data: bytes, photos: int, turn_ms: float) -> None:
    """The same photo read by `vision.pipeline.read_board` in this process (the server is idle
    by now), per stage, and what the turn cost besides the read: upload, tracking, scoring,
    storage, the answer and HTTP."""
    from scorer.variant import load_variant
    from vision.classify import CellClassifier
    from vision.pipeline import read_board

    variant, classifier = load_variant("en"), CellClassifier()
    read_board(data, variant, classifier)  # warm-up
    stages: dict[str, list[float]] = {}
    for _ in range(photos):
        for stage, ms in read_board(data, variant, classifier).timings_ms.items():
            stages.setdefault(stage, []).append(ms)
    medians = {stage: statistics.median(values) for stage, values in stages.items()}
    print("read_board alone, median ms: " + ", ".join(f"{k} {v:.0f}" for k, v in medians.items()))
    # Two medians taken at different times and in two processes: on a loaded machine this differs
    # from the Server-Timing figure above, which compares each turn with its own read.
    print(f"turn median minus this read's median: {turn_ms - medians['total']:.0f} ms")


def bench_sheet(base: str, requests: int, clients: int) -> None:
    """GET requests per second for one game, from `clients` keep-alive clients."""
    with httpx.Client(base_url=base, timeout=30) as client:
        game_id, auth = _new_game(client)
        for tiles in ("A", "B", "C"):
            client.post(f"/api/games/{game_id}/exchange", json={"tiles": tiles}, headers=auth)

    def run(count: int) -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            for _ in range(count):
                client.get(f"/api/games/{game_id}").raise_for_status()

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(run, [requests // clients] * clients))
    elapsed = time.perf_counter() - start
    print(
        f"GET /api/games/{{id}}: {requests / elapsed:.0f} requests/s "
        f"({requests} requests, {clients} keep-alive client(s))"
    )


def main() -> int:
    """Run both benchmarks against a fresh server and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--photos", type=int, default=5, help="photo turns to time")
    parser.add_argument("--requests", type=int, default=1000, help="GET requests to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        server, base = _serve(data_dir)
        try:
            with httpx.Client(base_url=base, timeout=120) as client:
                bench_turns(client, args.photos)
            for clients in (1, 4):
                bench_sheet(base, args.requests, clients)
        finally:
            server.terminate()
            server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
