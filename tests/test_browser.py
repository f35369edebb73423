"""The phone page in a real browser: Debian's chromium, headless, driven by Playwright through a
short game against the real app (a fake photo reader stands in for the camera pipeline).

Skips when /usr/bin/chromium or the playwright package is missing. A screenshot of the finished
game is saved under artifacts/ (git-ignored) at the repository root.
"""

from __future__ import annotations

import email.policy
import io
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from scorer.board import Board
from scorer.tracking import certain_reading
from scorer.variant import Variant, variant_names

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
from vision.locate import BoardNotFound  # noqa: E402


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
    """Photos of a scripted game: each photo's bytes map to the reading the reader returns; a
    refused photo shows no board until its grid corners are marked (kept in `corners`)."""

    def __init__(self) -> None:
        self.readings: dict[bytes, object] = {}
        self.undrawable: set[bytes] = set()
        self.refused: set[bytes] = set()
        self.corners: list[object] = []

    def photo(
        self,
        folder: Path,
        name: str,
        reading: object,
        drawable: bool = True,
        data: bytes | None = None,
        refused: bool = False,
    ) -> Path:
        """A photo file (`data`, else a small PNG) read as `reading`; its overlay fails to draw
        unless `drawable`; no board is found in it without corners when `refused`."""
        data = data or png(len(self.readings) * 40 + 10)
        self.readings[data] = reading
        if not drawable:
            self.undrawable.add(data)
        if refused:
            self.refused.add(data)
        path = folder / name
        path.write_bytes(data)
        return path

    def read(self, data: bytes, variant: Variant, corners: object) -> object:
        self.corners.append(corners)
        if data in self.refused and corners is None:
            raise BoardNotFound("no 15x15 board grid found (best fit quality 0.12)")
        return self.readings[data]

    def overlay(self, data: bytes, reading: object) -> bytes:
        """A stand-in overlay image (the real one draws the reading over the photo)."""
        if data in self.undrawable:
            raise ValueError("the overlay cannot be drawn")
        return png(200)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def camera() -> FakeCamera:
    return FakeCamera()


def serve(app: object) -> Iterator[str]:
    """Run `app` on a free local port until the generator is closed; yields its address."""
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
def base_url(tmp_path: Path, camera: FakeCamera) -> Iterator[str]:
    """The real app on a free local port, a temporary SQLite database, the fake camera."""
    app = create_app(
        db_url=str(tmp_path / "games.db"),
        reader=camera.read,
        data_dir=tmp_path / "data",
        overlay=camera.overlay,
    )
    yield from serve(app)


# Chromium's own fake camera, granted without a prompt.
FAKE_CAMERA = ("--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream")


