"""The table camera end to end: rendered frame sequences (`training.table_frames`) posted to
`POST /api/games/{id}/frames` on the app with the real vision pipeline and a clock that moves a
second per frame. A hand coming in, tiles laid one by one, the hand leaving, glare, the phone
nudged, a pass and a withdrawn play (asked, confirmed on the page): each turn is made exactly
once, on the right frame, and nothing else makes one; the same frame twice and a second phone on
the game make no second turn."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from scorer.board import Board, Tile
from scorer.game import ChallengeWithdrawn, Game, Pass, Play, game_from_gcg
from scorer.gcg import read_gcg_file
from scorer.sheet import sheet_dict
from scorer.turns import turn_from_move
from scorer.variant import Variant, load_variant
from server.app import create_app, pipeline_reader
from server.service import GameService
from training.photo_games import edition_style
from training.table_frames import Glare, Hand, Shot, TableScene, game_script
from vision.frames import (
    CHANGED,
    LOOK_PX,
    FrameLooker,
    board_squares,
    look_difference,
    relit,
    unlike,
)

REPO = Path(__file__).resolve().parent.parent


# A camera's exposure at which the calibrated English board clips to white (about half of its
# pixels, as the frames of bench_frames did when they found the turns lost under glare).
OVEREXPOSED = 1.7


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def short_game() -> Game:
    """Three plays of the sample game, the third withdrawn after a challenge, a pass, and the
    third played again."""
    variant = load_variant("en")
    recorded = game_from_gcg(read_gcg_file(REPO / "samples/games/en_short.gcg"), variant)
    plays = [e for e in recorded.events if isinstance(e, Play)]
    events = (plays[0], plays[1], plays[2], ChallengeWithdrawn(0), Pass(1), plays[2])
    return Game(variant, recorded.players, events)


@pytest.fixture()
def table(tmp_path: Path):
    clock = Clock()
    app = create_app(data_dir=tmp_path, overlay=lambda data, reading: b"", clock=clock)
    with TestClient(app) as client:
        game = short_game()
        created = client.post("/api/games", json={"variant": "en", "players": list(game.players)})
        assert created.status_code == 201
        body = created.json()
        auth = {"Authorization": f"Bearer {body['token']}"}
        yield client, clock, game, body["id"], auth


def post_frame(client: TestClient, game_id: str, auth: dict, data: bytes, camera: str = ""):
    response = client.post(
        f"/api/games/{game_id}/frames",
        headers=auth,
        files={"frame": ("frame.jpg", data, "image/jpeg")},
        data={"camera": camera},
    )
    assert response.status_code == 200, response.text
    return response.json()


def answer_from_truth(client: TestClient, game_id: str, auth: dict, turn: dict, truth) -> None:
    """Answer a review as a player would on the page: the squares asked, as they are."""
    cells = {c["square"]: truth.rows[c["row"]][c["col"]] for c in turn["uncertain"]}
    fixed = client.post(f"/api/games/{game_id}/review/correct", headers=auth, json={"cells": cells})
    assert fixed.json()["status"] == "committed", fixed.text


def type_moves(
    client: TestClient, game_id: str, auth: dict, moves: Iterable[tuple[str, str]]
) -> None:
    """Type the (position, word) moves, as players do when no photo will do."""
    for position, word in moves:
        typed = client.post(
            f"/api/games/{game_id}/moves", headers=auth, json={"position": position, "word": word}
        )
        assert typed.status_code == 200, typed.text


def settled_looker(variant: Variant, scene: TableScene, board: Board) -> FrameLooker:
    """A looker that has seen `board` still for three frames and settled on it."""
    looker = FrameLooker(variant)
    for number in range(3):
        looker.look(scene.render(Shot(board), number))
    looker.settle()
    return looker


def test_a_short_game_makes_each_turn_once(table) -> None:
    client, clock, game, game_id, auth = table
    scene = TableScene(game.variant, edition_style("en"), seed=11)
    shots = list(game_script(game, scene, np.random.default_rng(4), glare=0.0, nudge=0.0))
    # Glare from a lamp over part of the board after the first play (off while the second is
    # laid), and the phone knocked to a new view once the second was made: neither may make a
    # turn of its own.
    lamp = Glare(scene.square_centre(4, 4), scene.cell_in_photo * 1.5, 70.0)
    turns = [i for i, shot in enumerate(shots) if shot.turn is not None]
    shots = [
        Shot(s.board, s.hand, lamp if turns[0] < i < turns[1] - 1 else None,
             1 if i > turns[1] + 3 else 0, s.turn, s.before)
        for i, s in enumerate(shots)
    ]  # fmt: skip
    made: list[tuple[int, int]] = []  # (event index, frames after the hand left)
    withdrawn: list[str] = []
    due = None
    for number, shot in enumerate(shots):
        for event in shot.before:
            assert isinstance(event, Pass)
            assert client.post(f"/api/games/{game_id}/pass", headers=auth).status_code == 200
        if shot.turn is not None:
            due = (shot.turn, number)
        data = scene.render(shot, number)
        answer = post_frame(client, game_id, auth, data)
        clock.now += 1.0
        if answer["status"] in ("committed", "needs_review"):
            assert due is not None
            made.append((due[0], number - due[1]))
            # The same frame sent again (a retry) is the same answer, not a second turn.
            again = post_frame(client, game_id, auth, data)
            assert again["turn_id"] == answer["turn_id"]
            if isinstance(game.events[due[0]], ChallengeWithdrawn):
                # The last play's tiles gone from view: asked, never recorded silently.
                assert answer["status"] == "needs_review"
                assert answer["move"]["kind"] == "withdrawn"
                assert answer["move"]["word"] == game.events[due[0] - 1].play.word
                withdrawn.append(answer["turn_id"])
                confirmed = client.post(f"/api/games/{game_id}/review/confirm", headers=auth)
                assert confirmed.json()["status"] == "committed", confirmed.text
            elif answer["status"] == "needs_review":
                truth = Game(game.variant, game.players, game.events[: due[0] + 1]).state.board
                answer_from_truth(client, game_id, auth, answer, truth)
    assert len(withdrawn) == 1
    want = [i for i, e in enumerate(game.events) if isinstance(e, Play | ChallengeWithdrawn)]
    assert [index for index, _ in made] == want
    assert all(late <= 3 for _, late in made)  # within 3 s of the hand leaving
    sheet = client.get(f"/api/games/{game_id}").json()
    assert sheet["totals"] == sheet_dict(game)["totals"]
    assert [(m["kind"], m["score"]) for m in sheet["moves"]] == [
        (m["kind"], m["score"]) for m in sheet_dict(game)["moves"]
    ]


def test_two_phones_on_one_game_make_one_turn_of_a_move(table) -> None:
    client, clock, game, game_id, auth = table
    first = Game(game.variant, game.players, game.events[:1])
    scenes = [TableScene(game.variant, edition_style("en"), seed) for seed in (21, 22)]
    shots = list(game_script(first, scenes[0], np.random.default_rng(5), glare=0.0, nudge=0.0))
    turns = set()
    for number, shot in enumerate(shots):
        for camera, scene in zip("ab", scenes, strict=True):
            answer = post_frame(client, game_id, auth, scene.render(shot, number), camera)
            if answer["status"] == "needs_review" and answer["turn_id"] not in turns:
                answer_from_truth(client, game_id, auth, answer, first.state.board)
            if answer["status"] in ("committed", "needs_review"):
                turns.add(answer["turn_id"])
        clock.now += 1.0
    assert len(turns) == 1
    sheet = client.get(f"/api/games/{game_id}").json()
    assert [m["word"] for m in sheet["moves"]] == [game.events[0].play.word]


def test_a_nudged_phone_under_a_lamp_makes_no_turn(table) -> None:
    """The false turn bench_frames found (vs_josh, frame 46): a lamp's glare on the board, then
    the phone knocked by half a square and 2 degrees. On a board still mostly empty that changed
    only 16 squares, under the 21 a move may change, so the grid was not found again and the
    still board was read on the grid of before, askew: a review of a dozen empty squares that
    might be blanks, with no move in it. Now the grid is found again on any still change, and
    squares that look changed after the phone moved are not taken for where new tiles are."""
    client, clock, game, game_id, auth = table
    type_moves(client, game_id, auth, (("8D", "DJINN"), ("I7", "WITHY"), ("J1", "sCRIEVE")))
    truth = Board.from_rows(client.get(f"/api/games/{game_id}").json()["board"])
    scene = TableScene(game.variant, edition_style("en"), seed=7000)
    lamp = Glare((841.3, 418.0), 86.5, 41.2)  # the bench's, in this scene's frame
    shots = (
        [Shot(truth)] * 5 + [Shot(truth, glare=lamp)] * 3 + [Shot(truth, glare=lamp, view=1)] * 7
    )
    for number, shot in enumerate(shots, start=36):
        answer = post_frame(client, game_id, auth, scene.render(shot, number))
        clock.now += 1.0
        if answer["status"] == "needs_review" and shot.glare is None:
            # The whole board read once as the camera starts: answered as the players would.
            answer_from_truth(client, game_id, auth, answer, truth)
        elif shot.glare is not None:
            assert answer["status"] not in ("committed", "needs_review"), (number, answer)
    assert [m["word"] for m in client.get(f"/api/games/{game_id}").json()["moves"]] == [
        "DJINN",
        "WITHY",
        "sCRIEVE",
    ]


def test_a_lamp_coming_on_with_no_hand_over_the_board_makes_no_turn(table) -> None:
    """The false turn bench_frames found (r3_ewans, frame 85): after VIRAL, a lamp came on with
    no hand near the board; two empty squares under its glare looked changed and read as maybe
    blank tiles (I12, J12: ./?), and that was asked. No arm crossed the board's edge, so no
    tile can have been laid: the glare is light."""
    client, clock, game, game_id, auth = table
    plays = (("8D", "HEADING"), ("K6", "ONSIDES"), ("J2", "BREAK"), ("E4", "FIQUE"),
             ("D1", "VARIX"), ("1D", "VIRAL"))  # fmt: skip
    type_moves(client, game_id, auth, plays)
    truth = Board.from_rows(client.get(f"/api/games/{game_id}").json()["board"])
    scene = TableScene(game.variant, edition_style("en"), seed=7014)
    lamp = Glare((713.3, 650.9), 63.6, 81.0)  # the bench's, in this scene's frame
    statuses = []
    for number, shot in enumerate([Shot(truth)] * 5 + [Shot(truth, glare=lamp)] * 4, start=78):
        answer = post_frame(client, game_id, auth, scene.render(shot, number))
        clock.now += 1.0
        if answer["status"] == "needs_review" and shot.glare is None:
            # The whole board read once as the camera starts: answered as the players would.
            answer_from_truth(client, game_id, auth, answer, truth)
        statuses.append(answer["status"])
    # Not asked, nor waiting for a hand that was never there to move again: no move.
    assert statuses[-4:] == ["busy", "settling", "unchanged", "unchanged"], statuses
    assert len(client.get(f"/api/games/{game_id}").json()["moves"]) == len(plays)


def test_a_blank_half_seen_in_glare_where_no_hand_was_makes_no_turn(table, monkeypatch) -> None:
    """The false turn bench_frames found (r14_whitley, frame 205): glare over the board, no
    hand near it, and an empty square beside two tiles read as a blank tile (I7). A blank
    there made a word (?XI), so a play was read whose only tile was that blank, and its letter
    was asked. No hand was over the square: the doubt is light, as when it makes
    no play."""
    client, clock, game, game_id, auth = table
    plays = (("8D", "HEADING"), ("K6", "ONSIDES"), ("J2", "BREAK"), ("E4", "FIQUE"),
             ("D1", "VARIX"), ("1D", "VIRAL"))  # fmt: skip
    type_moves(client, game_id, auth, plays)
    truth = Board.from_rows(client.get(f"/api/games/{game_id}").json()["board"])
    scene = TableScene(game.variant, edition_style("en"), seed=7014)
    # Under the lamp right of ONSIDES's I (K9): a blank on L9 makes I? (ID, IF, IN, IS, IT).
    doubt = (8, 11)
    assert truth.get(*doubt) is None and truth.get(8, 10) is not None
    lamp = Glare(scene.square_centre(*doubt), scene.cell_in_photo * 1.5, 85.0)
    read = GameService.read

    def half_seen(self, data, variant, corners):
        reading = read(self, data, variant, corners)
        if glared:
            r, c = doubt
            reading.classes[r][c] = "blank"
            reading.confidence[r][c] = 0.96
            reading.top3[r][c] = [("blank", 0.96), ("empty", 0.04), ("A", 0.0)]
        return reading

    monkeypatch.setattr(GameService, "read", half_seen)
    statuses = []
    for number, shot in enumerate([Shot(truth)] * 5 + [Shot(truth, glare=lamp)] * 4, start=78):
        glared = shot.glare is not None
        answer = post_frame(client, game_id, auth, scene.render(shot, number))
        clock.now += 1.0
        if answer["status"] == "needs_review" and not glared:
            answer_from_truth(client, game_id, auth, answer, truth)
        statuses.append(answer["status"])
    assert "committed" not in statuses[-4:] and "needs_review" not in statuses[-4:], statuses
    assert len(client.get(f"/api/games/{game_id}").json()["moves"]) == len(plays)


def test_a_lamp_coming_on_touches_no_square_and_a_hand_does() -> None:
    """Squares that move while nothing moves across the ring around the board (a lamp coming
    on) are no hand's; those a hand reaching in moves over are."""
    variant = load_variant("en")
    scene = TableScene(variant, edition_style("en"), seed=11)
    board = Board.from_rows(["." * 15] * 7 + [".....CAT......."] + ["." * 15] * 7)
    lamp = Glare(scene.square_centre(6, 6), scene.cell_in_photo * 1.5, 90.0)
    looker = settled_looker(variant, scene, board)
    glared = looker.look(scene.render(Shot(board, glare=lamp), 3))
    assert glared.moving and not glared.touched
    hand = Hand(2, scene.square_centre(9, 7))
    reached = looker.look(scene.render(Shot(board, hand, lamp), 4))
    assert (9, 7) in reached.touched


