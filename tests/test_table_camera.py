"""The table camera's state machine (`scorer.table_camera`) on frame looks, pure: a hand coming in,
tiles laid one by one, the hand lifted between two tiles, the hand leaving, a pass (a hand that
leaves nothing), a board covered, no board, a failed reading and a restart; a reading of no move
while squares the hand was over were too bright to see, which waits instead of settling; and a
play gone from view, which is a withdrawal to confirm; and which doubts on a changed square no
tile left to lay could settle (glare over an empty square late in a game)."""

from __future__ import annotations

from scorer.board import Board, Tile
from scorer.game import ChallengeWithdrawn, Game
from scorer.table_camera import (
    CameraConfig,
    CameraState,
    FrameLook,
    FrameStatus,
    asked_unseen,
    hidden_squares,
    no_tile_left,
    settled,
    step,
    unseen_since,
    waited,
)
from scorer.tracking import EMPTY, UncertainCell, certain_reading
from scorer.turns import (
    WITHDRAWAL_TO_CONFIRM,
    turn_from_move,
    turn_from_reading,
    withdrawals_confirmed,
)
from scorer.variant import load_variant

CONFIG = CameraConfig(still_frames=2, still_seconds=1.5, max_changed=21, stuck_seconds=8.0)
TILES = frozenset({(7, 7), (7, 8), (7, 9)})


def run(looks: list[tuple[int, frozenset | None]]) -> list[str]:
    """Feed looks a second apart (moving squares, changed squares); settle after each read as
    the service does when a turn is made. Returns the statuses."""
    state, statuses = CameraState(), []
    for second, (moving, changed) in enumerate(looks):
        state, status = step(state, FrameLook(True, moving, changed, float(second)), CONFIG)
        statuses.append(status.value)
        if status is FrameStatus.READ:
            state = settled(state)
    return statuses


def test_a_play_is_read_once_two_frames_after_the_hand_left() -> None:
    none: frozenset = frozenset()
    looks = [
        (0, none),
        (12, frozenset({(7, 7)})),  # the hand comes in
        (20, frozenset({(7, 7), (7, 8)})),  # a tile laid under it
        (18, TILES),  # the last one
        (6, TILES),  # the hand leaves
        (0, TILES),
        (0, TILES),
        (0, none),  # the camera settled the position after the read
    ]
    assert run(looks) == [
        "unchanged", "busy", "busy", "busy", "busy", "settling", "read", "unchanged",
    ]  # fmt: skip


def test_a_hand_lifted_between_two_tiles_for_one_frame_is_no_turn() -> None:
    one, two = frozenset({(7, 7)}), frozenset({(7, 7), (7, 8)})
    looks = [(15, one), (5, one), (0, one), (14, two), (4, two), (0, two), (0, two)]
    assert run(looks) == ["busy", "busy", "settling", "busy", "busy", "settling", "read"]


def test_a_hand_that_leaves_nothing_is_read_once_then_unchanged() -> None:
    """A pass: a hand hovers and leaves; no square looks changed, but the board is read once (a
    tile may look like its square), then it is unchanged."""
    none: frozenset = frozenset()
    statuses = run([(10, none), (8, none), (0, none), (0, none), (0, none)])
    assert statuses == ["busy", "busy", "settling", "read", "unchanged"]


def test_a_flicker_of_light_is_no_reading() -> None:
    none: frozenset = frozenset()
    assert run([(1, none), (0, none), (0, none)]) == ["busy", "unchanged", "unchanged"]


def test_frames_faster_than_a_second_wait_for_the_seconds() -> None:
    state = CameraState()
    statuses = []
    for tenth in range(0, 25, 2):
        moving = 10 if tenth == 0 else 0
        state, status = step(state, FrameLook(True, moving, TILES, tenth / 10), CONFIG)
        statuses.append(status.value)
    assert statuses.index("read") == 8  # 1.6 s after the hand left, not after two frames
    assert statuses.count("read") == 1


def test_an_arm_held_still_across_the_edge_is_busy_until_stuck() -> None:
    covered = frozenset((r, c) for r in range(5) for c in range(6))
    state, statuses = CameraState(), []
    for second in range(10):
        changed = covered if second < 9 else frozenset()
        look = FrameLook(True, 30 if second == 0 else 0, changed, float(second), edge=4)
        state, status = step(state, look, CONFIG)
        statuses.append(status.value)
        state = settled(state) if status is FrameStatus.READ else state
    assert statuses == ["busy"] * 8 + ["read", "unchanged"]  # held still 8 s: read once


