"""Dictionary benchmark: how many of the words really played each variant's default dictionary
accepts, and which words it rejects.

    python benchmarks/bench_lexicon.py [--shared ../shared] [--variant V] [--lexicon WORDS.txt]

The words come from the recorded games in ../shared/gcg (English tournament and online games,
and one Polish game) and from the sample games' expected sheets in samples/ (en, de, ru,
erudit; there is no Ukrainian sample game). Every word a play formed
counts, main word and cross words, once per play. The words of a play that a challenge took off
the board are counted apart, as "challenged off": at least one of them is a phony, so rejecting
those is right. The figure that matters is for the plays that stood, which may still hold a
phony nobody challenged. The rejected words that the dictionary still finds attested in use
(`Dictionary.attested`: the English list's rarer words) are marked: a play of them read with
confidence is recorded without a question. Last, every one-letter look-alike misread of the
accepted words (I/L/T, E/F, B/R, ...) is looked up: how often a misread tile would pass for a
word, or for an attested one. And by word length, of the pairs of a word played and a look-alike
of it where the list holds one and lacks the other, how many times the word played is the one
the list lacks: the odds `scorer.tracking.Thresholds.unlisted` gives such a reading against the
list. `--lexicon` measures another word list for the chosen variant(s).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scorer.dictionary import Dictionary, Verdict, dictionary_for  # noqa: E402
from scorer.game import GameError, game_from_gcg  # noqa: E402
from scorer.gcg import GcgError, infer_variant, read_gcg_file  # noqa: E402
from scorer.sheet import sheet_dict  # noqa: E402
from scorer.variant import load_variant, variant_names  # noqa: E402

# Letters a cell reader takes for one another (bench_words measures the lists with them too).
LOOK_ALIKES = [
    "ILT", "EF", "BR", "CG", "OQ", "VY", "MN", "AÄ", "OÖ", "UÜ", "NÑ",
    "AĄ", "CĆ", "EĘ", "LŁ", "NŃ", "OÓ", "SŚ", "ZŹŻ",
]  # fmt: skip


def misreads(word: str, letters: set[str]) -> list[str]:
    """Every word one look-alike letter away from `word`, within the edition's `letters`."""
    found = []
    for i, ch in enumerate(word):
        for group in LOOK_ALIKES:
            if ch in group:
                found += [word[:i] + o + word[i + 1 :] for o in group if o != ch and o in letters]
    return found


@dataclass
class Played:
    """The words of one variant's games: per word, the plays that formed it and where."""

    games: list[str] = field(default_factory=list)
    stood: Counter[str] = field(default_factory=Counter)
    challenged_off: list[list[str]] = field(default_factory=list)
    sources: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def add_sheet(self, moves: list[dict], source: str) -> None:
        """Count a score sheet's plays; a withdrawn line takes back its player's last play."""
        plays: list[tuple[str, list[str]]] = []
        taken_back: set[int] = set()
        for move in moves:
            if move["kind"] == "play":
                plays.append((move["player"], [w["word"].upper() for w in move["words"]]))
            elif move["kind"] == "withdrawn":
                last = max(i for i, (player, _) in enumerate(plays) if player == move["player"])
                taken_back.add(last)
        for i, (_, words) in enumerate(plays):
            if i in taken_back:
                self.challenged_off.append(words)
                continue
            for word in words:
                self.stood[word] += 1
                self.sources[word].add(source)
        self.games.append(source)


def _sources(shared: Path) -> dict[str, Played]:
    played: dict[str, Played] = defaultdict(Played)
    for path in sorted((shared / "gcg").glob("*/*.gcg")):
        try:
            record = read_gcg_file(path)
            game = game_from_gcg(record, infer_variant(record))
        except (GcgError, GameError):
            continue  # a test position that breaks the rules; bench_replay skips it too
        played[game.variant.name].add_sheet(sheet_dict(game)["moves"], path.stem)
    for sheet_path in sorted((REPO / "samples").glob("*/expected_sheet.json")):
        sheet = json.loads(sheet_path.read_text(encoding="utf-8"))
        played[sheet["variant"]].add_sheet(sheet["moves"], sheet_path.parent.name)
    return played


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f} %" if whole else "-"