def test_frames_spread_over_two_processes_read_as_one_process_does(tmp_path: Path) -> None:
    """`serve --workers 2`: one phone's frames taken in turn by two server processes (two apps on
    one database) go on from the stream the store keeps, so they make the one turn of the move
    with the reads one process makes, not a read of each process's own first still board."""
    game = short_game()
    first = Game(game.variant, game.players, game.events[:1])
    scene = TableScene(game.variant, edition_style("en"), seed=31)
    shots = list(game_script(first, scene, np.random.default_rng(6), glare=0.0, nudge=0.0))
    frames = [scene.render(shot, number) for number, shot in enumerate(shots)]
    reader = pipeline_reader()
    reads: list[int] = []

    def counted(data: bytes, variant, corners):
        reads.append(1)
        return reader(data, variant, corners)

    def play(folder: Path, processes: int) -> tuple[int, list[str]]:
        clock = Clock()
        apps = [
            create_app(data_dir=folder, reader=counted, overlay=lambda d, r: b"", clock=clock)
            for _ in range(processes)
        ]
        with TestClient(apps[0]) as one, TestClient(apps[-1]) as other:
            created = one.post("/api/games", json={"variant": "en", "players": ["A", "B"]})
            body = created.json()
            auth = {"Authorization": f"Bearer {body['token']}"}
            reads.clear()
            for number, data in enumerate(frames):
                client = (one, other)[number % 2]
                answer = post_frame(client, body["id"], auth, data)
                if answer["status"] == "needs_review":
                    answer_from_truth(client, body["id"], auth, answer, first.state.board)
                clock.now += 1.0
            moves = one.get(f"/api/games/{body['id']}").json()["moves"]
        return len(reads), [m["word"] for m in moves]

    alone = play(tmp_path / "one", 1)
    assert alone[1] == [first.events[0].play.word]
    assert play(tmp_path / "two", 2) == alone