def test_a_still_board_seen_from_a_moved_phone_is_read_once() -> None:
    """The bench's r1_mike, frame 246: the phone knocked over a board of 70 tiles, under lights
    that moved with it. Seen anew, 78 squares and 38 of the ring around the board looked unlike
    the settled board: taken for an arm lying across it, and busy for the rest of the game, as
    no turn left the board still for 8 s. A moved view is read once it holds still."""
    seen_anew = frozenset((r, c) for r in range(6) for c in range(13))
    state, statuses = CameraState(), []
    for second in range(5):
        look = FrameLook(True, 200 if second == 0 else 0, seen_anew, float(second), 38, True)
        state, status = step(state, look, CONFIG)
        statuses.append(status.value)
    assert statuses == ["busy", "settling", "read", "busy", "busy"]
    # Not moved, the same frames are an arm across the edge until stuck.
    state, statuses = CameraState(), []
    for second in range(5):
        look = FrameLook(True, 200 if second == 0 else 0, seen_anew, float(second), 38)
        state, status = step(state, look, CONFIG)
        statuses.append(status.value)
    assert statuses == ["busy"] * 5


def test_many_squares_changed_inside_the_edge_are_read() -> None:
    """A lamp's glare over many squares, nothing across the board's edge: the board is read."""
    lit = frozenset((r, c) for r in range(5) for c in range(6))
    assert run([(30, lit), (0, lit), (0, lit)]) == ["busy", "settling", "read"]


def test_no_board_forgets_the_still_run() -> None:
    state, status = step(CameraState(), FrameLook(True, 5, TILES, 0.0), CONFIG)
    state, status = step(state, FrameLook(True, 0, TILES, 1.0), CONFIG)
    state, status = step(state, FrameLook(False, 0, None, 2.0), CONFIG)
    assert status is FrameStatus.NO_BOARD
    state, status = step(state, FrameLook(True, 0, TILES, 3.0), CONFIG)
    assert status is FrameStatus.SETTLING


def test_a_failed_reading_is_not_retried_until_something_moves() -> None:
    state = CameraState()
    statuses = []
    for second, moving in enumerate([9, 0, 0, 0, 0, 7, 0, 0]):
        state, status = step(state, FrameLook(True, moving, TILES, float(second)), CONFIG)
        statuses.append(status.value)  # never settled: the reading failed
    assert statuses == ["busy", "settling", "read", "busy", "busy", "busy", "settling", "read"]


def test_after_a_restart_the_first_still_board_is_read_once() -> None:
    """Nothing settled yet (`changed` None): the board is read once, and the service tracks it
    against the stored game, which makes no turn of a board it knows."""
    looks = [(289, None), (0, None), (0, None), (0, frozenset())]  # no frame before the first
    assert run(looks) == ["busy", "settling", "read", "unchanged"]


def test_for_rack_scales_what_a_move_can_change() -> None:
    assert CameraConfig.for_rack(7).max_changed == 21
    assert CameraConfig.for_rack(8, still_frames=3).still_frames == 3


def test_a_play_gone_from_view_is_a_withdrawal_to_confirm() -> None:
    """The last play's tiles gone from the camera's view (taken back after a challenge, or hidden
    by a glitch) are asked, not recorded: confirming records the withdrawal."""
    game = Game(load_variant("en"), ("Ann", "Bob"))
    game = game.apply(turn_from_move(game, "8G", "CAT", None).event)
    before = game.state.board
    game = game.apply(turn_from_move(game, "8G", "CATS", None).event)
    seen = turn_from_reading(game, certain_reading(before), None)
    assert isinstance(seen.event, ChallengeWithdrawn)  # a photo's turn records it (replay)
    asked = withdrawals_confirmed(seen)
    assert asked.event is None and not asked.committed
    assert asked.result.message == WITHDRAWAL_TO_CONFIRM
    assert asked.proposed == (seen.event,)
    assert game.apply_all(asked.proposed).state.board == before
    # Any other turn is left as it is.
    after = game.state.board.place({(8, 7): Tile("A")})
    play = turn_from_reading(game, certain_reading(after), None)
    assert play.event is not None
    assert withdrawals_confirmed(play) == play


