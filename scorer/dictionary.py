"""Word checking behind one small interface (RULES.md §5), and naming unknown blanks from the words.

A `Dictionary` answers valid / invalid / not checked for one word. Russian, Эрудит and Ukrainian
use pymorphy3's dictionaries (loaded lazily, once per process per language); English uses the word
list shipped in `data/words/` (built by tools/build_en_words.py) unless the players give their
own. `dictionary_for` picks one from the variant's `dictionary` field.
"""

from __future__ import annotations

import gzip
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache
from pathlib import Path

import pymorphy3
from pymorphy3.tagset import OpencorporaTag
from pymorphy3.units import DictionaryAnalyzer

from scorer.board import UNKNOWN_BLANK, Board, Square
from scorer.notation import CLOSE, OPEN, spell, tiles_of_word
from scorer.variant import Variant


class DictionaryError(ValueError):
    """A dictionary that cannot be used: unknown kind, missing or unreadable word list."""


class Verdict(StrEnum):
    """What a dictionary says about a word (stable strings for the CLI and the API)."""

    VALID = "valid"
    INVALID = "invalid"
    NOT_CHECKED = "not_checked"


@dataclass(frozen=True)
class WordVerdict:
    """A dictionary's answer for one word, with a short reason a player can read."""

    word: str
    verdict: Verdict
    reason: str

    @property
    def is_valid(self) -> bool | None:
        """True or False, or None when the word was not checked."""
        if self.verdict is Verdict.NOT_CHECKED:
            return None
        return self.verdict is Verdict.VALID


class Dictionary(ABC):
    """Checks single words; `name` says which dictionary answered.

    >>> from scorer.variant import load_variant
    >>> d = dictionary_for(load_variant("ru"))
    >>> d.check("ЁЖ").verdict, d.is_valid("ЩЫРБАК")
    (<Verdict.VALID: 'valid'>, False)
    """

    name: str

    @property
    def checks_words(self) -> bool:
        """Whether this dictionary gives verdicts at all (False: every word is "not checked")."""
        return True

    @abstractmethod
    def check(self, word: str) -> WordVerdict:
        """The verdict on `word` (any letter case)."""

    def is_valid(self, word: str) -> bool | None:
        """True or False, or None when this dictionary does not check words."""
        return self.check(word).is_valid

    def attested(self, word: str) -> bool:
        """Whether `word`, which the dictionary lacks, is still attested in use (a rarer word of
        the language's frequency list): too rare to settle a doubtful letter with, but a sign
        that a word read with confidence was really played. None are, unless a list says so."""
        return False


def _equivalence_table(equivalent_letters: Iterable[Iterable[str]]) -> dict[int, str]:
    """A `str.translate` table sending each letter of a group (upper or lower case) to the first."""
    table: dict[int, str] = {}
    for group in equivalent_letters:
        first, *others = list(group)
        for letter in others:
            table[ord(letter.upper())] = first.upper()
            table[ord(letter.lower())] = first.lower()
    return table


@cache
def morph_analyzer(language: str) -> pymorphy3.MorphAnalyzer:
    """The pymorphy3 analyzer for `language` ("ru", "uk"), created on first use, once per process."""
    return pymorphy3.MorphAnalyzer(lang=language)


# Tags (OpenCorpora grammemes) that keep a word form out of every game.
_EXCLUDED: dict[str, str] = {
    "Abbr": "an abbreviation",
    "Name": "a first name",
    "Surn": "a surname",
    "Patr": "a patronymic",
    "Geox": "a place name",
    "Orgn": "an organisation name",
    "Trad": "a trademark",
    "Init": "an initial",
    "Erro": "a misspelling",
    "Dist": "a distorted form",
}

# How `nominative_noun` names the parts of speech it rejects.
_PART_OF_SPEECH: dict[str, str] = {
    "VERB": "a verb form",
    "INFN": "a verb (infinitive)",
    "ADJF": "an adjective",
    "ADJS": "an adjective (short form)",
    "COMP": "a comparative",
    "PRTF": "a participle",
    "PRTS": "a participle (short form)",
    "GRND": "a gerund",
    "ADVB": "an adverb",
    "NUMR": "a numeral",
    "NPRO": "a pronoun",
    "PRED": "a predicative",
    "PREP": "a preposition",
    "CONJ": "a conjunction",
    "PRCL": "a particle",
    "INTJ": "an interjection",
}

