"""Build scorer/data/words/{de,fr,es,pl}.txt.gz, the word lists the German, French, Spanish and
Polish editions check words with, from freely licensed sources (scorer/data/words/README.md gives
the licences and the measurements behind each choice, printed by benchmarks/bench_words.py):

- de, fr: wordfreq 3.1.1 (PyPI, data CC BY-SA 4.0), the words of its large list used at least
  once in ten million words (Zipf 2; Zipf 3 for words of two or three letters, where its rare
  entries are mostly fragments), as for English. Debian's `wngerman` and `wfrench` measure
  better but are GPL: players who accept that give them as their own list (`--lexicon
  /usr/share/dict/ngerman`).
- es: Debian's `wspanish` 1.0.30 (its word list is public domain), lower-case entries, with
  wordfreq's Spanish words of the same frequencies for the inflected forms it lacks.
- pl: Debian's `wpolish` 20220301-1, the sjp.pl spelling dictionary (GPL-2, LGPL-2.1, MPL-1.1,
  Apache-2.0 or CC BY 4.0, taken under CC BY 4.0), its lower-case entries of up to
  `SHORT_PL` letters and the longer ones that wordfreq's Polish list also holds at any
  frequency: all 3.3 million forms would be 8.4 MB of gzip, most of them long forms never
  played, while the short rare forms are what tournament games hold (KIŹ, ZGOŃ, OCLI).

Every list leaves out the words with no vowel letter (BZW, NJW, CD, NP, ZŁ): in these four
languages such a string is an abbreviation or a symbol (wordfreq's texts and sjp.pl's spelling
list hold thousands), never a game's word but for a few interjections (HM, PST, BRR), and with
them nearly every two letters made a word, so a misread letter in a two-letter crossword passed
unnoticed and the self-played benchmark games were made of them.

Each word is written as the edition's tiles spell it: upper case, the accents the edition
ignores taken off (French É as E, Spanish Á as A; Ñ, Ä Ö Ü and the Polish letters kept), German ß
as SS; a word with a letter the tile set lacks (Spanish K and W) is left out.

    apt-get download wngerman=20161207-11 wfrench=1.2.7-2 wspanish=1.0.30 wpolish=20220301-1
    pip download --no-deps wordfreq==3.1.1 && pip install msgpack
    python tools/build_words.py wordfreq-3.1.1-py3-none-any.whl wspanish_1.0.30_all.deb \\
        wpolish_20220301-1_all.deb

The output is the same bytes for the same inputs (sorted words, gzip without a timestamp).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import unicodedata
import zipfile
from functools import cache
from pathlib import Path

import msgpack

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scorer.variant import load_variant  # noqa: E402
from tools.build_en_words import deb_data  # noqa: E402

OUT = REPO / "scorer" / "data" / "words"
MAX_LETTERS = 15  # a board's side: no longer word can be played
SHORT_PL = 7  # a rack's tiles: Polish forms up to this length are all kept
# wordfreq's bands are centibels below frequency 1: band b holds Zipf 9 - b / 100.
MAX_BAND = {"short": 600, "long": 700}
# Letters an edition keeps as tiles of their own; every other accent is taken off.
KEPT = {"de": "ÄÖÜ", "fr": "", "es": "Ñ", "pl": "ĄĆĘŁŃÓŚŹŻ"}
# The vowel letters of each edition: a word needs one (`spoken`).
VOWELS = {"de": "AEIOUYÄÖÜ", "fr": "AEIOUY", "es": "AEIOUY", "pl": "AEIOUYĄĘÓ"}
DEBIAN_LISTS = {
    "de": "./usr/share/dict/ngerman",
    "fr": "./usr/share/dict/french",
    "es": "./usr/share/dict/spanish",
    "pl": "./usr/share/dict/polish",
}


def tile_spelling(word: str, language: str) -> str | None:
    """`word` as the edition's tiles spell it (upper case, ignored accents off, ß as SS), or None
    when a letter of it is not in the tile set or it is too short or long to play.

    >>> tile_spelling("Straße", "de"), tile_spelling("élève", "fr"), tile_spelling("kilo", "es")
    ('STRASSE', 'ELEVE', None)
    """
    kept = KEPT[language]
    out = []
    for ch in word.upper():
        if ch not in kept:
            ch = "".join(
                c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c)
            )
        out.append({"Œ": "OE", "Æ": "AE"}.get(ch, ch))
    spelled = "".join(out)
    if not 2 <= len(spelled) <= MAX_LETTERS or not set(spelled) <= _letters(language):
        return None
    return spelled


@cache
def _letters(language: str) -> frozenset[str]:
    return frozenset("".join(load_variant(language).alphabet))


def spelled_words(words: list[str], language: str) -> set[str]:
    """The words that the edition's tiles can spell, spelled so (`tile_spelling`)."""
    return {s for s in (tile_spelling(w, language) for w in words) if s is not None}