def test_frame_errors(table) -> None:
    client, _, _, game_id, auth = table
    response = client.post(f"/api/games/{game_id}/frames", headers=auth)
    assert response.status_code == 400 and response.json()["error"] == "empty"
    bad = client.post(
        f"/api/games/{game_id}/frames", headers=auth, files={"frame": ("f.jpg", b"nope")}
    )
    assert bad.status_code == 400 and bad.json()["error"] == "not_an_image"
    unauthorized = client.post(f"/api/games/{game_id}/frames", files={"frame": ("f.jpg", b"x")})
    assert unauthorized.status_code == 401
    blank = np.full((480, 640, 3), 90, np.uint8)
    ok, encoded = cv2.imencode(".jpg", blank)
    assert ok
    assert post_frame(client, game_id, auth, encoded.tobytes())["status"] == "no_board"


def test_board_squares_follow_the_reading_rotation() -> None:
    """A frame's squares as seen, as the board's once the reading turned the grid upright."""
    seen = frozenset({(0, 0), (2, 5)})
    assert board_squares(seen, 0, (15, 15)) == seen
    assert board_squares(seen, 1, (15, 15)) == {(0, 14), (5, 12)}
    assert board_squares(seen, 2, (15, 15)) == {(14, 14), (12, 9)}
    assert board_squares(frozenset({(0, 0)}), 1, (12, 16)) == {(0, 11)}


