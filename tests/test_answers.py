"""Answers remembered by the look of their squares (`vision.answers`): a square the players said
was empty is not asked about again while it looks as it did, in any light; a tile laid there
since is read as usual."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from test_api import Api
from test_storage import CAT, CATS, FakeReading, photo, reading

from scorer.board import Board
from scorer.dictionary import dictionary_for
from scorer.tracking import Thresholds, TurnStatus, track
from scorer.variant import load_variant
from vision.answers import tile_like_vacancies, vouched, with_answers, with_vacancies

LAYOUT = load_variant("en").layout.rows
EMPTY_ROWS = Board.from_rows(["." * 15] * 15)
# Looks (`vision.calibrate.cell_looks`: lightness and two colours of the middle, of the rim, and
# the middle's spread) of an empty plain square, an empty premium square and a tile.
PLAIN = [150.0, 0.0, 10.0, 150.0, 0.0, 10.0, 4.0]
PREMIUM = [120.0, 40.0, 20.0, 125.0, 38.0, 18.0, 12.0]
TILE = [210.0, 2.0, 25.0, 190.0, 2.0, 20.0, 30.0]


@dataclass(frozen=True)
class LookedReading(FakeReading):
    """A fake reading that carries the cells' looks, as the vision pipeline's does."""

    looks: list[list[list[float]]]


def looked(rows: dict[int, str], uncertain=None, tiles=(), light: float = 0.0) -> LookedReading:
    """`reading(rows, uncertain)` with looks: premium or plain squares by the layout, a tile's
    look on every letter of `rows` and on the squares of `tiles`, every lightness `light`
    brighter."""
    base = reading(rows, uncertain)
    looks = []
    for r in range(15):
        line = []
        for c in range(15):
            tile = (r, c) in tiles or rows.get(r, "." * 15)[c] != "."
            look = TILE if tile else PLAIN if LAYOUT[r][c] == "." else PREMIUM
            line.append([v + light if i in (0, 3) else v for i, v in enumerate(look)])
        looks.append(line)
    return LookedReading(base.classes, base.confidence, base.top3, looks)


A1_AS_Z = {"A1": [("Z", 0.97), ("empty", 0.02), ("blank", 0.01)]}
I9_AS_Z = {"I9": A1_AS_Z["A1"]}


def test_a_square_answered_empty_is_read_empty_in_other_light() -> None:
    # The photo after the answer, lit otherwise: A1 looks like its empty siblings of this
    # photo (the other triple-word squares), and like none of its tiles.
    later = with_answers(looked(CAT, A1_AS_Z, light=25.0), EMPTY_ROWS, LAYOUT, ["0,0"])
    assert later.classes[0][0] == "empty" and later.confidence[0][0] >= 0.99
    assert later.classes[7][7:10] == ["C", "A", "T"]


def test_an_answer_vouches_for_the_doubtful_squares_of_its_kind() -> None:
    doubtful = {"H1": [("empty", 0.5), ("Z", 0.4)], "D4": [("empty", 0.5), ("Z", 0.4)]}
    later = with_answers(looked(CAT, doubtful), EMPTY_ROWS, LAYOUT, ["0,0"])
    # H1 is a triple-word square like A1; D4 a double-word one, which no answer spoke for.
    assert later.classes[0][7] == "empty" and later.classes[3][3] == "empty"
    assert later.confidence[0][7] >= 0.99 and later.confidence[3][3] == 0.5


def test_a_tile_laid_on_an_answered_square_is_read_as_usual() -> None:
    tile = looked(CAT, A1_AS_Z, tiles={(0, 0)})
    assert with_answers(tile, EMPTY_ROWS, LAYOUT, ["0,0"]).classes[0][0] == "Z"
    # A square the known board holds a tile on is the tracker's, not the answers'.
    known = Board.from_rows(["Z" + "." * 14] + ["." * 15] * 14)
    assert with_answers(looked(CAT, A1_AS_Z), known, LAYOUT, ["0,0"]).classes[0][0] == "Z"


def test_an_answered_square_unlike_its_kind_in_this_photo_but_plainly_no_tile_stays_empty() -> None:
    # Light of another colour falls on A1 alone: it is unlike the other triple-word squares of
    # this photo, but its colours are plainly no tile's.
    odd = [120.0, 80.0, -20.0, 125.0, 78.0, -22.0, 12.0]
    weak = {"A1": [("empty", 0.5), ("Z", 0.45)]}
    for uncertain, confidence in ((weak, 0.99), (A1_AS_Z, 0.9)):
        photo = looked(CAT, uncertain)
        photo.looks[0][0] = odd
        later = with_answers(photo, EMPTY_ROWS, LAYOUT, ["0,0"])
        # Read empty; as a doubt where a letter was read there with confidence (the words
        # settle it).
        assert later.classes[0][0] == "empty" and later.confidence[0][0] == confidence
        assert [label for label, _ in later.top3[0][0]][:2] == ["empty", "Z"]
        # Not answered, it is left as read.
        assert (
            with_answers(photo, EMPTY_ROWS, LAYOUT, ["0,14"]).classes[0][0] == photo.classes[0][0]
        )


def test_an_answered_square_whose_print_looks_like_a_tile_is_read_empty_as_a_doubt() -> None:
    # An edition whose triple-word squares are cream insets printed "3", as cream as its tiles:
    # A1, answered empty, is read a T at 0.42 in a later photo. It looks like its empty
    # siblings and like the tiles too, so it is read empty only as a doubt (the words settle it,
    # a play through it is asked about), with the letter still a candidate.
    photo = looked(CAT, {"A1": [("T", 0.42), ("empty", 0.28), ("L", 0.08)]})
    tile_like = [v + 3.0 for v in TILE]
    for r, c in ((0, 0), (0, 7), (0, 14), (7, 0), (7, 14), (14, 0), (14, 7), (14, 14)):
        photo.looks[r][c] = list(tile_like)
    later = with_answers(photo, EMPTY_ROWS, LAYOUT, ["0,0"])
    assert later.classes[0][0] == "empty" and later.confidence[0][0] == 0.9
    assert [label for label, _ in later.top3[0][0]][:2] == ["empty", "T"]
    assert later.confidence[0][0] < Thresholds().certain
    # Not answered, or read a letter with confidence (a tile laid there since), it is as read.
    assert with_answers(photo, EMPTY_ROWS, LAYOUT, ["0,14"]).classes[0][0] == "T"
    sure = looked(CAT, {"A1": [("T", 0.97), ("empty", 0.02), ("L", 0.01)]})
    sure.looks[0][0] = list(tile_like)
    assert with_answers(sure, EMPTY_ROWS, LAYOUT, ["0,0"]).classes[0][0] == "T"


def test_a_reading_without_looks_is_left_alone() -> None:
    plain = reading(CAT, A1_AS_Z)
    assert with_answers(plain, EMPTY_ROWS, LAYOUT, ["0,0"]) is plain


def _double_words_in_doubt(known_rows: dict[int, str], photo_rows: dict[int, str], tiles=()):
    """A photo of `photo_rows` in which every vacant double-word square (`-`) reads empty only
    as a doubt (calibrate's majority look: the classifier sure of none of them) or as a Z."""
    known = Board.from_rows([known_rows.get(r, "." * 15) for r in range(15)])
    doubtful = {}
    for r in range(15):
        for c in range(15):
            if LAYOUT[r][c] == "-" and known.get(r, c) is None:
                name = f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}"
                doubtful[name] = [("empty", 0.8), ("Z", 0.15), ("blank", 0.05)]
    doubtful["B2"] = [("Z", 0.45), ("empty", 0.35), ("D", 0.1)]
    return known, looked(photo_rows, doubtful, tiles=tiles)