TagRule = Callable[[OpencorporaTag], str | None]


def any_word_form(tag: OpencorporaTag) -> str | None:
    """Скрэббл's rule: any form of a common word. Returns why not, or None when allowed."""
    for grammeme, reason in _EXCLUDED.items():
        if grammeme in tag.grammemes:
            return reason
    return None


def nominative_noun(tag: OpencorporaTag) -> str | None:
    """Эрудит's rule: a common noun, nominative singular (plural only for plural-only nouns)."""
    excluded = any_word_form(tag)
    if excluded:
        return excluded
    if tag.POS != "NOUN":
        return f"{_PART_OF_SPEECH.get(str(tag.POS), str(tag.POS))}, not a noun"
    if "nomn" not in tag.grammemes:
        return "a noun not in the nominative case"
    if "plur" in tag.grammemes and "Pltm" not in tag.grammemes:
        return "a plural of a noun that has a singular"
    return None


class MorphDictionary(Dictionary):
    """A pymorphy3 dictionary: a word is valid when one of its dictionary forms passes `rule`.

    Words pymorphy3 only guesses (it predicts forms of unknown words) are invalid, and so are
    words with a character outside `letters` (hyphens, apostrophes where the alphabet has none).
    Letters in one `equivalent_letters` group (Е, Ё) are interchangeable.
    """

    def __init__(
        self,
        name: str,
        language: str,
        rule: TagRule,
        letters: Iterable[str] | None = None,
        equivalent_letters: Iterable[Iterable[str]] = (),
    ) -> None:
        self.name = name
        self.language = language
        self.rule = rule
        self._table = _equivalence_table(equivalent_letters)
        self._letters = (
            None if letters is None else {c.upper().translate(self._table) for c in letters}
        )

    def _bad_character(self, word: str) -> str | None:
        for ch in word:
            allowed = ch.isalpha() if self._letters is None else ch in self._letters
            if not allowed:
                return ch
        return None

    def check(self, word: str) -> WordVerdict:
        """The verdict on `word`, with the lemma or the reason it is not allowed."""
        key = word.upper().translate(self._table)
        if not key:
            return WordVerdict(word, Verdict.INVALID, "empty word")
        bad = self._bad_character(key)
        if bad is not None:
            return WordVerdict(word, Verdict.INVALID, f"{bad!r} is not a letter of the alphabet")
        morph = morph_analyzer(self.language)
        # Ё was turned into Е above; pymorphy3's own е→ё substitution then finds the word however
        # the dictionary spells it. `word_is_known` is a plain lookup (microseconds): parsing an
        # unknown word would run pymorphy3's slow guessers for nothing.
        if not morph.word_is_known(key.lower()):
            return WordVerdict(word, Verdict.INVALID, f"not in the {self.name} dictionary")
        reasons = []
        for parse in morph.parse(key.lower()):
            if len(parse.methods_stack) != 1 or not isinstance(
                parse.methods_stack[0][0], DictionaryAnalyzer
            ):
                continue
            reason = self.rule(parse.tag)
            if reason is None:
                lemma = parse.normal_form.upper()
                found = "a word" if lemma.translate(self._table) == key else f"a form of {lemma}"
                return WordVerdict(word, Verdict.VALID, f"{found} in the {self.name} dictionary")
            reasons.append(reason)
        why = reasons[0] if reasons else f"not in the {self.name} dictionary"
        return WordVerdict(word, Verdict.INVALID, why)


# The word lists shipped with the package.
WORD_LISTS = Path(__file__).parent / "data" / "words"


