"""Two `scorekeeper serve` processes on one PostgreSQL (two machines behind one address): a turn
taken on one, that server killed with SIGKILL (its workers too), and the other serves the turn's
photo and overlay, answers the phone's retry of the same photo with the first answer, and takes
the next turn. Real processes, the real vision pipeline on a rendered photo; skipped without
PostgreSQL or the cell model."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import cv2
import httpx
import pytest

REPO = Path(__file__).resolve().parent.parent
ROWS = ["." * 15] * 7 + [".......CAT....."] + ["." * 15] * 7


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(database: str, data_dir: Path, workers: int) -> tuple[subprocess.Popen, str]:
    """`scorekeeper serve` in its own process group (so its workers die with it)."""
    port = _free_port()
    command = [sys.executable, "-m", "scorekeeper.cli", "serve", "--db", database]
    command += ["--port", str(port), "--data-dir", str(data_dir), "--workers", str(workers)]
    process = subprocess.Popen(
        [*command, "--no-director-token"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return process, f"http://127.0.0.1:{port}"


def _wait_up(process: subprocess.Popen, base: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            httpx.get(f"{base}/api/variants", timeout=2).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError(f"scorekeeper serve at {base} did not start")


def _kill(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def _wait_drawn(url: str, tries: int = 240) -> None:
    """Wait until `url` (a turn's overlay) answers 200; each try waits for a drawing in
    progress in the process it reaches."""
    for _ in range(tries):
        if httpx.get(url, timeout=30).status_code == 200:
            return
        time.sleep(0.25)
    raise AssertionError(f"{url} was never drawn")


@pytest.fixture
def cat_photo() -> bytes:
    render = pytest.importorskip("training.render", reason="training.render needs Pillow")
    if not (REPO / "models" / "cells.onnx").is_file():
        pytest.skip("the cell model models/cells.onnx is not present")
    pose = render.Pose(quarter_turns=0, angle=3.0, tilt=10.0, tilt_direction=40.0, fill=0.8)
    image, _, _ = render.render_board_photo(
        ROWS, "en", render.deluxe_style(), seed=4, size=(1600, 1200), pose=pose
    )
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return jpeg.tobytes()


def test_a_killed_server_loses_nothing(database: str, tmp_path: Path, cat_photo: bytes) -> None:
    first, first_url = _serve(database, tmp_path / "one", workers=2)
    second, second_url = _serve(database, tmp_path / "two", workers=1)
    try:
        _wait_up(first, first_url)
        _wait_up(second, second_url)
        created = httpx.post(
            f"{first_url}/api/games", json={"variant": "en", "players": ["Ann", "Bob"]}
        ).json()
        game = f"/api/games/{created['id']}"
        auth = {"Authorization": f"Bearer {created['token']}"}
        upload = {**auth, "Idempotency-Key": "phone-1"}
        files = {"photo": ("board.jpg", cat_photo, "image/jpeg")}
        turn = httpx.post(f"{first_url}{game}/turns", files=files, headers=upload, timeout=60)
        assert turn.status_code == 200, turn.text
        turn = turn.json()
        if turn["status"] == "needs_review":  # how well cells are read is vision's to test
            confirm = httpx.post(f"{first_url}{game}/review/confirm", headers=auth, timeout=30)
            assert confirm.json()["status"] == "committed", confirm.text
        # The overlay is drawn after the answer (the page shows the photo until then); once
        # drawn it is in the database, for any server.
        _wait_drawn(f"{first_url}{turn['overlay_url']}")
        _kill(first)

        assert httpx.get(f"{second_url}{turn['photo_url']}").content == cat_photo
        overlay = httpx.get(f"{second_url}{turn['overlay_url']}")
        assert overlay.status_code == 200 and overlay.content[:3] == b"\xff\xd8\xff"
        # The phone never heard back and sends the same photo again, now to the other server.
        retry = httpx.post(f"{second_url}{game}/turns", files=files, headers=upload, timeout=60)
        assert retry.status_code == 200 and retry.json()["turn_id"] == turn["turn_id"]
        passed = httpx.post(f"{second_url}{game}/pass", headers=auth, timeout=30)
        assert passed.status_code == 200, passed.text
        sheet = httpx.get(f"{second_url}{game}").json()
        assert [(m["kind"], m["word"]) for m in sheet["moves"]] == [("play", "CAT"), ("pass", "")]
        assert sheet["totals"] == {"Ann": 10, "Bob": 0}
    finally:
        _kill(first)
        _kill(second)