def test_the_known_boards_vacant_squares_vouch_for_their_kind() -> None:
    known, photo = _double_words_in_doubt(CAT, CAT)
    later = with_vacancies(photo, known, LAYOUT)
    for r, c in ((1, 1), (2, 2), (3, 3), (13, 13)):
        assert later.classes[r][c] == "empty" and later.confidence[r][c] >= 0.99
    # B2, read as a Z, looks like its vacant siblings and like no tile: empty too.
    assert [label for label, _ in later.top3[1][1]][:2] == ["empty", "Z"]
    assert later.classes[7][7:10] == ["C", "A", "T"]


def test_a_vacant_square_with_its_kinds_middle_and_plainly_no_tile_is_empty() -> None:
    # B2's rim takes in the edge of a tile beside it and its label prints darker: only its
    # middle's colours are its siblings', and they are plainly no tile's.
    known, photo = _double_words_in_doubt(CAT, CAT)
    photo.looks[1][1] = [120.0, 40.0, 20.0, 190.0, 2.0, 20.0, 40.0]
    later = with_vacancies(photo, known, LAYOUT)
    assert later.classes[1][1] == "empty" and later.confidence[1][1] >= 0.99
    # A middle of a tile's colours is not its siblings': left as read.
    photo.looks[1][1] = [200.0, 4.0, 24.0, 125.0, 38.0, 18.0, 12.0]
    assert with_vacancies(photo, known, LAYOUT).classes[1][1] == "Z"