@lru_cache(maxsize=8)
def _read_word_list(
    path: Path, stamp: tuple[int, int], multi_letter: tuple[str, ...] = ()
) -> frozenset[str]:
    """The upper-cased first words of a list's lines, read once per file version (`stamp`: its
    mtime and size): the service builds a dictionary per request, and a list of 400,000 words
    takes a few tenths of a second to read. With `multi_letter` tiles, each word is keyed by its
    tiles (`tiles_of_word`)."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8-sig") as handle:
                text = handle.read()
        else:
            text = path.read_text(encoding="utf-8-sig")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DictionaryError(f"word list {str(path)!r} cannot be read: {exc}") from exc
    words = (
        line.split()[0].upper()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )
    if multi_letter:
        return frozenset(tiles_of_word(word, multi_letter) for word in words)
    return frozenset(words)


# A players' own list: the shipped English one (464,437 words of at most 45 letters) fits.
MAX_LIST_WORDS = 1_000_000
MAX_WORD_LETTERS = 64


def list_words(text: str) -> list[tuple[int, str]]:
    r"""The words of a word list's text with their line numbers: each line's first word, blank
    lines, `#` lines and a byte-order mark left out (as `WordListDictionary` reads a file).

    >>> list_words("# mine\ncat a small feline\n\nDOG\n")
    [(2, 'cat'), (4, 'DOG')]
    """
    return [
        (number, line.split()[0])
        for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def check_word_list(text: str, variant: Variant) -> int:
    r"""How many words the players' own list holds; raises `DictionaryError` naming the first line
    that breaks a limit: over `MAX_LIST_WORDS` words, a word over `MAX_WORD_LETTERS` letters, or
    a character that is no letter of `variant` (an equivalent letter, Ё for Е, is one).

    >>> from scorer.variant import load_variant
    >>> check_word_list("cat\ndog\n", load_variant("en"))
    2
    >>> check_word_list("cat\ndon't\n", load_variant("en"))
    Traceback (most recent call last):
    scorer.dictionary.DictionaryError: word list line 2: DON'T holds "'", not a letter of Scrabble (English)
    """
    words = list_words(text)
    if len(words) > MAX_LIST_WORDS:
        raise DictionaryError(f"the word list has {len(words)} words, over {MAX_LIST_WORDS}")
    # Words in ordinary spelling (CHICO) or with multi-letter tiles in brackets ([CH]ICO).
    letters = set("".join(variant.alphabet))
    letters |= {other for group in variant.equivalent_letters for other in group}
    if variant.multi_letter:
        letters |= {OPEN, CLOSE}
    longest = max((len(word) for _, word in words), default=0)
    if longest <= MAX_WORD_LETTERS and set("".join(w for _, w in words).upper()) <= letters:
        return len(words)  # the common case, checked at once
    for number, word in words:
        if len(word) > MAX_WORD_LETTERS:
            raise DictionaryError(
                f"word list line {number}: a word of {len(word)} letters, over {MAX_WORD_LETTERS}"
            )
        foreign = sorted(set(word.upper()) - letters)
        if foreign:
            raise DictionaryError(
                f'word list line {number}: {word.upper()} holds "{foreign[0]}", '
                f"not a letter of {variant.title}"
            )
    return len(words)


class WordListDictionary(Dictionary):
    """A word list: one word a line, any case; blank lines and `#` lines ignored; `.gz` files are
    read through gzip.

    The file is read on the first check (and once per process while it is unchanged). Only a
    line's first word counts, so lists that carry a definition after the word work too. With no
    file, every word is "not checked". `label` names the list in the verdicts' reasons.

    `attested`: a second list, of words attested in use that are too rare for the first
    (`Dictionary.attested`), read on the first question about one.

    `multi_letter` are the edition's tiles of several letters (Spanish CH, LL, RR): the list's
    words, in ordinary spelling, are then keyed by their tiles (`CHICO` as `[CH]ICO`,
    `scorer.notation.tiles_of_word`), and the words checked are written in that notation, so a
    C and an H played side by side never pass for the CH tile.
    """

    def __init__(
        self,
        path: str | Path | None,
        equivalent_letters: Iterable[Iterable[str]] = (),
        name: str = "wordlist",
        label: str | None = None,
        multi_letter: Iterable[str] = (),
        attested: str | Path | None = None,
    ) -> None:
        self.path = None if path is None else Path(path)
        self._attested = None if attested is None else Path(attested)
        if self._attested is not None and not self._attested.is_file():
            raise DictionaryError(f"word list {str(self._attested)!r} is not a readable file")
        if self.path is not None and not self.path.is_file():
            raise DictionaryError(f"word list {str(self.path)!r} is not a readable file")
        self.name = name
        self.label = label or (f"the word list {self.path.name}" if self.path else "")
        self._table = _equivalence_table(equivalent_letters)
        self._multi = tuple(multi_letter)
        self._words: frozenset[str] | None = None

    @property
    def checks_words(self) -> bool:
        return self.path is not None

    def _key(self, word: str) -> str:
        return word.strip().upper().translate(self._table)

    def _load(self) -> frozenset[str]:
        assert self.path is not None
        try:
            stat = self.path.stat()
        except OSError as exc:
            raise DictionaryError(f"word list {str(self.path)!r} cannot be read: {exc}") from exc
        stamp = (stat.st_mtime_ns, stat.st_size)
        words = _read_word_list(self.path.resolve(), stamp, self._multi)
        return frozenset(w.translate(self._table) for w in words) if self._table else words

    def words(self) -> frozenset[str]:
        """Every word the list holds, upper case, in tile notation (`[CH]ICO`), equivalent
        letters as their group's first; empty without a list."""
        if self.path is None:
            return frozenset()
        if self._words is None:
            self._words = self._load()
        return self._words

    def check(self, word: str) -> WordVerdict:
        """Valid when the list holds `word` (case-insensitive); not checked without a list."""
        if self.path is None:
            return WordVerdict(word, Verdict.NOT_CHECKED, "no word list given: words not checked")
        if self._key(word) in self.words():
            return WordVerdict(word, Verdict.VALID, f"in {self.label}")
        return WordVerdict(word, Verdict.INVALID, f"not in {self.label}")

    def attested(self, word: str) -> bool:
        """Whether the `attested` list holds `word` (the list itself lacking it)."""
        if self._attested is None or self.path is None or self._key(word) in self.words():
            return False
        stat = self._attested.stat()
        words = _read_word_list(self._attested.resolve(), (stat.st_mtime_ns, stat.st_size), ())
        if self._table:
            words = frozenset(w.translate(self._table) for w in words)
        return self._key(word) in words