def debian_words(deb: Path, language: str) -> set[str]:
    """A Debian word list's entries, spelled as tiles. German keeps capitalised entries (every
    noun is one); the other languages keep lower-case entries only (capitalised ones are names)."""
    data = deb_data(deb)
    member = data.extractfile(DEBIAN_LISTS[language])
    if member is None:
        raise SystemExit(f"{deb}: no {DEBIAN_LISTS[language]}")
    lines = member.read().decode("utf-8").split()
    if language != "de":
        lines = [line for line in lines if line == line.lower()]
    return spelled_words(lines, language)


def wordfreq_bands(wheel: Path, language: str) -> list[list[str]]:
    """wordfreq's large list for `language`: one list of words per frequency band."""
    with zipfile.ZipFile(wheel) as archive:
        packed = gzip.decompress(archive.read(f"wordfreq/data/large_{language}.msgpack.gz"))
    header, *bands = msgpack.unpackb(packed)
    if header.get("format") != "cB":
        raise SystemExit(f"{wheel}: unexpected wordfreq data format {header}")
    return bands


def _plain(word: str) -> str:
    """`word` with the edition's own accented letters written without their marks (KÄSE → KASE)."""
    return "".join(
        c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c)
    ).upper()


def wordfreq_words(wheel: Path, language: str, max_band: dict[str, int] = MAX_BAND) -> set[str]:
    """The words of wordfreq's list frequent enough for their length, spelled as tiles.

    Texts typed without Ä or Ñ put words such as MADCHEN and NINO in the list; a word that is
    another word of the list with those marks taken off, and rarer than it, is left out (BAR
    stays beside BÄR, being the commoner): a misread Ä must not find it a word."""
    best: dict[str, int] = {}
    for band, words in enumerate(wordfreq_bands(wheel, language)):
        for word in words:
            spelled = tile_spelling(word, language)
            if spelled is not None and band <= max_band["short" if len(word) <= 3 else "long"]:
                best.setdefault(spelled, band)
    shadows = {
        _plain(word)
        for word, band in best.items()
        if _plain(word) != word and best.get(_plain(word), -1) > band
    }
    return set(best) - shadows


def attested_words(wheel: Path, language: str) -> set[str]:
    """Every lower-case word of wordfreq's list at any frequency, spelled as tiles."""
    every = [w for band in wordfreq_bands(wheel, language) for w in band if w == w.lower()]
    return spelled_words(every, language)


def polish_words(polish: Path, wheel: Path) -> set[str]:
    """sjp.pl's forms of up to `SHORT_PL` letters, and its longer ones wordfreq attests."""
    attested = attested_words(wheel, "pl")
    return {w for w in debian_words(polish, "pl") if len(w) <= SHORT_PL or w in attested}


def spoken(words: set[str], language: str) -> set[str]:
    """The words with a vowel letter of the edition: the others are abbreviations and symbols.

    >>> sorted(spoken({"BZW", "BEI", "HM", "ZŁ", "ŻÓŁW"}, "pl"))
    ['BEI', 'ŻÓŁW']
    """
    vowels = set(VOWELS[language])
    return {word for word in words if vowels & set(word)}


def shipped_words(wheel: Path, spanish: Path, polish: Path) -> dict[str, set[str]]:
    """Each language's shipped words, as the module docstring says."""
    words = {
        "de": wordfreq_words(wheel, "de"),
        "fr": wordfreq_words(wheel, "fr"),
        "es": debian_words(spanish, "es") | wordfreq_words(wheel, "es"),
        "pl": polish_words(polish, wheel),
    }
    return {language: spoken(listed, language) for language, listed in words.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wordfreq_wheel", type=Path)
    parser.add_argument("wspanish_deb", type=Path)
    parser.add_argument("wpolish_deb", type=Path)
    args = parser.parse_args()
    for language, words in shipped_words(
        args.wordfreq_wheel, args.wspanish_deb, args.wpolish_deb
    ).items():
        header = (
            f"# {language} word list for scorekeeper (tools/build_words.py); sources and "
            "licences in README.md.\n"
        )
        text = header + "\n".join(sorted(words)) + "\n"
        path = OUT / f"{language}.txt.gz"
        path.write_bytes(gzip.compress(text.encode("utf-8"), 9, mtime=0))
        print(f"{language}: {len(words)} words -> {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