def test_a_letter_read_on_a_vacant_square_with_its_kinds_middle_is_empty_as_a_doubt() -> None:
    # Double-word squares of a pale print, not so far from the tiles' colours: B2, read as a Z
    # the first time it shows, has its siblings' middle, but its label prints darker and its
    # rim takes in a tile beside it. Not plainly unlike the tiles, it is read empty only as a
    # doubt (the words settle it); read as a blank, a tile by its look alone, it is left as read.
    known, photo = _double_words_in_doubt(CAT, CAT)
    pale = [175.0, 12.0, 22.0, 160.0, 10.0, 19.0, 12.0]
    for r in range(15):
        for c in range(15):
            if LAYOUT[r][c] == "-":
                photo.looks[r][c] = list(pale)
    photo.looks[1][1] = [175.0, 12.0, 22.0, 175.0, 10.0, 20.0, 40.0]
    later = with_vacancies(photo, known, LAYOUT)
    assert later.classes[1][1] == "empty" and later.confidence[1][1] == 0.9
    assert [label for label, _ in later.top3[1][1]][:2] == ["empty", "Z"]
    assert later.classes[2][2] == "empty" and later.confidence[2][2] >= 0.99
    photo.classes[1][1] = "blank"
    photo.top3[1][1] = [("blank", 0.45), ("empty", 0.35), ("Z", 0.1)]
    assert with_vacancies(photo, known, LAYOUT).classes[1][1] == "blank"


def test_a_letter_read_on_a_vacant_square_in_other_light_is_empty_as_a_doubt() -> None:
    # B2, a printed label read as a Z, lies in a lamp's light: its middle is far lighter than
    # its siblings' across the board, its rim takes in a tile beside it, but its middle's hue
    # and ink are theirs. Read empty as a doubt (the words settle it); read as a blank, a tile
    # by its look alone, it is left as read, and a middle of another hue is no sibling's.
    known, photo = _double_words_in_doubt(CAT, CAT)
    photo.looks[1][1] = [185.0, 40.0, 20.0, 190.0, 2.0, 20.0, 12.0]
    later = with_vacancies(photo, known, LAYOUT)
    assert later.classes[1][1] == "empty" and later.confidence[1][1] == 0.9
    assert [label for label, _ in later.top3[1][1]][:2] == ["empty", "Z"]
    photo.looks[1][1] = [185.0, 10.0, 40.0, 190.0, 2.0, 20.0, 12.0]
    assert with_vacancies(photo, known, LAYOUT).classes[1][1] == "Z"
    photo.looks[1][1] = [185.0, 40.0, 20.0, 190.0, 2.0, 20.0, 12.0]
    photo.classes[1][1] = "blank"
    photo.top3[1][1] = [("blank", 0.45), ("empty", 0.35), ("Z", 0.1)]
    assert with_vacancies(photo, known, LAYOUT).classes[1][1] == "blank"


