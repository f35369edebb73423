"""Pydantic models of every request and response body: the OpenAPI contract (DESIGN.md §6).

Every request field is bounded (lengths, counts, ranges, known keys), so a hostile client gets a
422 saying which field, never a 5 MB name sent back in every answer or a 500 from deeper down.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from scorer.dictionary import MAX_LIST_WORDS, MAX_WORD_LETTERS
from scorer.game import MAX_PLAYERS, MIN_PLAYERS
from scorer.variant import layout_names

MAX_NAME = 40  # characters of a player's name
MAX_RACK = 20  # tiles on a rack (a variant file allows up to 20)
MAX_SQUARES = 25 * 25  # squares of the largest board a variant file may have
# The shipped English list (4.9 MB of UTF-8, 464,437 words) fits in a player's own list.
MAX_WORD_LIST_BYTES = 8_000_000


def _printable(text: str, what: str, allowed: str = "") -> str:
    """`text` when it holds no control, format, surrogate, private-use or unassigned character
    (Unicode category C*) nor a line or paragraph separator, but for those in `allowed`."""
    bad = sorted(
        char
        for char in set(text) - set(allowed)
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp")
    )
    if bad:
        raise ValueError(f"{what} must not hold the character U+{ord(bad[0]):04X}")
    return text


def _player_name(name: str) -> str:
    return _printable(name, "a player's name")


PlayerName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME),
    AfterValidator(_player_name),
    Field(
        description=f"1 to {MAX_NAME} characters after stripping: letters, digits, spaces, "
        "punctuation and symbols; no control characters (newline, NUL)",
        examples=["Аня"],
    ),
]
# A player named in a request about an existing game (a challenger, a rack's owner).
NamedPlayer = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
# A tile of several letters is written in brackets, `[CH]`: up to 5 characters a tile.
TILE_TEXT = 5
Tiles = Annotated[str, Field(max_length=MAX_RACK * TILE_TEXT)]


class ErrorOut(BaseModel):
    """Every error: a stable code and a human-readable explanation."""

    error: str
    detail: str
    retry_with: str | None = Field(
        None,
        description="a field the request may be sent again with: `corners` after `no_board`",
    )


class OptionsOut(BaseModel):
    """House options (RULES.md §7), as in `scorer.variant.Options`."""

    blank_scores_letter: bool = False
    blank_swap: bool = False
    one_copy_of_word: bool = False
    finish_line: int = 0
    nine_tile_racks: bool = False
    tournament: bool = False
    challenge: Literal["double", "five_point"] = "double"
    challenge_bonus: int = Field(5, description="points for a failed five-point challenge")


class OptionsIn(OptionsOut):
    """The house options a game is created with: known keys only, scores in range."""

    model_config = ConfigDict(extra="forbid")

    finish_line: int = Field(0, ge=0, le=10_000, description="0: off; else the winning score")
    challenge_bonus: int = Field(
        5, ge=0, le=1_000, description="points for a failed five-point challenge"
    )


# Characters of a players' own variant file: a 25×25 layout and a hundred letters fit in 4 000.
MAX_VARIANT_FILE = 20_000


class CreateGameIn(BaseModel):
    """A shipped `variant` by name, or the players' own edition as a `variant_file`."""

    variant: str | None = Field(
        None, max_length=40, examples=["ru"], description="a shipped variant's name"
    )
    variant_file: str | None = Field(
        None,
        max_length=MAX_VARIANT_FILE,
        description="instead of `variant`, the text of the players' own variant file: TOML as in "
        "scorer/data/variants/, its `layout` a shipped layout's name or its own rows of "
        "= - \" ' * + . (any rectangle, 5 to 25 squares a side); kept with the game",
    )
    players: list[PlayerName] = Field(
        min_length=MIN_PLAYERS, max_length=MAX_PLAYERS, examples=[["Аня", "Борис"]]
    )
    options: OptionsIn = OptionsIn()
    layout: str | None = Field(
        None, max_length=40, description="a board layout other than the variant's own"
    )

    @field_validator("layout")
    @classmethod
    def _known_layout(cls, layout: str | None) -> str | None:
        if layout is not None and layout not in layout_names():
            raise ValueError(f"unknown layout {layout!r}; known: {', '.join(layout_names())}")
        return layout

    dictionary: bool = True
    word_list: str | None = Field(
        None,
        max_length=MAX_WORD_LIST_BYTES,
        description=f"the players' own word list, one word a line (a line's first word counts; "
        f"blank and # lines ignored): at most {MAX_WORD_LIST_BYTES // 1_000_000} MB of UTF-8, "
        f"{MAX_LIST_WORDS} words of at most {MAX_WORD_LETTERS} letters, each letter one of the "
        "variant's",
    )

    @field_validator("word_list")
    @classmethod
    def _word_list_text(cls, text: str | None) -> str | None:
        if text is None:
            return text
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_WORD_LIST_BYTES:
            raise ValueError(f"the word list is {size} bytes of UTF-8, over {MAX_WORD_LIST_BYTES}")
        return _printable(text, "a word list", allowed="\t\n\r\ufeff")

    @field_validator("variant_file")
    @classmethod
    def _variant_file_text(cls, text: str | None) -> str | None:
        return text if text is None else _printable(text, "a variant file", allowed="\t\n\r")

    @model_validator(mode="after")
    def _one_variant(self) -> CreateGameIn:
        if (self.variant is None) == (self.variant_file is None):
            raise ValueError("give either variant (a shipped one's name) or variant_file")
        return self