def _misread_share(dictionary: Dictionary, words: list[str], letters: set[str]) -> str:
    """How often a one-letter look-alike misread of `words` passes for a word, and for a word
    or an attested one."""
    wrong = [m for word in words for m in misreads(word, letters)]
    valid = [m for m in wrong if dictionary.check(m).verdict is Verdict.VALID]
    attested = sum(dictionary.attested(m) for m in wrong)
    line = (
        f"  look-alike misreads of the accepted words: {len(wrong)}, "
        f"{_percent(len(valid), len(wrong))} pass for a word"
    )
    if attested:
        line += f", {_percent(len(valid) + attested, len(wrong))} for a word or an attested one"
    return line


def _unlisted_pairs(dictionary: Dictionary, played: Played, letters: set[str]) -> str:
    """By word length, of the (word played, look-alike) pairs that the list splits, how many
    times the word played is the one it lacks."""
    valid = {}

    def listed(word: str) -> bool:
        if word not in valid:
            valid[word] = dictionary.check(word).verdict is Verdict.VALID
        return valid[word]

    lacked: Counter[int] = Counter()
    split: Counter[int] = Counter()
    for word, count in played.stood.items():
        bucket = min(len(word), 5)
        for other in misreads(word, letters):
            if listed(word) != listed(other):
                split[bucket] += count
                lacked[bucket] += count * (not listed(word))
    parts = [
        f"{'5+' if n == 5 else n} letters {lacked[n]}/{split[n]}" for n in sorted(split) if split[n]
    ]
    return "  look-alike pairs the list splits, the word played the one it lacks: " + (
        ", ".join(parts) or "-"
    )


def _report(name: str, dictionary: Dictionary, played: Played | None) -> None:
    if not dictionary.checks_words:
        print(f"{name}: no dictionary by default (words not checked)\n")
        return
    if played is None or not played.games:
        print(
            f"{name}: {dictionary.name} dictionary; no recorded or sample game to measure it on\n"
        )
        return
    start = time.perf_counter()
    words = set(played.stood).union(*played.challenged_off)
    verdicts = {w: dictionary.check(w).verdict for w in words}
    elapsed = time.perf_counter() - start
    rejected = sorted(w for w in played.stood if verdicts[w] is Verdict.INVALID)
    total, distinct = sum(played.stood.values()), len(played.stood)
    bad = sum(played.stood[w] for w in rejected)
    print(f"{name}: {dictionary.name} dictionary, {len(played.games)} games")
    print(
        f"  plays that stood formed {total} words, {total - bad} accepted "
        f"({_percent(total - bad, total)}); {distinct} distinct, {distinct - len(rejected)} "
        f"accepted ({_percent(distinct - len(rejected), distinct)}); {len(verdicts)} words "
        f"checked in {elapsed * 1000:.0f} ms, the list's loading included"
    )
    attested = [w for w in rejected if dictionary.attested(w)]
    if attested:
        found = sum(played.stood[w] for w in attested)
        print(
            f"  of the {bad} rejected, {found} ({len(attested)} distinct) are attested in use: "
            "recorded without a question when read with confidence"
        )
    for word in rejected:
        where = ", ".join(sorted(played.sources[word]))
        mark = " (attested)" if word in attested else ""
        print(f"    rejected {word} ×{played.stood[word]}{mark}: {where}")
    flagged = [
        words
        for words in played.challenged_off
        if any(verdicts[w] is Verdict.INVALID for w in words)
    ]
    missed = [" ".join(words) for words in played.challenged_off if words not in flagged]
    unasked = [
        " ".join(words)
        for words in flagged
        if all(verdicts[w] is not Verdict.INVALID or dictionary.attested(w) for w in words)
    ]
    print(
        f"  challenged off: {len(played.challenged_off)} plays, {len(flagged)} with a word "
        "rejected" + (f"; all words accepted in: {', '.join(missed)}" if missed else "")
    )
    if unasked:
        print(f"    of those, every rejected word attested in: {', '.join(unasked)}")
    accepted = sorted(w for w in played.stood if verdicts[w] is Verdict.VALID)
    letters = set(load_variant(name).alphabet)
    print(_misread_share(dictionary, accepted, letters))
    print(_unlisted_pairs(dictionary, played, letters))
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--variant", choices=variant_names(), help="only this variant")
    parser.add_argument("--lexicon", type=Path, help="measure this word list instead")
    args = parser.parse_args()
    if not (args.shared / "gcg").is_dir():
        print(f"no recorded games at {args.shared / 'gcg'}: sample games only", file=sys.stderr)
    played = _sources(args.shared)
    for name in [args.variant] if args.variant else variant_names():
        _report(name, dictionary_for(load_variant(name), args.lexicon), played.get(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