def test_no_move_read_under_a_glare_the_hand_was_over_waits_and_remembers() -> None:
    """The bench's r19_ruth, frame 56: a play laid where a lamp's highlight clips every square,
    read as no move. The squares are remembered, nothing is settled, the still board is not
    read again until something moves, and the next reading is told of them until the game
    moves on (a pass sent from the page)."""
    lit = frozenset((r, c) for r in range(8, 13) for c in range(9, 14))
    hand = frozenset({(9, 11), (10, 11), (11, 11), (12, 11), (12, 12)})
    unseen = hidden_squares(hand, lit)
    assert unseen == hand
    assert hidden_squares(hand, frozenset({(0, 0)})) == frozenset()  # glare elsewhere
    state, _ = step(CameraState(), FrameLook(True, 12, frozenset(), 0.0), CONFIG)
    state, _ = step(state, FrameLook(True, 0, frozenset(), 1.0), CONFIG)
    state, status = step(state, FrameLook(True, 0, frozenset(), 2.0), CONFIG)
    assert status is FrameStatus.READ
    state = waited(state, unseen, events=4)
    state, status = step(state, FrameLook(True, 0, frozenset(), 3.0), CONFIG)
    assert status is FrameStatus.BUSY  # not "unchanged": it was never settled
    assert unseen_since(state, 4) == unseen
    # The next hand comes: the squares are kept through it, and read with the next play.
    for second, moving in enumerate([20, 15, 0, 0], start=4):
        state, status = step(state, FrameLook(True, moving, frozenset(), float(second)), CONFIG)
    assert status is FrameStatus.READ and unseen_since(state, 4) == unseen
    assert unseen_since(state, 5) == frozenset()  # a pass was recorded meanwhile
    again = waited(state, frozenset({(0, 0)}), events=4)
    assert unseen_since(again, 4) == unseen | {(0, 0)}
    assert unseen_since(waited(state, frozenset({(0, 0)}), events=5), 5) == {(0, 0)}
    assert unseen_since(settled(state), 4) == frozenset()
    # Kept between frames as JSON: lists come back as the same state.
    assert CameraState(**{**state.__dict__, "unseen": [list(s) for s in state.unseen]}) == state


def test_a_play_read_after_an_unseen_hand_is_asked_not_recorded() -> None:
    """After a reading that saw no move where a hand had been over squares too bright to see,
    the next play found (before a pass is sent) may not be the only one: it is asked, with the
    unseen squares read as empty, never recorded for the player to move silently."""
    game = Game(load_variant("en"), ("Ann", "Bob"))
    game = game.apply(turn_from_move(game, "8G", "CAT", None).event)
    after = turn_from_move(game, "G8", "CAB", None)
    board = game.apply(after.event).state.board
    turn = turn_from_reading(game, certain_reading(board), None)
    assert turn.committed
    asked = asked_unseen(turn, frozenset({(0, 0), (8, 6), (3, 3)}), board)
    assert asked.event is None and not asked.committed
    assert asked.proposed == (turn.event,)
    assert [(c.square, c.candidates) for c in asked.result.uncertain] == [
        ((0, 0), (".",)),
        ((3, 3), (".",)),
    ]  # (8, 6) holds the play's A
    assert "CAB" in asked.result.message


def test_a_doubt_no_tile_left_could_settle_is_light_not_a_play() -> None:
    """Read "empty, or else a blank" once both blanks are played, or "empty, or else Z" with the
    one Z on the board: no tile of those is left to lay there. Any letter still in the bag, a
    tile read first, or no tile among the candidates at all keeps the doubt."""
    en = load_variant("en")
    board = Board.empty(15, 15).place(
        {(7, 7): Tile("Z"), (7, 8): Tile("A", True), (7, 9): Tile("P", True)}
    )

    def doubt(*candidates: str) -> UncertainCell:
        return UncertainCell((3, 3), candidates, "some cells cannot be read")

    assert no_tile_left(doubt(EMPTY, "?"), board, en)
    assert no_tile_left(doubt(EMPTY, "Z", "?"), board, en)
    assert not no_tile_left(doubt(EMPTY, "Z", "S"), board, en)
    assert not no_tile_left(doubt("?", EMPTY), board, en)
    assert not no_tile_left(doubt(EMPTY), board, en)
    one_blank = Board.empty(15, 15).place({(7, 7): Tile("A", True)})
    assert not no_tile_left(doubt(EMPTY, "?"), one_blank, en)