class NullDictionary(Dictionary):
    """The dictionary of a game that plays without checking words."""

    name = "off"

    @property
    def checks_words(self) -> bool:
        return False

    def check(self, word: str) -> WordVerdict:
        """Always "not checked"."""
        return WordVerdict(word, Verdict.NOT_CHECKED, "word check switched off for this game")


def _morph(language: str, rule: TagRule) -> Callable[[Variant], Dictionary]:
    def build(variant: Variant) -> Dictionary:
        return MorphDictionary(
            variant.dictionary, language, rule, variant.alphabet, variant.equivalent_letters
        )

    return build


def _shipped_list(language: str, title: str) -> Callable[[Variant], Dictionary]:
    """A shipped word list `data/words/<language>.txt.gz` (see its README for sources)."""

    def build(variant: Variant) -> Dictionary:
        return WordListDictionary(
            WORD_LISTS / f"{language}.txt.gz",
            variant.equivalent_letters,
            language,
            f"the {title} word list",
            variant.multi_letter,
        )

    return build


# The dictionaries a variant file may name in its `dictionary` field.
_DICTIONARIES: dict[str, Callable[[Variant], Dictionary]] = {
    "ru": _morph("ru", any_word_form),
    "erudit": _morph("ru", nominative_noun),
    "uk": _morph("uk", any_word_form),
    "en": lambda variant: WordListDictionary(
        WORD_LISTS / "en.txt.gz",
        variant.equivalent_letters,
        "en",
        "the English word list",
        attested=WORD_LISTS / "en-attested.txt.gz",
    ),
    "wordlist": lambda variant: WordListDictionary(None, variant.equivalent_letters),
    **{
        language: _shipped_list(language, title)
        for language, title in (
            ("de", "German"),
            ("fr", "French"),
            ("es", "Spanish"),
            ("pl", "Polish"),
        )
    },
}


def dictionary_for(
    variant: Variant, word_list: str | Path | None = None, enabled: bool = True
) -> Dictionary:
    """The dictionary a game of `variant` checks words with.

    A `word_list` file, when given, is used whatever the variant (the players' own list wins);
    `enabled=False` gives a dictionary that checks nothing. Creating one is cheap: pymorphy3
    and word lists load on the first check.

    >>> from scorer.variant import load_variant
    >>> dictionary_for(load_variant("erudit")).is_valid("НОЖНИЦЫ")
    True
    """
    if not enabled:
        return NullDictionary()
    if word_list is not None:
        return WordListDictionary(
            word_list, variant.equivalent_letters, multi_letter=variant.multi_letter
        )
    try:
        build = _DICTIONARIES[variant.dictionary]
    except KeyError:
        known = ", ".join(sorted(_DICTIONARIES))
        raise DictionaryError(
            f"variant {variant.name!r} names an unknown dictionary {variant.dictionary!r}; "
            f"known: {known}"
        ) from None
    return build(variant)


