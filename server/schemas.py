"""Pydantic models of every request and response body: the OpenAPI contract of /work/notes/API.md."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from scorer.variant import layout_names


class ErrorOut(BaseModel):
    """Every error: a stable code and a human-readable explanation."""

    error: str
    detail: str
    retry_with: str | None = Field(
        None,
        description="a field the request may be sent again with: `corners` after `no_board`",
    )


class OptionsIn(BaseModel):
    """House options (RULES.md §7), as in `scorer.variant.Options`."""

    blank_scores_letter: bool = False
    blank_swap: bool = False
    one_copy_of_word: bool = False
    finish_line: int = 0
    nine_tile_racks: bool = False
    tournament: bool = False
    challenge: Literal["double", "five_point"] = "double"
    challenge_bonus: int = Field(5, ge=0, description="points for a failed five-point challenge")


# Characters of a players' own variant file: a 25×25 layout and a hundred letters fit in 4 000.
MAX_VARIANT_FILE = 20_000


class CreateGameIn(BaseModel):
    """A shipped `variant` by name, or the players' own edition as a `variant_file`."""

    variant: str | None = Field(None, examples=["ru"], description="a shipped variant's name")
    variant_file: str | None = Field(
        None,
        max_length=MAX_VARIANT_FILE,
        description="instead of `variant`, the text of the players' own variant file: TOML as in "
        "scorer/data/variants/, its `layout` a shipped layout's name or its own rows of "
        "= - \" ' * + . (any rectangle, 5 to 25 squares a side); kept with the game",
    )
    players: list[str] = Field(min_length=2, max_length=4, examples=[["Аня", "Борис"]])
    options: OptionsIn = OptionsIn()
    layout: str | None = Field(None, description="a board layout other than the variant's own")

    @field_validator("layout")
    @classmethod
    def _known_layout(cls, layout: str | None) -> str | None:
        if layout is not None and layout not in layout_names():
            raise ValueError(f"unknown layout {layout!r}; known: {', '.join(layout_names())}")
        return layout

    dictionary: bool = True
    word_list: str | None = Field(None, description="a word list, one word a line")

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
    options: OptionsIn
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


class TurnOut(PendingOut):
    """A turn's outcome and the game after it."""

    game: GameOut


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
    options: OptionsIn


class VariantsOut(BaseModel):
    variants: list[VariantOut]


class CorrectIn(BaseModel):
    cells: dict[str, str] = Field(
        examples=[{"H8": "А", "I8": "."}],
        description="square → board-text character (`.` empty, `?` blank, lower case a blank's letter)",
    )


class MoveIn(BaseModel):
    """A play typed in GCG notation."""

    position: str = Field(
        max_length=3, examples=["8H"], description="`8H` across (row first), `H8` down"
    )
    word: str = Field(
        min_length=1,
        max_length=30,
        examples=["KOT"],
        description="the whole word, letters already on the board included; a blank's letter "
        "in lower case",
    )


class BlankIn(BaseModel):
    square: str = Field(examples=["H8"])
    letter: str = Field(examples=["А"])


class ExchangeIn(BaseModel):
    count: int | None = Field(None, ge=1)
    tiles: str | None = None


class ChallengeIn(BaseModel):
    challenger: str
    valid: bool | None = Field(
        None, description="were the words valid? null: the game's dictionary decides"
    )


class EndIn(BaseModel):
    racks: dict[str, str] = Field(examples=[{"Аня": "", "Борис": "ЖЮ"}])