def _r19_ruth() -> Game:
    """The first plays of liwords' r19_ruth (Hood River 2022): Josh's DELOPED, Ruth's AA.II,
    Josh's HONEYE., Ruth's .IPED and Josh's BERYL (the challenge bonus left out)."""
    game = Game(load_variant("en"), ("Josh", "Ruth"))
    for position, word in (
        ("8H", "DELOPED"),
        ("J6", "AALII"),
        ("N2", "HONEYED"),
        ("L8", "PIPED"),
        ("O1", "BERYL"),
    ):
        game = game.apply(turn_from_move(game, position, word, None).event)
    return game


def test_a_play_under_glare_on_an_overexposed_board_is_never_taken_for_no_move(table) -> None:
    """The turn bench_frames lost (r19_ruth, frame 56): on a board so bright that tiles and
    squares both clip to white, Ruth's .IPED laid under a lamp's highlight changed no square as
    the frames compare them, and the reading after the hand left, in doubt, was taken for "no
    move" and settled; Josh's BERYL then showed both plays, and a play was recorded for the
    wrong player. Now squares the hand was over that are too bright to see are unknown, not
    "same": every play is recorded once, for its own player, whatever the reading makes of
    the glare (asked, or offered with the next play)."""
    client, clock, _, _, _ = table
    game = _r19_ruth()
    created = client.post("/api/games", json={"variant": "en", "players": list(game.players)})
    game_id = created.json()["id"]
    auth = {"Authorization": f"Bearer {created.json()['token']}"}
    type_moves(client, game_id, auth, [(e.play.position, e.play.word) for e in game.events[:3]])
    # The bench's scene, overexposed as its frames then were.
    scene = TableScene(game.variant, edition_style("en"), seed=7010, exposure=OVEREXPOSED)
    lamp = Glare(scene.square_centre(9, 11), scene.cell_in_photo * 1.6, 80.0)  # over L9..L12
    shots = [
        dataclasses.replace(shot, glare=lamp)
        for shot in game_script(
            game, scene, np.random.default_rng(3), glare=0.0, nudge=0.0, start=3
        )
    ]
    truth = sheet_dict(game)["moves"]
    statuses = []
    for number, shot in enumerate(shots):
        answer = post_frame(client, game_id, auth, scene.render(shot, number))
        clock.now += 1.0
        statuses.append(answer["status"])
        if answer["status"] == "needs_review":
            # Answered from the truth: the board after one play, or two when two are offered.
            made = len(answer["game"]["moves"]) + (2 if "moves" in answer else 1)
            board = Game(game.variant, game.players, game.events[:made]).state.board
            for _ in range(3):
                if answer["status"] != "needs_review":
                    break
                cells = {c["square"]: board.rows[c["row"]][c["col"]] for c in answer["uncertain"]}
                path, body = ("correct", {"json": {"cells": cells}}) if cells else ("confirm", {})
                answer = client.post(f"/api/games/{game_id}/review/{path}", headers=auth, **body)
                answer = answer.json()
            assert answer["status"] == "committed", answer
        moves = client.get(f"/api/games/{game_id}").json()["moves"]
        # Never a play recorded that the game did not have, nor for another player.
        assert [(m["player"], m["word"], m["score"]) for m in moves] == [
            (m["player"], m["word"], m["score"]) for m in truth[: len(moves)]
        ], (number, answer)
    moves = client.get(f"/api/games/{game_id}").json()["moves"]
    assert [m["word"] for m in moves] == [m["word"] for m in truth], statuses