def unknown_blanks(board: Board) -> list[Square]:
    """The squares holding a blank whose letter is not known yet (`?`), row by row."""
    return [square for square, tile in board.tiles() if tile.letter == UNKNOWN_BLANK]


def _words_through(board: Board, square: Square) -> list[tuple[Square, ...]]:
    runs = (board.run_through(square, across) for across in (True, False))
    return [run for run in runs if len(run) > 1]


def blank_assignments(
    board: Board, variant: Variant, dictionary: Dictionary, squares: Iterable[Square] | None = None
) -> list[dict[Square, str]]:
    """Every way to give the unknown blanks at `squares` letters so that each word through them
    is not invalid (a word the dictionary does not check rules nothing out).

    `squares` defaults to every `?` on the board. A word that also runs through an unknown blank
    outside `squares` cannot be spelled yet and rules nothing out. Letters come from
    `variant.alphabet`, in its order; about alphabet² lookups for two blanks in one word.

    >>> from scorer.variant import load_variant
    >>> ru = load_variant("ru")
    >>> [a[0, 1] + a[0, 2] for a in blank_assignments(Board.from_rows(["Ё??К"]), ru, dictionary_for(ru))]
    ['ДО', 'ЖИ', 'ЛО', 'МО', 'РИ']
    """
    order = sorted(unknown_blanks(board) if squares is None else set(squares))
    for square in order:
        tile = board[square]
        if tile is None or tile.letter != UNKNOWN_BLANK:
            raise ValueError(f"square {square} does not hold an unknown blank")
    step = {square: i for i, square in enumerate(order)}
    others = set(unknown_blanks(board)) - set(order)
    # Each word is checked once, at the step that assigns the last unknown blank in it.
    checks: list[list[tuple[Square, ...]]] = [[] for _ in order]
    for square in order:
        for run in _words_through(board, square):
            if others.isdisjoint(run):
                last = max(step[s] for s in run if s in step)
                if run not in checks[last]:
                    checks[last].append(run)
    verdicts: dict[str, bool] = {}

    def allowed(word: str) -> bool:
        if word not in verdicts:
            verdicts[word] = dictionary.check(word).verdict is not Verdict.INVALID
        return verdicts[word]

    def spelled(run: tuple[Square, ...], letters: dict[Square, str]) -> str:
        return spell(letters.get(s) or board[s].letter for s in run)  # type: ignore[union-attr]

    found: list[dict[Square, str]] = []

    def extend(i: int, letters: dict[Square, str]) -> None:
        if i == len(order):
            found.append(dict(letters))
            return
        for letter in variant.alphabet:
            letters[order[i]] = letter
            if all(allowed(spelled(run, letters)) for run in checks[i]):
                extend(i + 1, letters)
        del letters[order[i]]

    extend(0, {})
    return found


def blank_candidates(
    board: Board, variant: Variant, dictionary: Dictionary
) -> dict[Square, list[str]]:
    """For each unknown blank (`?`) on the board, the letters it can stand for so that every word
    through it can be valid (blanks sharing a word are solved together).

    >>> from scorer.variant import load_variant
    >>> ru = load_variant("ru")
    >>> blank_candidates(Board.from_rows(["ЁЖ?К"]), ru, dictionary_for(ru))
    {(0, 2): ['И']}
    """
    groups = _linked_blanks(board)
    candidates: dict[Square, list[str]] = {}
    for group in groups:
        assignments = blank_assignments(board, variant, dictionary, group)
        for square in group:
            seen = {a[square] for a in assignments}
            candidates[square] = [letter for letter in variant.alphabet if letter in seen]
    return dict(sorted(candidates.items()))


def _linked_blanks(board: Board) -> list[list[Square]]:
    """The unknown blanks grouped so that blanks sharing a word are in one group."""
    blanks = unknown_blanks(board)
    group_of = {square: i for i, square in enumerate(blanks)}
    for square in blanks:
        for run in _words_through(board, square):
            linked = [s for s in run if s in group_of]
            merged = min(group_of[s] for s in linked)
            old = {group_of[s] for s in linked}
            for s in group_of:
                if group_of[s] in old:
                    group_of[s] = merged
    groups = sorted(set(group_of.values()))
    return [[s for s in blanks if group_of[s] == g] for g in groups]