def _launch(playwright: object, profile: Path, *args: str) -> tuple[object, object]:
    """A headless chromium with its own profile directory (one phone) and extra `args`: the
    context and its page."""
    context = playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(CHROMIUM),
        args=[*CHROMIUM_ARGS, *args],
        headless=True,
        viewport=VIEWPORT,
        locale="en-GB",
    )
    context.set_default_timeout(TIMEOUT_MS)
    return context, context.pages[0] if context.pages else context.new_page()


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[Callable[[str], object]]:
    """Opens a fresh headless chromium with its own profile directory (one phone each)."""
    with sync_api.sync_playwright() as playwright:
        contexts = []

        def open_phone(name: str) -> object:
            context, page = _launch(playwright, tmp_path / f"profile-{name}")
            contexts.append(context)
            return page

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

    # Create: Эрудит (its «звёздочка» is a "star" in English), two players, words checked by
    # the Russian dictionary. The variants and their default options come from /api/variants.
    variants = page.locator("#variant option")
    expect(variants).to_have_count(len(variant_names()))
    assert variants.evaluate_all("options => options.map(o => o.value)") == variant_names()
    page.select_option("#variant", "erudit")
    expect(page.locator("[data-i18n=blank_scores_letter]")).to_have_text(
        "A star scores its letter's value"
    )
    names = page.locator("#players input")
    names.nth(0).fill("Ann")
    names.nth(1).fill("Бора")
    page.click("#create button[type=submit]")
    expect(page.locator("#turn-line")).to_have_text("Ann to play")
    game_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('game')")
    assert game_id
    # The board is drawn with the game's own layout: F6 is a plain square on an Эрудит board.
    expect(page.locator("#board .cell[data-square=B6]")).to_have_class("cell tl")
    expect(page.locator("#board .cell[data-square=F6]")).to_have_class("cell")

    # A photo that is not an image: the API's error is shown plainly, nothing is recorded.
    junk = tmp_path / "notes.txt"
    junk.write_text("not a photo")
    page.set_input_files("#photo", str(junk))
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error-text")).to_contain_text("not a photo")
    page.click("#error-close")

    # Turn 1, read with certainty: КОТ through the plain centre, 5 points, committed at once.
    cat = (7, 6, True, "КОТ")
    page.set_input_files(
        "#photo", str(camera.photo(tmp_path, "1.png", certain_reading(board_with([cat]))))
    )
    expect(page.locator("#result-text")).to_contain_text("Ann: 8G КОТ — 5 points")
    expect(page.locator("#board .cell.word")).to_have_count(3)
    assert totals(page) == {"Ann": "5", "Бора": "0"}
    expect(page.locator("#turn-line")).to_have_text("Бора to play")

    # Turn 2: КИТ down from the К, the И read unsure (И or О, both words): the page asks about
    # G9 and shows both new tiles of the photo, the unsure one ringed.
    whale = (7, 6, False, "КИТ")
    reading = unsure(board_with([cat, whale]), 8, 6, [("И", 0.55), ("О", 0.4)])
    page.set_input_files("#photo", str(camera.photo(tmp_path, "2.png", reading)))
    doubt = page.locator("#board .cell.uncertain")
    expect(doubt).to_have_count(1)
    assert doubt.get_attribute("data-square") == "G9"
    expect(page.locator("#board .cell.new")).to_have_count(2)
    expect(page.locator("#shoot")).to_be_hidden()
    expect(page.locator("#overlay")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-review.png"), full_page=True)

    # Tap the cell, pick И from the alphabet: the turn is re-scored and committed.
    doubt.click()
    expect(page.locator("#picker")).to_be_visible()
    expect(page.locator("#picker-candidates .letter")).to_have_text(["И", "О"])
    page.click("#picker-letters .letter[data-letter=И]")
    expect(page.locator("#result-text")).to_contain_text("Бора: G8 КИТ — 6 points")
    expect(page.locator("#board .cell.uncertain")).to_have_count(0)
    expect(page.locator("#shoot")).to_be_visible()

    # Turn 3: Т*К down from the Т with a star (shown as its symbol *): the player chooses its
    # letter from the dictionary's candidates instead of confirming it unknown. No overlay could
    # be drawn for this photo: the page shows the photo itself.
    reading = certain_reading(board_with([cat, whale, (7, 8, False, "Т?К")]))
    page.set_input_files("#photo", str(camera.photo(tmp_path, "3.png", reading, drawable=False)))
    expect(page.locator("#overlay")).to_have_attribute("src", re.compile(r"/turns/\w+/photo$"))
    expect(page.locator("#blanks p")).to_have_text("Star on I9 stands for:")
    expect(page.locator("#result-text")).to_contain_text("Ann: I8 Т*К — 4 points")
    expect(page.locator("#board .cell[data-square=I9]")).to_have_text("*")
    expect(page.locator("#board .cell.new")).to_have_count(2)
    expect(page.locator("#confirm")).to_be_hidden()
    expect(page.locator("#blanks .letter")).to_have_text(["И", "О", "У", "Э", "Ю"])
    page.screenshot(path=str(ARTIFACTS / "browser-blank.png"), full_page=True)
    page.click("#blanks .letter[data-letter=О]")
    expect(page.locator("#result-text")).to_contain_text("Ann: I8 ТоК — 4 points")
    expect(page.locator("#board .cell[data-square=I9]")).to_have_text("О")

    # Turn 4: КОТЕП is not in the dictionary, and its П, read 0.96, gives Л the weight of a
    # misread (КОТЕЛ is a word): the move is shown with the П marked; confirmed, the play
    # stands and the page suggests a challenge.
    board = board_with([(7, 6, True, "КОТЕП"), whale, (7, 8, False, "ТоК")])
    reading = unsure(board, 7, 10, [("П", 0.96), ("Л", 0.04)])
    page.set_input_files("#photo", str(camera.photo(tmp_path, "4.png", reading)))
    expect(page.locator("#result-text")).to_contain_text("Бора: 8G КОТЕП — 8 points")
    expect(page.locator("#board .cell.uncertain")).to_have_count(1)
    expect(page.locator("#review")).to_be_visible()
    assert totals(page) == {"Ann": "9", "Бора": "6"}
    page.click("#confirm")
    expect(page.locator("#result-text")).to_contain_text(
        "Not in the dictionary: КОТЕП. Challenge it?"
    )
    expect(page.locator("#review")).to_be_hidden()
    assert totals(page) == {"Ann": "9", "Бора": "14"}

    # Ann photographs the board unchanged: the page sends the head it knew, so the photo is a
    # pass, recorded without a question; it was an exchange of two tiles, the players say.
    page.set_input_files("#photo", str(camera.photo(tmp_path, "5.png", certain_reading(board))))
    expect(page.locator("#result-text")).to_contain_text("Ann: pass")
    expect(page.locator("#review")).to_be_hidden()
    expect(page.locator("#sheet tbody tr").nth(4)).to_contain_text("pass")
    page.click("#was-exchange")
    page.fill("#ask input[name=count]", "2")
    page.click("#ask button[value=ok]")
    expect(page.locator("#sheet tbody tr").nth(4)).to_contain_text("exchange")
    expect(page.locator("#was-exchange")).to_be_hidden()
    expect(page.locator("#turn-line")).to_have_text("Бора to play")

    # Бора passes; the sheet has six lines.
    page.click("#pass")
    expect(page.locator("#sheet tbody tr")).to_have_count(6)
    expect(page.locator("#sheet tbody tr").nth(5)).to_contain_text("pass")
    expect(page.locator("#gcg")).to_have_attribute("href", f"/api/games/{game_id}/gcg")

    # The players stop: Ann holds А (1), Бора holds Ф (10); each loses the value of the rack.
    page.click("#end")
    page.fill("#ask input[name='rack:Ann']", "а")
    page.fill("#ask input[name='rack:Бора']", "ф")
    page.click("#ask button[value=ok]")
    expect(page.locator("#turn-line")).to_have_text("Game over. Winner: Ann")
    expect(page.locator("#shoot")).to_be_hidden()
    assert totals(page) == {"Ann": "8", "Бора": "4"}
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
    expect(viewer.locator("[data-i18n=is_blank]")).to_have_text("Звёздочка (строчная буква)")
    assert totals(viewer) == {"Ann": "8", "Бора": "4"}
    assert errors == []


def _english_game_for_ann_and_bob(page: object, base_url: str) -> None:
    """Open the page and create an English game for Ann and Bob; Ann is to play."""
    page.goto(base_url + "/")
    page.select_option("#variant", "en")
    names = page.locator("#players input")
    names.nth(0).fill("Ann")
    names.nth(1).fill("Bob")
    page.click("#create button[type=submit]")
    sync_api.expect(page.locator("#turn-line")).to_have_text("Ann to play")


def uploaded_photo(request: object) -> bytes:
    """The `photo` field of the multipart form the page posted."""
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    form = email.message_from_bytes(head + request.post_data_buffer, policy=email.policy.default)
    (photo,) = [
        part
        for part in form.iter_parts()
        if part.get_param("name", header="content-disposition") == "photo"
    ]
    return photo.get_payload(decode=True)


def test_photo_is_scaled_before_upload(
    base_url: str, phone: Callable[[str], object], camera: FakeCamera, tmp_path: Path
) -> None:
    """A 12 MP photo goes up as an upright JPEG 2000 px long; a photo the browser cannot decode
    (HEIC in chromium) goes up as it is, and the server reads it."""
    import pillow_heif

    expect = sync_api.expect
    page = phone("uploader")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    _english_game_for_ann_and_bob(page, base_url)
    sent: list[bytes] = []

    def answer(route: object) -> None:
        sent.append(uploaded_photo(route.request))
        detail = f"stand-in answer {len(sent)}"
        route.fulfill(status=400, json={"error": "not_an_image", "detail": detail})

    # The scaled photo is caught on its way out (Playwright sees the bytes of an in-memory blob,
    # not those of a file the page forwards as it is).
    page.route("**/turns", answer)

    # Stored 4032x3024, red at the stored top-left, EXIF orientation 6 (turn it clockwise).
    stored = Image.new("RGB", (4032, 3024), (128, 128, 128))
    stored.paste((255, 0, 0), (0, 0, 800, 600))
    exif = Image.Exif()
    exif[0x0112] = 6
    big = tmp_path / "big.jpg"
    stored.save(big, format="JPEG", quality=95, exif=exif.tobytes())
    page.set_input_files("#photo", str(big))
    expect(page.locator("#error-text")).to_contain_text("stand-in answer 1")
    scaled = Image.open(io.BytesIO(sent[0]))
    assert scaled.format == "JPEG"
    assert scaled.size == (1500, 2000)
    assert scaled.getexif().get(0x0112, 1) == 1
    # Upright: the red corner is now at the top-right.
    assert scaled.convert("RGB").getpixel((1400, 100)) == pytest.approx((255, 0, 0), abs=12)
    assert scaled.convert("RGB").getpixel((100, 100)) == pytest.approx((128, 128, 128), abs=12)

    # The fake camera knows the HEIC by its bytes: the move is read only if they arrive intact.
    page.unroute("**/turns")
    heic = tmp_path / "board.heic"
    pillow_heif.from_pillow(stored.resize((320, 240))).save(str(heic), quality=80)
    camera.readings[heic.read_bytes()] = certain_reading(board_with([(7, 6, True, "CAT")]))
    page.set_input_files("#photo", str(heic))
    expect(page.locator("#result-text")).to_contain_text("Ann: 8G CAT")
    assert errors == []


def test_corners_marked_on_a_refused_photo_and_a_typed_move(
    base_url: str, phone: Callable[[str], object], camera: FakeCamera, tmp_path: Path
) -> None:
    """A game in which no board is found in one photo: the player taps the grid's corners on it
    and it is read; a move is typed; the game is finished."""
    expect = sync_api.expect
    page = phone("player")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    _english_game_for_ann_and_bob(page, base_url)
    expect(page.locator("#corners")).to_be_hidden()

    # A phone photo stored 640x480 with EXIF orientation 6: upright it is 480 wide, 640 high.
    stored = Image.new("RGB", (640, 480), (90, 120, 150))
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    stored.save(out, format="JPEG", quality=90, exif=exif.tobytes())
    cat = certain_reading(board_with([(7, 7, True, "CAT")]))
    shot = camera.photo(tmp_path, "far.jpg", cat, data=out.getvalue(), refused=True)
    page.set_input_files("#photo", str(shot))
    expect(page.locator("#error-text")).to_contain_text("mark the corners of its grid")
    expect(page.locator("#corners")).to_be_visible()
    expect(page.locator("#corners-next")).to_have_text("Tap the top-left corner.")
    expect(page.locator("#corners-send")).to_be_disabled()

    # Four taps, the third taken back and tapped again; each is scaled to the upright photo.
    img = page.locator("#corners-photo")
    expect(img).to_have_js_property("naturalWidth", 480)
    box = img.bounding_box()
    taps = [(0.1, 0.1), (0.9, 0.12), (0.5, 0.5), (0.88, 0.9), (0.12, 0.88)]
    for i, (fx, fy) in enumerate(taps):
        img.click(position={"x": fx * box["width"], "y": fy * box["height"]})
        if i == 2:
            expect(page.locator("#corners-marks .corner-mark")).to_have_count(3)
            page.click("#corners-undo")
    expect(page.locator("#corners-marks .corner-mark")).to_have_count(4)
    expect(page.locator("#corners-next")).to_have_text("All four corners marked.")
    page.screenshot(path=str(ARTIFACTS / "browser-corners.png"), full_page=True)
    page.click("#corners-send")
    expect(page.locator("#result-text")).to_contain_text("Ann: 8H CAT — 10 points")
    expect(page.locator("#corners")).to_be_hidden()
    marked = camera.corners[-1]
    expected = [(fx * 480, fy * 640) for fx, fy in taps[:2] + taps[3:]]
    assert marked == [pytest.approx([x, y], abs=2.0) for x, y in expected]

    # A typed move: one that cannot be played is refused with the reason; then CATS (the column
    # typed with a Cyrillic Н, as a Russian keyboard gives it).
    page.fill("#typed-move", "1A ZZ")
    page.click("#typed button[type=submit]")
    expect(page.locator("#error-text")).to_contain_text("touch no tile")
    page.fill("#typed-move", "8Н CATS")
    page.click("#typed button[type=submit]")
    expect(page.locator("#result-text")).to_contain_text("Bob: 8H CATS — 6 points")
    expect(page.locator("#typed-move")).to_have_value("")
    assert totals(page) == {"Ann": "10", "Bob": "6"}

    # The next photo is tracked against the board the typed move left: CAT down from the C.
    board = board_with([(7, 7, True, "CATS"), (7, 7, False, "CAT")])
    page.set_input_files("#photo", str(camera.photo(tmp_path, "3.png", certain_reading(board))))
    expect(page.locator("#result-text")).to_contain_text("Ann: H8 CAT — 5 points")

    page.click("#end")
    page.fill("#ask input[name='rack:Ann']", "e")
    page.fill("#ask input[name='rack:Bob']", "z")
    page.click("#ask button[value=ok]")
    expect(page.locator("#turn-line")).to_have_text("Game over. Winner: Ann")
    expect(page.locator("#typed")).to_be_hidden()
    assert totals(page) == {"Ann": "14", "Bob": "-4"}
    expect(page.locator("#sheet tbody tr")).to_have_count(5)
    assert errors == []


def test_table_camera_streams_frames_from_the_fake_camera(base_url: str, tmp_path: Path) -> None:
    """Table-camera mode on Chromium's own fake camera (a test pattern, no board in it): the page
    gets the rear camera, posts a frame about every second to /frames and shows what the server
    says; stopping it stops the frames. (A rendered game through the camera: the next test.)"""
    expect = sync_api.expect
    with sync_api.sync_playwright() as playwright:
        context, page = _launch(
            playwright,
            tmp_path / "profile-stand",
            *FAKE_CAMERA,
        )
        frames: list[object] = []
        page.on("request", lambda r: frames.append(r) if r.url.endswith("/frames") else None)
        _english_game_for_ann_and_bob(page, base_url)
        page.click("#camera-start")
        expect(page.locator("#camera")).to_be_visible()
        # Chromium's test pattern is no board; whatever the locator makes of it, the page says.
        said = "No board in view|Waiting for the hand|Watching the board|The board changed"
        # Generous waits: on a loaded machine the locator alone may take seconds a frame.
        expect(page.locator("#camera-status")).to_have_text(re.compile(said), timeout=30_000)
        for _ in range(120):
            if len(frames) >= 2:
                break
            page.wait_for_timeout(250)
        assert len(frames) >= 2
        page.click("#camera-stop")
        expect(page.locator("#camera")).to_be_hidden()
        sent = len(frames)
        page.wait_for_timeout(1500)
        assert len(frames) <= sent + 1  # at most one already on its way
        context.close()


def test_a_turn_of_two_plays_shows_both_on_the_page(base_url: str, tmp_path: Path) -> None:
    """A table camera that missed a turn offers the two plays it then sees in turn order: the
    answer's `moves` holds both sheet lines and `move` the last. The page shows both, each for
    its own player (it showed only the last). The server's answer to the frame is the one it
    gives for such a turn, with the game as the two typed moves left it."""
    expect = sync_api.expect
    with sync_api.sync_playwright() as playwright:
        context, page = _launch(
            playwright,
            tmp_path / "profile-two",
            *FAKE_CAMERA,
        )
        _english_game_for_ann_and_bob(page, base_url)
        for move in ("8G CAT", "H8 AT"):
            page.fill("#typed-move", move)
            page.click("#typed button[type=submit]")
            expect(page.locator("#typed-move")).to_have_value("")
        expect(page.locator("#turn-line")).to_have_text("Ann to play")
        game = page.evaluate(
            """async () => {
                const id = new URLSearchParams(location.hash.slice(1)).get("game");
                return await (await fetch(`/api/games/${id}`)).json();
            }"""
        )
        lines = game["moves"]
        answer = {
            "status": "committed", "message": "two plays: CAT, then AT", "turn_id": "t2",
            "move": lines[-1], "moves": lines, "events": 2, "corners": None, "changed": [],
            "game": game,
        }  # fmt: skip
        page.route("**/frames", lambda route: route.fulfill(json=answer))
        page.click("#camera-start")
        result = page.locator("#result-text")
        expect(result).to_contain_text("Ann: 8G CAT")
        expect(result).to_contain_text("Bob: H8 AT")
        page.click("#camera-stop")
        context.close()


# Chromium's file-fed camera plays a .mjpeg (JPEGs one after another, no header) at a fixed 30
# frames a second (media/capture/video/file_video_capture_device.cc, kMJpegFrameRate) and loops it.
MJPEG_FPS = 30
SHOT_SECONDS = 1.5  # each rendered shot on screen: the page samples about one frame a second
FINAL_SECONDS = 30  # the last position held still: the sheet is checked before the file loops


def rendered_game_video(path: Path) -> object:
    """Two plays of the sample game rendered as a table camera sees them (`game_script`: the empty
    board, a hand laying the tiles, the hand gone, the board still), written to `path` as an
    MJPEG Chromium's fake camera plays; returns the game."""
    import numpy as np

    from scorer.game import Game, Play, game_from_gcg
    from scorer.gcg import read_gcg_file
    from scorer.variant import load_variant
    from training.photo_games import edition_style
    from training.table_frames import TableScene, game_script

    variant = load_variant("en")
    sample = Path(__file__).resolve().parent.parent / "samples/games/en_short.gcg"
    recorded = game_from_gcg(read_gcg_file(sample), variant)
    plays = [event for event in recorded.events if isinstance(event, Play)][:2]
    game = Game(variant, recorded.players, tuple(plays))
    scene = TableScene(variant, edition_style("en"), seed=11)
    shots = list(game_script(game, scene, np.random.default_rng(4), glare=0.0, nudge=0.0))
    with path.open("wb") as out:
        for number, shot in enumerate(shots):
            frame = scene.render(shot, number, quality=70)
            last = number == len(shots) - 1
            out.write(frame * round(MJPEG_FPS * (FINAL_SECONDS if last else SHOT_SECONDS)))
    return game


@pytest.fixture
def vision_url(tmp_path: Path) -> Iterator[str]:
    """The real app with the real vision pipeline on a free local port."""
    yield from serve(create_app(db_url=str(tmp_path / "games.db"), data_dir=tmp_path / "data"))


@pytest.fixture
def video(tmp_path: Path) -> Iterator[Path]:
    """Where the rendered video goes; removed afterwards (a few hundred MB)."""
    path = tmp_path / "table.mjpeg"
    yield path
    path.unlink(missing_ok=True)


def test_table_camera_scores_a_rendered_game(vision_url: str, video: Path, tmp_path: Path) -> None:
    """A rendered game fed to Chromium's fake camera (--use-file-for-fake-video-capture) in
    table-camera mode, read by the real vision pipeline: the sheet shows each play once, with
    its score, and nothing more while the last position stays in view."""
    from scorer.sheet import sheet_dict

    expect = sync_api.expect
    game = rendered_game_video(video)
    want = sheet_dict(game)["moves"]
    with sync_api.sync_playwright() as playwright:
        context, page = _launch(
            playwright,
            tmp_path / "profile-stand",
            *FAKE_CAMERA,
            f"--use-file-for-fake-video-capture={video}",
        )
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        answers: list[str] = []
        page.on(
            "response",
            lambda r: answers.append(r.json()["status"]) if r.url.endswith("/frames") else None,
        )
        page.goto(vision_url + "/")
        page.select_option("#variant", "en")
        names = page.locator("#players input")
        for field, name in zip([names.nth(0), names.nth(1)], game.players, strict=True):
            field.fill(name)
        page.click("#create button[type=submit]")
        expect(page.locator("#turn-line")).to_have_text(f"{game.players[0]} to play")
        page.click("#camera-start")
        expect(page.locator("#camera")).to_be_visible()
        # The camera is the file (its 1280x960 frames), not Chromium's own test pattern.
        page.wait_for_function("document.getElementById('camera-video').videoWidth === 1280")
        rows = page.locator("#sheet tbody tr")
        # The plays are over about 40 s into the file, which loops after about 65 s.
        expect(rows).to_have_count(len(want), timeout=55_000)
        for row, move in zip(rows.all(), want, strict=True):
            cells = row.locator("td").all_inner_texts()
            assert cells[1:] == [
                move["player"],
                f"{move['position']} {move['word']}",
                str(move["score"]),
                str(move["total"]),
            ]
        assert "needs_review" not in answers
        page.wait_for_timeout(3000)  # the still last position makes no further turn
        expect(rows).to_have_count(len(want))
        page.click("#camera-stop")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "browser-table-camera.png"), full_page=True)
        context.close()
    assert errors == []


