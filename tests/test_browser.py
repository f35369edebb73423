"""The phone page in a real browser: Debian's chromium, headless, driven by Playwright through a
short game against the real app (a fake photo reader stands in for the camera pipeline).

Skips when /usr/bin/chromium or the playwright package is missing. A screenshot of the finished
game is saved under artifacts/ (git-ignored) at the repository root.
"""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from scorer.board import Board
from scorer.tracking import certain_reading
from scorer.variant import Variant

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 360, "height": 740}
TIMEOUT_MS = 15_000

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
uvicorn = pytest.importorskip("uvicorn")
Image = pytest.importorskip("PIL.Image")

from server.app import create_app  # noqa: E402 - only once the skips above have passed


@dataclass(frozen=True)
class FakeReading:
    """A board reading as the tracker sees it: per cell a class, its confidence and the top 3."""

    classes: list[list[str]]
    confidence: list[list[float]]
    top3: list[list[list[tuple[str, float]]]]


def board_with(words: list[tuple[int, int, bool, str]]) -> Board:
    """An empty board with `(row, col, across, letters)` written on it (0-based squares)."""
    rows = [["."] * 15 for _ in range(15)]
    for row, col, across, letters in words:
        for i, letter in enumerate(letters):
            rows[row + (0 if across else i)][col + (i if across else 0)] = letter
    return Board.from_text("\n".join("".join(r) for r in rows))


def unsure(board: Board, row: int, col: int, candidates: list[tuple[str, float]]) -> FakeReading:
    """`board` read with certainty except one cell, whose top classes are `candidates`."""
    base = certain_reading(board)
    classes = [list(r) for r in base.classes]
    confidence = [list(r) for r in base.confidence]
    top3 = [list(r) for r in base.top3]
    classes[row][col] = candidates[0][0]
    confidence[row][col] = candidates[0][1]
    top3[row][col] = candidates
    return FakeReading(classes, confidence, top3)


def png(shade: int) -> bytes:
    """A small real PNG, different bytes per `shade`: the server checks photos are images."""
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (shade, 120, 60)).save(out, format="PNG")
    return out.getvalue()


class FakeCamera:
    """Photos of a scripted game: each photo's bytes map to the reading the reader returns."""

    def __init__(self) -> None:
        self.readings: dict[bytes, object] = {}

    def photo(self, folder: Path, name: str, reading: object) -> Path:
        data = png(len(self.readings) * 40 + 10)
        self.readings[data] = reading
        path = folder / name
        path.write_bytes(data)
        return path

    def read(self, data: bytes, variant: Variant) -> object:
        return self.readings[data]


def overlay(data: bytes, reading: object) -> bytes:
    """A stand-in overlay image (the real one draws the reading over the photo)."""
    return png(200)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def camera() -> FakeCamera:
    return FakeCamera()


@pytest.fixture
def base_url(tmp_path: Path, camera: FakeCamera) -> Iterator[str]:
    """The real app on a free local port, a temporary SQLite database, the fake camera."""
    app = create_app(
        db_url=str(tmp_path / "games.db"),
        reader=camera.read,
        data_dir=tmp_path / "data",
        overlay=overlay,
    )
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[Callable[[str], object]]:
    """Opens a fresh headless chromium with its own profile directory (one phone each)."""
    with sync_api.sync_playwright() as playwright:
        contexts = []

        def open_phone(name: str) -> object:
            context = playwright.chromium.launch_persistent_context(
                str(tmp_path / f"profile-{name}"),
                executable_path=str(CHROMIUM),
                args=CHROMIUM_ARGS,
                headless=True,
                viewport=VIEWPORT,
                locale="en-GB",
            )
            context.set_default_timeout(TIMEOUT_MS)
            contexts.append(context)
            return context.pages[0] if context.pages else context.new_page()

        yield open_phone
        for context in contexts:
            context.close()


def totals(page: object) -> dict[str, str]:
    names = page.locator("#totals .name").all_inner_texts()
    points = page.locator("#totals .points").all_inner_texts()
    return dict(zip(names, points, strict=True))