def test_a_tile_on_a_vacant_square_is_read_as_usual() -> None:
    # B2 holds a tile now (a tile's look): the vacant squares around do not make it empty.
    known, photo = _double_words_in_doubt(CAT, CAT, tiles={(1, 1)})
    later = with_vacancies(photo, known, LAYOUT)
    assert later.classes[1][1] == "Z" and later.classes[2][2] == "empty"
    # An edition whose double-word squares are the tiles' colour: B2 lies among its vacant
    # siblings, but it is as plausibly a tile, so it is left as read too.
    known, photo = _double_words_in_doubt(CAT, CAT)
    for r in range(15):
        for c in range(15):
            if LAYOUT[r][c] == "-":
                photo.looks[r][c] = list(TILE)
    assert with_vacancies(photo, known, LAYOUT).classes[1][1] == "Z"


@dataclass(frozen=True)
class HalvedReading(LookedReading):
    """A fake reading that also carries its cells' middles' halves, as the pipeline's does."""

    halves: np.ndarray


def _halved(photo: LookedReading) -> HalvedReading:
    """`photo` with each cell's four halves of its middle's colours (its look's first three)."""
    halves = np.repeat(np.array(photo.looks)[:, :, None, :3], 4, axis=2)
    return HalvedReading(photo.classes, photo.confidence, photo.top3, photo.looks, halves)


def test_a_square_half_covered_by_a_neighbours_overhang_is_empty_as_a_doubt() -> None:
    # A thick tile beside B2, seen at a slant, covers part of it: read empty at only 0.5, its
    # rim is a tile's and its middle neither its siblings' colours nor a tile's, but its far
    # half is its siblings' colour, plainly no tile's. Read empty as a doubt (the words settle
    # it).
    known, looked_photo = _double_words_in_doubt(CAT, CAT)
    looked_photo.looks[1][1] = [180.0, 20.0, 22.0, 190.0, 2.0, 20.0, 20.0]
    photo = _halved(looked_photo)
    photo.classes[1][1], photo.confidence[1][1] = "empty", 0.5
    photo.top3[1][1] = [("empty", 0.5), ("Z", 0.2), ("D", 0.06)]
    photo.halves[1, 1] = [TILE[:3], PREMIUM[:3], [180.0, 20.0, 22.0], [180.0, 20.0, 22.0]]
    later = with_vacancies(photo, known, LAYOUT)
    assert later.classes[1][1] == "empty" and later.confidence[1][1] == 0.9
    assert [label for label, _ in later.top3[1][1]][:2] == ["empty", "Z"]
    # Without its halves, nothing vouches for it.
    assert with_vacancies(looked_photo, known, LAYOUT).confidence[1][1] == 0.5
    # A tile there shows a tile's colours in every half: left as read.
    photo.halves[1, 1] = [TILE[:3]] * 4
    assert with_vacancies(photo, known, LAYOUT).confidence[1][1] == 0.5
    # Read as a letter, it is not the overhang's to settle: left as read.
    photo.halves[1, 1] = [TILE[:3], PREMIUM[:3], [180.0, 20.0, 22.0], [180.0, 20.0, 22.0]]
    photo.classes[1][1], photo.confidence[1][1] = "Z", 0.5
    photo.top3[1][1] = [("Z", 0.5), ("empty", 0.2), ("D", 0.06)]
    assert with_vacancies(photo, known, LAYOUT).classes[1][1] == "Z"


def test_vacancies_vouch_for_nothing_without_a_tile_look_or_enough_squares() -> None:
    # Two lettered tiles give no tile look to tell a tile by.
    known, photo = _double_words_in_doubt({7: ".......AT......"}, {7: ".......AT......"})
    assert with_vacancies(photo, known, LAYOUT).classes == photo.classes
    # Tiles on all but three double-word squares: too few vacant ones to outvote a play.
    rows = {r: "".join("E" if LAYOUT[r][c] == "-" else "." for c in range(15)) for r in range(15)}
    for r, c in ((1, 1), (2, 2), (3, 3)):
        rows[r] = rows[r][:c] + "." + rows[r][c + 1 :]
    known, photo = _double_words_in_doubt(rows, rows)
    assert with_vacancies(photo, known, LAYOUT).classes == photo.classes
    plain = reading(CAT, A1_AS_Z)
    assert with_vacancies(plain, EMPTY_ROWS, LAYOUT) is plain