class WordOut(BaseModel):
    word: str
    score: int


class MoveOut(BaseModel):
    """One score-sheet line, as in the replay JSON."""

    player: str
    kind: str
    position: str
    word: str
    words: list[WordOut]
    score: int
    total: int


class UncertainOut(BaseModel):
    square: str
    row: int
    col: int
    candidates: list[str]
    reason: str


class MisreadOut(BaseModel):
    square: str
    known: str
    read: str


class PendingOut(BaseModel):
    """A photo turn, or a typed move (TURN without the game)."""

    status: Literal["committed", "needs_review"]
    turn_id: str
    message: str
    move: MoveOut | None
    board: list[str] | None = Field(
        None, description="the board as read, new tiles included (board-text rows, top first)"
    )
    uncertain: list[UncertainOut]
    misreads: list[MisreadOut]
    invalid_words: list[str] = Field(
        default_factory=list,
        description="words of the move the dictionary lacks: a phony the others may challenge",
    )
    overlay_url: str | None = Field(description="null for a typed move")
    photo_url: str | None = Field(description="null for a typed move")


class GameOut(BaseModel):
    id: str
    variant: str
    players: list[str]
    options: OptionsOut
    layout: list[str] = Field(description="premium squares, rows of = - \" ' * + . characters")
    alphabet: list[str]
    rack_size: int
    board: list[str]
    turn: str | None
    totals: dict[str, int]
    moves: list[MoveOut]
    unseen: int
    bag: int
    finished: bool
    winners: list[str]
    pending: PendingOut | None
    head: int = Field(
        description="grows with every move, pass, exchange, challenge, undo or end and every "
        "photo turn recorded without one (the empty board), 0 before any; a photo sent with "
        "`after` set to the head the page knew tells a pass from a turn already recorded",
    )


class TurnOut(PendingOut):
    """A turn's outcome and the game after it."""

    game: GameOut