def test_short_game_on_the_phone_page(
    base_url: str, phone: Callable[[str], object], camera: FakeCamera, tmp_path: Path
) -> None:
    expect = sync_api.expect
    page = phone("player")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base_url + "/")

    # Create: English, two players, no dictionary (the fake game's words need not be real).
    page.select_option("#variant", "en")
    names = page.locator("#players input")
    names.nth(0).fill("Ann")
    names.nth(1).fill("Бора")
    page.click("#create summary")
    page.uncheck("input[name=dictionary]")
    page.click("#create button[type=submit]")
    expect(page.locator("#turn-line")).to_have_text("Ann to play")
    game_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('game')")
    assert game_id

    # A photo that is not an image: the API's error is shown plainly, nothing is recorded.
    junk = tmp_path / "notes.txt"
    junk.write_text("not a photo")
    page.set_input_files("#photo", str(junk))
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error-text")).to_contain_text("not a photo")
    page.click("#error-close")

    # Turn 1, read with certainty: CAT through the centre, 10 points, committed at once.
    first = board_with([(7, 6, True, "CAT")])
    page.set_input_files("#photo", str(camera.photo(tmp_path, "1.png", certain_reading(first))))
    expect(page.locator("#result-text")).to_contain_text("Ann: 8G CAT — 10 points")
    expect(page.locator("#board .cell.word")).to_have_count(3)
    assert totals(page) == {"Ann": "10", "Бора": "0"}
    expect(page.locator("#turn-line")).to_have_text("Бора to play")

    # Turn 2: HAS down through the A, the H read unsure (H or N): the page asks about H7.
    second = board_with([(7, 6, True, "CAT"), (6, 7, False, "HAS")])
    reading = unsure(second, 6, 7, [("H", 0.55), ("N", 0.4)])
    page.set_input_files("#photo", str(camera.photo(tmp_path, "2.png", reading)))
    doubt = page.locator("#board .cell.uncertain")
    expect(doubt).to_have_count(1)
    assert doubt.get_attribute("data-square") == "H7"
    expect(page.locator("#shoot")).to_be_hidden()
    expect(page.locator("#overlay")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-review.png"), full_page=True)

    # Tap the cell, pick H from the alphabet: the turn is re-scored and committed.
    doubt.click()
    expect(page.locator("#picker")).to_be_visible()
    expect(page.locator("#picker-candidates .letter")).to_have_text(["H", "N"])
    page.click("#picker-letters .letter[data-letter=H]")
    expect(page.locator("#result-text")).to_contain_text("Бора: H7 HAS — 6 points")
    expect(page.locator("#board .cell.uncertain")).to_have_count(0)
    expect(page.locator("#shoot")).to_be_visible()

    # Ann passes; the sheet has three lines and the totals stand.
    page.click("#pass")
    expect(page.locator("#sheet tbody tr")).to_have_count(3)
    expect(page.locator("#sheet tbody tr").nth(2)).to_contain_text("pass")
    assert totals(page) == {"Ann": "10", "Бора": "6"}
    expect(page.locator("#gcg")).to_have_attribute("href", f"/api/games/{game_id}/gcg")

    # The players stop: Ann holds E (1), Бора holds Q (10); each loses the value of the rack.
    page.click("#end")
    page.fill("#ask input[name='rack:Ann']", "e")
    page.fill("#ask input[name='rack:Бора']", "q")
    page.click("#ask button[value=ok]")
    expect(page.locator("#turn-line")).to_have_text("Game over. Winner: Ann")
    expect(page.locator("#shoot")).to_be_hidden()
    assert totals(page) == {"Ann": "9", "Бора": "-4"}
    shot = ARTIFACTS / "browser-game.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]

    # The same game on another phone, by a link without the token: view only, in Russian.
    viewer = phone("viewer")
    viewer.goto(f"{base_url}/#game={game_id}")
    viewer.click("#lang")
    expect(viewer.locator("#readonly-note")).to_be_visible()
    expect(viewer.locator("#shoot")).to_be_hidden()
    expect(viewer.locator("#actions")).to_be_hidden()
    expect(viewer.locator("#turn-line")).to_have_text("Игра окончена. Победитель: Ann")
    assert totals(viewer) == {"Ann": "9", "Бора": "-4"}
    assert errors == []