@dataclass(frozen=True)
class FeaturedReading(LookedReading):
    """A fake reading that carries the cell model's features of each crop too."""

    features: np.ndarray


# The cell model's features (`training.features`) of a plain square, a double-letter square's
# printed "2", and a tile, as far apart as the model keeps them.
PLAIN_FEATURES = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
PRINT_FEATURES = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
TILE_FEATURES = np.array([0.0, 0.3, 1.0, 0.0, 0.0, 0.0])
D1 = (0, 3)  # a double-letter square


def _featured(photo: LookedReading, rows: dict[int, str], tiles=()) -> FeaturedReading:
    """`photo` with features: a tile's on every letter of `rows` and on `tiles`, the print's on
    every double-letter square, the plain square's elsewhere, each moved a little as photos do."""
    rng = np.random.default_rng(3)
    features = np.zeros((15, 15, len(PLAIN_FEATURES)))
    for r in range(15):
        for c in range(15):
            tile = (r, c) in tiles or rows.get(r, "." * 15)[c] != "."
            own = (
                TILE_FEATURES if tile else PRINT_FEATURES if LAYOUT[r][c] == "'" else PLAIN_FEATURES
            )
            features[r, c] = own + rng.normal(0, 0.1, len(own))
    return FeaturedReading(photo.classes, photo.confidence, photo.top3, photo.looks, features)


def _print_read_as_z_in_a_glare(
    top3: list[tuple[str, float]], tiles=()
) -> tuple[Board, FeaturedReading]:
    """The known board CAT, and a photo of it whose D1, a double-letter square, is read `top3`,
    its colours washed out to a tile's by a glare."""
    known = Board.from_rows([CAT.get(r, "." * 15) for r in range(15)])
    photo = looked(CAT, {"D1": top3}, tiles={D1})
    return known, _featured(photo, CAT, tiles)


def test_a_print_the_model_finds_like_its_vacant_siblings_is_read_empty() -> None:
    # D1's "2", read as a Z in a glare that gives it a tile's colours: its looks vouch for
    # nothing, but to the model it is as like the vacant double-letter squares as they are to
    # each other. Empty, for sure, and so through `vouched` too: the model reads it as the print.
    known, photo = _print_read_as_z_in_a_glare([("Z", 0.78), ("D", 0.04), ("J", 0.03)])
    for later in (with_vacancies(photo, known, LAYOUT), vouched(photo, known, LAYOUT, [])):
        assert later.classes[0][3] == "empty" and later.confidence[0][3] >= 0.99
        assert later.top3[0][3] == [("empty", 1.0)]
        assert later.classes[7][7:10] == ["C", "A", "T"]
    # Where a blank is a candidate too, it keeps its odds: a plain blank may look as like them.
    known, photo = _print_read_as_z_in_a_glare([("blank", 0.5), ("Z", 0.3), ("empty", 0.2)])
    later = with_vacancies(photo, known, LAYOUT)
    assert sorted(later.top3[0][3]) == [("blank", 0.5), ("empty", 0.5)]


def test_a_tile_the_model_finds_unlike_the_vacant_squares_is_read_as_usual() -> None:
    # A Z laid on D1 in the glare: to the model a tile, far from the vacant double-letter
    # squares, so it is left as read.
    known, photo = _print_read_as_z_in_a_glare([("Z", 0.78), ("D", 0.04), ("J", 0.03)], {D1})
    later = vouched(photo, known, LAYOUT, [])
    assert later.classes[0][3] == "Z" and later.confidence[0][3] == 0.78
    # Nor do two vacant squares of its kind tell their look (D1 and two others free, no more).
    rows = {r: "".join("E" if LAYOUT[r][c] == "'" else "." for c in range(15)) for r in range(15)}
    for r, c in ((0, 3), (0, 11), (2, 6)):
        rows[r] = rows[r][:c] + "." + rows[r][c + 1 :]
    known = Board.from_rows([rows[r] for r in range(15)])
    photo = looked(rows, {"D1": [("Z", 0.78), ("D", 0.04), ("J", 0.03)]}, tiles={D1})
    photo = _featured(photo, rows)
    assert with_vacancies(photo, known, LAYOUT).classes[0][3] == "Z"