class FrameOut(BaseModel):
    """A table-camera frame's answer (DESIGN.md §6): what the camera sees and, when this frame
    made a turn (`committed`, `needs_review`), the turn's fields as a photo turn's, with the game."""

    status: Literal["no_board", "busy", "unchanged", "settling", "committed", "needs_review"]
    message: str
    corners: list[list[float]] | None = Field(
        None, description="the grid in the frame's pixels: top-left, top-right, bottom-right, "
        "bottom-left as seen",
    )  # fmt: skip
    changed: list[list[int]] = Field(
        default_factory=list,
        description="[row, col] of the grid as seen in the frame: squares unlike the last turn's",
    )
    events: int | None = Field(
        None, description="events in the game's log: a change means the sheet changed"
    )
    turn_id: str | None = None
    move: MoveOut | None = None
    board: list[str] | None = None
    uncertain: list[UncertainOut] = Field(default_factory=list)
    misreads: list[MisreadOut] = Field(default_factory=list)
    invalid_words: list[str] = Field(default_factory=list)
    overlay_url: str | None = None
    photo_url: str | None = None
    game: GameOut | None = None


class CreatedOut(BaseModel):
    id: str
    token: str
    game: GameOut


class GameSummaryOut(BaseModel):
    id: str
    variant: str
    players: list[str]
    created: str
    finished: bool
    totals: dict[str, int]


class GamesOut(BaseModel):
    games: list[GameSummaryOut]


class VariantOut(BaseModel):
    """A game variant as the page draws it (from `scorer.variant`)."""

    name: str
    title: str
    alphabet: list[str]
    layout: list[str]
    blank_name: str
    blank_symbol: str
    rack_size: int
    options: OptionsOut


class VariantsOut(BaseModel):
    variants: list[VariantOut]


Square = Annotated[str, Field(min_length=1, max_length=8, examples=["H8"])]
CellText = Annotated[str, Field(min_length=1, max_length=TILE_TEXT)]


class CorrectIn(BaseModel):
    cells: dict[Square, CellText] = Field(
        max_length=MAX_SQUARES,
        examples=[{"H8": "А", "I8": "."}],
        description="square → board-text character (`.` empty, `?` blank, lower case a blank's "
        "letter, a tile of several letters in brackets: `[CH]`)",
    )


class MoveIn(BaseModel):
    """A play typed in GCG notation."""

    position: str = Field(
        max_length=3, examples=["8H"], description="`8H` across (row first), `H8` down"
    )
    word: str = Field(
        min_length=1,
        max_length=25 * TILE_TEXT + 2,
        examples=["KOT"],
        description="the whole word, letters already on the board included; a blank's letter "
        "in lower case; a tile of several letters in brackets (`[CH]ICO`, `[ch]` a blank): "
        "CH unbracketed is a C and an H",
    )


class BlankIn(BaseModel):
    square: Square
    letter: str = Field(max_length=8, examples=["А"])


class ExchangeIn(BaseModel):
    count: int | None = Field(None, ge=1, le=MAX_RACK)
    tiles: Tiles | None = None
    instead_of_pass: bool = Field(
        False,
        description="the last turn, recorded as a pass (a photo of the unchanged board), was "
        "this exchange: the pass is undone and the exchange recorded for its player",
    )


class ChallengeIn(BaseModel):
    challenger: NamedPlayer
    valid: bool | None = Field(
        None, description="were the words valid? null: the game's dictionary decides"
    )


class EndIn(BaseModel):
    racks: dict[NamedPlayer, Tiles] = Field(
        max_length=MAX_PLAYERS, examples=[{"Аня": "", "Борис": "ЖЮ"}]
    )


class ReviewSummaryOut(BaseModel):
    """A table's photo waiting for the players' review."""

    turn_id: str
    message: str
    uncertain: int = Field(description="how many squares the players are asked about")


class TableOut(BaseModel):
    """One table of the evening as the director sees it (no token)."""

    id: str
    variant: str
    created: str
    players: list[str]
    totals: dict[str, int]
    turn: str | None = Field(description="whose turn it is; null once the game is over")
    moves: int
    last_move: MoveOut | None
    finished: bool
    winners: list[str]
    pending: ReviewSummaryOut | None
    sheet_url: str
    game_url: str


class EveningOut(BaseModel):
    """Every game of the evening."""

    since: str = Field(description="the evening's start (UTC, ISO 8601)")
    games: list[TableOut]
    pending_reviews: int