def test_a_knocked_phone_is_followed_where_the_locator_finds_no_grid(monkeypatch) -> None:
    """The bench's r19_ruth, frame 108: the phone knocked over a board so bright that the
    locator finds no grid in it. The grid stayed where it was, every square looked changed and
    the camera stayed busy for the rest of the game. Now the frame is matched to the settled
    one (the board only), and the grid is carried to where the board now is."""
    variant = load_variant("en")
    scene = TableScene(variant, edition_style("en"), seed=7010, exposure=OVEREXPOSED)
    board = _r19_ruth().state.board
    looker = FrameLooker(variant)
    looker.corners = scene.grid_corners(0)  # as found when the camera started
    looker.look(scene.render(Shot(board), 0))
    looker.settle()
    looker = FrameLooker.restore(variant, looker.dump())  # kept between frames
    monkeypatch.setattr(looker, "_locate", lambda image: False)
    assert looker.look(scene.render(Shot(board, view=1), 1)).moving  # the phone moving
    view = looker.look(scene.render(Shot(board, view=1), 2))
    assert view.refound and view.moved
    assert len(view.changed or ()) <= 3, view.changed
    square = float(np.linalg.norm(scene.grid_corners(1)[1] - scene.grid_corners(1)[0])) / 15
    assert np.abs(looker.corners - scene.grid_corners(1)).max() < 0.25 * square