def test_a_new_tile_read_empty_does_not_make_its_kinds_vacant_look() -> None:
    # Late in a game: the double-letter squares hold known tiles but for D1, L1, G3 and I3.
    # A new tile on I3 is read empty, so it counts among the vacant squares, and a new tile on
    # D1 is read as a Z: among three "vacant" squares, one of them a tile, D1 is about as like
    # them as they are to each other. The known tiles, as like them as D1 is, keep it a tile.
    rows = {r: "".join("E" if LAYOUT[r][c] == "'" else "." for c in range(15)) for r in range(15)}
    for r, c in ((0, 3), (0, 11), (2, 6), (2, 8)):
        rows[r] = rows[r][:c] + "." + rows[r][c + 1 :]
    known = Board.from_rows([rows[r] for r in range(15)])
    doubts = {"D1": [("Z", 0.78), ("D", 0.04), ("J", 0.03)], "I3": [("empty", 0.85), ("E", 0.1)]}
    photo = _featured(looked(rows, doubts, tiles={D1, (2, 8)}), rows, tiles={D1, (2, 8)})
    assert with_vacancies(photo, known, LAYOUT).classes[0][3] == "Z"


def test_a_square_read_empty_that_the_model_finds_like_a_tile_is_named() -> None:
    # D1 read empty for sure, but its crop holds a tile's raised face, shown half past its
    # square by a slanted camera: no more like the other double-letter squares than CAT's
    # tiles are. Named as a tile the photo may have missed, unless the players said it is empty.
    known = Board.from_rows([CAT.get(r, "." * 15) for r in range(15)])
    photo = _featured(looked(CAT), CAT)
    photo.features[0, 3] = [0.0, 0.0, 1.0, 0.6, 0.0, 0.0]
    assert tile_like_vacancies(photo, known, LAYOUT) == {D1}
    assert tile_like_vacancies(photo, known, LAYOUT, ["0,3"]) == frozenset()
    # Its print there, as like its siblings as they are to each other: nothing named.
    assert tile_like_vacancies(_featured(looked(CAT), CAT), known, LAYOUT) == frozenset()


def test_the_service_does_not_ask_again_about_a_square_answered_empty(en_game: Api) -> None:
    # I9's printed label, under CAT's A, read as a sure Z: off the play's line, so asked.
    first = en_game.photo(photo(1), looked(CAT, I9_AS_Z)).json()
    assert first["status"] == "needs_review"
    assert "I9" in [cell["square"] for cell in first["uncertain"]]
    answered = en_game.post("/review/correct", json={"cells": {"I9": "."}}).json()
    assert answered["status"] == "committed" and answered["move"]["word"] == "CAT"
    # The next photo, in other light, reads I9 the same way: not asked again.
    second = en_game.photo(photo(2), looked(CATS, I9_AS_Z, light=-20.0)).json()
    assert second["status"] == "committed", second
    assert second["move"]["word"] == "CATS" and not second["uncertain"]
    # A tile laid on I9 is read as usual: a Z under the A (AZ, a word the list lacks).
    third = en_game.photo(photo(3), looked(CATS, I9_AS_Z, tiles={(8, 8)})).json()
    assert third["board"][8][8] == "Z" and third["invalid_words"] == ["AZ"], third


def test_an_answer_on_the_empty_board_holds_for_the_first_move(en_game: Api) -> None:
    # Two squares of the centre row read as an empty square or a Z, neither at all surely: a
    # first move could lie there, so they are asked.
    doubtful = dict.fromkeys(("G8", "H8"), [("empty", 0.5), ("Z", 0.3)])
    empty = en_game.photo(photo(1), looked({}, doubtful)).json()
    assert empty["status"] == "needs_review" and empty["move"] is None
    assert [cell["square"] for cell in empty["uncertain"]] == ["G8", "H8"]
    en_game.post("/review/correct", json={"cells": {"G8": ".", "H8": "."}})
    # The first move's photo reads G8, just before CAT, as a Z first now: the same look, not
    # asked again.
    first = en_game.photo(photo(2), looked(CAT, {"G8": [("Z", 0.5), ("empty", 0.3)]})).json()
    assert first["status"] == "committed" and first["move"]["word"] == "CAT", first