def test_directors_page_lists_the_evening_live(
    base_url: str, phone: Callable[[str], object], tmp_path: Path
) -> None:
    """The director's page with the token from `serve`'s start line: every table, a name that
    looks like HTML shown as text, a pass at one table seen at the next poll; a wrong token
    brings back the token form."""
    import httpx

    from server.director import make_director_token
    from server.storage import Store

    expect = sync_api.expect
    store = Store(str(tmp_path / "games.db"), tmp_path / "data")
    token = make_director_token(store)
    players = [["Ann", "<b>Bob</b>"], ["Аня", "Борис", "Вера"]]
    games = [
        httpx.post(f"{base_url}/api/games", json={"variant": "en", "players": names}).json()
        for names in players
    ]
    page = phone("director")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base_url}/director#token={token}")
    expect(page.locator("#rows tr")).to_have_count(2)
    expect(page.locator("#rows")).to_contain_text("<b>Bob</b>: 0")
    expect(page.locator("#rows b")).to_have_count(0)
    assert token not in page.url  # taken from the address, kept for the session only
    auth = {"Authorization": f"Bearer {games[1]['token']}"}
    httpx.post(f"{base_url}/api/games/{games[1]['id']}/pass", headers=auth).raise_for_status()
    row = page.locator("#rows tr", has_text="Вера")
    expect(row.locator(".player.turn")).to_have_text("Борис: 0")  # waits for the next poll
    expect(row.locator("td").nth(3)).to_contain_text("1: Аня pass")
    page.goto(f"{base_url}/director#token=wrong")
    expect(page.locator("#login")).to_be_visible()
    expect(page.locator("#error-text")).to_contain_text("not a director's token")
    assert errors == []
