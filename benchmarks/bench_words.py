"""Word list benchmark for the German, French, Spanish and Polish editions: for each candidate
source, the share of real words it accepts and the share of look-alike misreads it lets pass.

    python benchmarks/bench_words.py WORDFREQ_WHEEL WNGERMAN_DEB WFRENCH_DEB WSPANISH_DEB WPOLISH_DEB

(the files `tools/build_words.py` names; the GPL lists `wngerman` and `wfrench` are measured
here but not shipped). Per language, 300 words of 2 to 8 letters are drawn (seeded) from the
Debian list and 300 from wordfreq's common words (Zipf 3 and up); each candidate's share of each
sample accepted is printed, a list checked on its own sample being 100 % by construction. Then
every one-letter look-alike misread of the Debian sample's words (I/L/T, E/F, B/R, C/G, O/Q,
V/Y, M/N, A/Ä, O/Ö, U/Ü, N/Ñ, and the Polish A/Ą, C/Ć, E/Ę, L/Ł, N/Ń, O/Ó, S/Ś, Z/Ź/Ż, both
ways, within the tile set) is looked up: the share accepted is how often a misread tile would
pass for a word (some misreads are words too, so no list reaches 0). The shipped list is
`tools/build_words.py`'s choice, measured last.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench_lexicon import misreads  # noqa: E402 (a script's own folder is on its path)

from scorer.variant import load_variant  # noqa: E402
from tools.build_words import (  # noqa: E402
    SHORT_PL,
    attested_words,
    debian_words,
    shipped_words,
    wordfreq_words,
)

SAMPLE = 300
ZIPF3 = {"short": 600, "long": 600}


def sample(words: set[str], rng: random.Random) -> list[str]:
    pool = sorted(w for w in words if 2 <= len(w) <= 8)
    return rng.sample(pool, min(SAMPLE, len(pool)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in ("wordfreq_wheel", "wngerman", "wfrench", "wspanish", "wpolish"):
        parser.add_argument(name, type=Path)
    args = parser.parse_args()
    debs = {"de": args.wngerman, "fr": args.wfrench, "es": args.wspanish, "pl": args.wpolish}
    shipped = shipped_words(args.wordfreq_wheel, args.wspanish, args.wpolish)
    print(
        f"{'lang':4} {'candidate':24} {'words':>9} {'Debian sample':>14} "
        f"{'wordfreq sample':>16} {'misreads passed':>16}"
    )
    for language, deb_path in debs.items():
        rng = random.Random(17)
        letters = set(load_variant(language).alphabet)
        debian = debian_words(deb_path, language)
        frequent = wordfreq_words(args.wordfreq_wheel, language)
        common = wordfreq_words(args.wordfreq_wheel, language, ZIPF3)
        attested = attested_words(args.wordfreq_wheel, language)
        candidates = {
            "Debian list": debian,
            "wordfreq Zipf 2 (3 short)": frequent,
            "wordfreq Zipf 3": common,
            "Debian + wordfreq": debian | frequent,
            "Debian in wordfreq (any)": debian & attested,
            f"Debian ≤{SHORT_PL} or in wordfreq": {
                w for w in debian if len(w) <= SHORT_PL or w in attested
            },
            "shipped": shipped[language],
        }
        from_debian, from_wordfreq = sample(debian, rng), sample(common, rng)
        wrong = [m for w in from_debian for m in misreads(w, letters)]
        for name, words in candidates.items():
            a = sum(w in words for w in from_debian) / len(from_debian)
            b = sum(w in words for w in from_wordfreq) / len(from_wordfreq)
            c = sum(m in words for m in wrong) / max(len(wrong), 1)
            print(
                f"{language:4} {name:24} {len(words):>9} {a:>13.1%} {b:>15.1%} {c:>15.1%}"
                f" (of {len(wrong)})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