def test_a_photo_whose_premium_squares_are_all_in_doubt_is_settled_by_the_known_board(
    en_game: Api,
) -> None:
    first = en_game.photo(photo(1), looked(CAT)).json()
    assert first["status"] == "committed" and first["move"]["word"] == "CAT"
    # In this light the classifier is sure of no double-letter square: each reads empty only
    # as a doubt, and L8, just past the new S, reads as nothing surely (a Z, a D or empty).
    doubtful = {
        f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}": [("empty", 0.8), ("Z", 0.15), ("blank", 0.05)]
        for r in range(15)
        for c in range(15)
        if LAYOUT[r][c] == "'"
    }
    doubtful["L8"] = [("empty", 0.45), ("Z", 0.2), ("D", 0.1)]
    # The squares the known board holds no tile on vouch for their kind's look: L8 looks like
    # them, and like no tile.
    second = en_game.photo(photo(2), looked(CATS, doubtful)).json()
    assert second["status"] == "committed", second
    assert second["move"]["word"] == "CATS" and not second["uncertain"]


def test_a_known_tile_of_several_letters_keeps_the_squares_in_line() -> None:
    # Board text writes a Spanish CH tile as one token of four characters: squares, not
    # characters, say which are free.
    known = Board.from_rows(["." * 15] * 7 + ["[CH]" + "." * 14] + ["." * 15] * 7)
    later = with_answers(looked(CAT, A1_AS_Z), known, LAYOUT, ["0,0"])
    assert later.classes[0][0] == "empty"


def test_a_new_tile_that_looks_like_the_vacant_squares_is_asked_about_not_dropped() -> None:
    # An S laid after CAT, washed out by a glare: it looks like the vacant plain squares around
    # it and like no other tile, but the classifier reads a letter there. Read empty for sure,
    # the play would be lost (a table camera recorded OLLA for OLLAV); as a doubt, it is asked.
    english = load_variant("en")
    known = Board.from_rows([CAT.get(r, "." * 15) for r in range(15)])
    photo = looked({7: ".......CATS...."}, {"K8": [("S", 0.92), ("empty", 0.05), ("B", 0.03)]})
    photo.looks[7][10] = list(PLAIN)
    assert with_vacancies(photo, known, LAYOUT).confidence[7][10] >= 0.99
    # The same when a square answered empty vouches for it first: only a doubt in the end.
    for answered in ([], ["0,1"]):
        later = vouched(photo, known, LAYOUT, answered)
        assert later.classes[7][10] == "empty" and later.confidence[7][10] < Thresholds().certain
        result = track(known, later, english, dictionary_for(english))
        assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None
        assert [(c.square, c.candidates) for c in result.uncertain] == [((7, 10), (".", "S"))]


def test_the_service_asks_about_a_tile_like_square_past_a_words_end(en_game: Api) -> None:
    # After CAT, AT is played down from its A; the square past AT's end reads empty for sure,
    # but to the model it is no more like the vacant plain squares than CAT's tiles are (a
    # tile's raised face seen half past its square?): asked before AT is recorded.
    assert en_game.photo(photo(1), _featured(looked(CAT), CAT)).json()["status"] == "committed"
    rows = {**CAT, 8: "........T......"}
    second = _featured(looked(rows), rows)
    second.features[9, 8] = [0.0, 0.0, 1.0, 0.6, 0.0, 0.0]
    asked = en_game.photo(photo(2), second).json()
    assert asked["status"] == "needs_review" and asked["move"]["word"] == "AT", asked
    assert [cell["square"] for cell in asked["uncertain"]] == ["I10"]
    answered = en_game.post("/review/correct", json={"cells": {"I10": "."}}).json()
    assert answered["status"] == "committed" and answered["move"]["word"] == "AT", answered
