"""Would a word-frequency prior settle look-alike letters? For every word played in the recorded
English games that the shipped list accepts, every one-letter look-alike misread that the list
accepts too (a doubt no yes/no list settles: CAT and COT) is weighed by wordfreq: a prior that
takes the common word (Zipf at least Z) over the rare one picks the played word, picks the
misread, or cannot tell (both common or both rare). Prints those counts per Zipf level.

    python benchmarks/bench_prior.py WORDFREQ_WHEEL [--shared ../shared]

(the wordfreq 3.1.1 wheel `tools/build_en_words.py` names; it needs `msgpack`). Tournament
players play many words that are rare in running text, so the prior is measured on their plays:
a look-alike could be settled by it only if it hardly ever picked the misread. It picks the
misread once for every two or four times it picks the played word, so the tracker asks instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench_lexicon import _sources, misreads  # noqa: E402 (a script's own folder is on its path)

from scorer.dictionary import Verdict, dictionary_for  # noqa: E402
from scorer.variant import load_variant  # noqa: E402
from tools.build_en_words import WORD, wordfreq_bands  # noqa: E402

LEVELS = (3.0, 3.5, 4.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wordfreq_wheel", type=Path)
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = parser.parse_args()
    english = load_variant("en")
    words = dictionary_for(english)
    played = _sources(args.shared).get("en")
    if played is None:
        print(f"no recorded English games under {args.shared}", file=sys.stderr)
        return 2
    zipf: dict[str, float] = {}
    for band, listed in enumerate(wordfreq_bands(args.wordfreq_wheel)):
        for word in listed:
            if WORD.fullmatch(word):
                zipf.setdefault(word.upper(), 9 - band / 100)
    letters = set(english.alphabet)
    pairs = [
        (word, wrong, count)
        for word, count in played.stood.items()
        if words.check(word).verdict is Verdict.VALID
        for wrong in misreads(word, letters)
        if words.check(wrong).verdict is Verdict.VALID
    ]
    total = sum(count for *_, count in pairs)
    print(f"{total} look-alike doubts between two listed words in the plays that stood")
    for level in LEVELS:
        right = wrong = 0
        for word, misread, count in pairs:
            common, other = zipf.get(word, 0) >= level, zipf.get(misread, 0) >= level
            right += count * (common and not other)
            wrong += count * (other and not common)
        print(
            f"  prior 'the word of Zipf {level} or more': picks the played word {right}, "
            f"the misread {wrong}, cannot tell {total - right - wrong}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