def test_a_look_in_other_light_is_relit_and_a_tile_is_not() -> None:
    """A square's look brightened by a glare (its print and lines kept, their contrast
    squeezed) is the same square in other light; a tile laid on it, or any change of a square
    with nothing on it to follow (a uniform square), is not."""
    rng = np.random.default_rng(3)
    square = rng.uniform(90, 200, (2, LOOK_PX * LOOK_PX, 3)).astype(np.float32)
    glared = 0.7 * square + 70 + rng.normal(0, 2, square.shape).astype(np.float32)
    tile = rng.uniform(150, 230, square.shape).astype(np.float32)
    uniform = np.full(square.shape, 150, np.float32)
    flat = lambda a: a.reshape(2, -1)  # noqa: E731 - one look per square, as FrameLooker keeps
    assert relit(flat(square), flat(glared)).all()
    assert not relit(flat(square), flat(tile)).any()
    assert not relit(flat(uniform), flat(uniform + 40)).any()


def _dark_board(rng: np.random.Generator) -> np.ndarray:
    """A dark maroon board's looks, ring included (17 x 17 squares of LOOK_PX² pixels): most
    squares near (11, 13, 42), one in five a pale premium square."""
    looks = np.empty((17, 17, LOOK_PX * LOOK_PX, 3), np.float32)
    looks[:] = (11.0, 13.0, 42.0)
    pale = rng.random((17, 17)) < 0.2
    looks[pale] = (230.0, 200.0, 180.0)
    return looks


def _frame(scene: np.ndarray, exposure: float, rng: np.random.Generator) -> np.ndarray:
    """The scene's looks in one frame: exposed, with sensor noise, in whole grey levels."""
    pixels = np.round(scene * exposure + rng.normal(0, 1.5, scene.shape)).clip(0, 255)
    return pixels.astype(np.float32).reshape(*scene.shape[:2], -1)


