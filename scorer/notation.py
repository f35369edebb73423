"""How tiles are written in text: one character per tile, a multi-letter tile in brackets.

Some editions print two letters on one tile (Spanish CH, LL, RR). One square holds one tile, so
wherever tiles are written one after another (board text rows, GCG words and racks, typed moves,
the words of a play, a word list's keys) a multi-letter tile is written in square brackets,
`[CH]`, and lower case for a blank standing for it, `[ch]`; a single-letter tile is its letter, as
before. `CH` unbracketed is two tiles, a C and an H, and never the CH tile. This is the notation of
the Spanish tables of Macondo/MAGPIE and wolges (Woogles), `[CH]`, `[LL]`, `[RR]`.

Hand-written: a dozen lines of bracket splitting, which no maintained library does for this
notation.
"""

from __future__ import annotations

from collections.abc import Iterable

OPEN, CLOSE = "[", "]"


class NotationError(ValueError):
    """Text whose brackets do not make whole tiles."""


def tile_text(letter: str) -> str:
    """How one tile's letter is written: itself, or in brackets when it has several letters
    (the case is kept: `[ch]` is a blank standing for CH).

    >>> tile_text("A"), tile_text("CH"), tile_text("ch")
    ('A', '[CH]', '[ch]')
    """
    return letter if len(letter) == 1 else f"{OPEN}{letter}{CLOSE}"


def spell(letters: Iterable[str]) -> str:
    """Tiles' letters written one after another.

    >>> spell(["CH", "I", "C", "O"])
    '[CH]ICO'
    """
    return "".join(tile_text(letter) for letter in letters)


def split_tiles(text: str) -> list[str]:
    """The tiles of `text` as written, one token per tile: a character, or a bracketed group.

    >>> split_tiles("[CH]I(C)o.")
    ['[CH]', 'I', '(', 'C', ')', 'o', '.']
    >>> split_tiles("A[CH")
    Traceback (most recent call last):
    scorer.notation.NotationError: unclosed '[' in 'A[CH'
    """
    tokens: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == OPEN:
            end = text.find(CLOSE, i + 1)
            if end < 0:
                raise NotationError(f"unclosed '[' in {text!r}")
            inner = text[i + 1 : end]
            if len(inner) < 2 or not inner.isalpha() or OPEN in inner:
                raise NotationError(
                    f"{text[i : end + 1]!r} in {text!r}: brackets hold a tile of 2 or more letters"
                )
            tokens.append(text[i : end + 1])
            i = end + 1
        elif ch == CLOSE:
            raise NotationError(f"']' without '[' in {text!r}")
        else:
            tokens.append(ch)
            i += 1
    return tokens


def unbracket(token: str) -> str:
    """A token's letter(s) without the brackets.

    >>> unbracket("[CH]"), unbracket("A")
    ('CH', 'A')
    """
    return token[1:-1] if token.startswith(OPEN) and len(token) > 2 else token


def letters_of(text: str) -> list[str]:
    """The tiles' letters of `text`, brackets taken off: `[CH]a` → `['CH', 'a']`."""
    return [unbracket(token) for token in split_tiles(text)]


def tile_count(text: str) -> int:
    """How many tiles `text` writes.

    >>> tile_count("[RR]A"), len("[RR]A")
    (2, 5)
    """
    return len(split_tiles(text))


def tiles_of_word(word: str, multi: Iterable[str]) -> str:
    """A word as written in ordinary spelling (`chico`) turned into tile notation (`[CH]ICO`,
    upper case), each of the multi-letter tiles `multi` taken wherever its letters stand, the
    longest first. In editions with such tiles a C followed by an H is always played as CH (FISE
    rules), so a word list in ordinary spelling says which tiles spell each word. Text already in
    brackets is kept as it is.

    >>> tiles_of_word("Chorrillo", ["CH", "LL", "RR"])
    '[CH]O[RR]I[LL]O'
    """
    upper = word.upper()
    groups = sorted({m.upper() for m in multi if len(m) > 1}, key=len, reverse=True)
    if not groups or OPEN in upper:
        return upper
    out: list[str] = []
    i = 0
    while i < len(upper):
        found = next((g for g in groups if upper.startswith(g, i)), None)
        if found:
            out.append(tile_text(found))
            i += len(found)
        else:
            out.append(upper[i])
            i += 1
    return "".join(out)