def test_a_still_dark_board_does_not_move_and_a_tile_on_it_does() -> None:
    """On a dark board, noise, whole grey levels and an exposure drifting by a percent or by a
    tenth change no square (each frame divided by its own median moved every square here: the
    noise of a blue at 11 times ten, and the pale squares by the median's steps); a tile laid on
    a dark square is a change."""
    rng = np.random.default_rng(5)
    scene = _dark_board(rng)
    first = _frame(scene, 1.0, rng)
    for exposure in (1.0, 1.01, 0.99, 1.1):
        assert (look_difference(_frame(scene, exposure, rng), first) <= CHANGED).all()
    laid = scene.copy()
    laid[5, 6] = (60.0, 140.0, 200.0)  # an orange tile
    later = _frame(laid, 1.01, rng)
    assert look_difference(later, first)[5, 6] > CHANGED
    assert unlike(later, first)[5, 6] and unlike(first, later)[5, 6]


def test_a_tile_taken_off_a_dark_square_with_pale_lines_is_not_light() -> None:
    """The grid's pale lines at the rim of a dark square's look stay in view beside a tile: they
    do not make the tile and the square the same look in other light, either way round."""
    rng = np.random.default_rng(6)
    square = np.full((1, LOOK_PX, LOOK_PX), 50.0, np.float32)
    square[:, 0, :] = square[:, :, 0] = 240.0  # the lines above and left of it
    tile = square.copy()
    tile[:, 1:, 1:] = 200.0
    tile[:, 3:6, 2:4] = 100.0  # a letter's strokes
    tile[:, 7, 1:] = tile[:, 1:, 7] = 170.0  # its shaded edges
    noise = lambda a: a + rng.normal(0, 2, a.shape)  # noqa: E731
    looks = [np.repeat(noise(a)[..., None], 3, -1).reshape(1, -1) for a in (square, tile)]
    assert not relit(looks[0], looks[1]).any()
    assert not relit(looks[1], looks[0]).any()


def test_a_plain_blank_taken_off_a_shaded_square_is_not_light() -> None:
    """A plain blank tile, faintly shaded towards one side, and the bare square under it, with a
    neighbour's shadow across both, follow each other in a straight line (correlated at 0.9);
    neither has a pattern to follow, so the change is a change."""
    rng = np.random.default_rng(7)
    shadow = np.linspace(0.0, 1.0, LOOK_PX)[None, :] * np.ones((LOOK_PX, 1))
    square = 60.0 + 3.0 * shadow + rng.normal(0, 0.5, shadow.shape)
    blank = 200.0 + 12.0 * shadow + rng.normal(0, 0.5, shadow.shape)
    looks = [
        np.repeat(a[..., None], 3, -1).reshape(1, -1).astype(np.float32) for a in (square, blank)
    ]
    assert not relit(looks[0], looks[1]).any()
    assert not relit(looks[1], looks[0]).any()


def test_glare_over_a_still_board_changes_no_square_and_a_tile_under_it_does() -> None:
    """Squares a lamp's soft glare brightens are not changed; a tile laid under the same glare
    is a change."""
    variant = load_variant("en")
    scene = TableScene(variant, edition_style("en"), seed=11)
    board = Board.from_rows(["." * 15] * 7 + [".....CAT......."] + ["." * 15] * 7)
    lamp = Glare(scene.square_centre(4, 4), scene.cell_in_photo * 2.5, 60.0)
    looker = settled_looker(variant, scene, board)
    glared = looker.look(scene.render(Shot(board, glare=lamp), 3))
    assert glared.moving and not glared.changed and not glared.unknown
    played = board.place({(4, 4): Tile("A"), (4, 5): Tile("X")})
    laid = looker.look(scene.render(Shot(played, glare=lamp), 4))
    # This scene's camera sees the board upright.
    assert {(4, 4), (4, 5)} <= laid.changed
