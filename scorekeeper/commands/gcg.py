"""`scorekeeper gcg`: rescore the plays of GCG game records (`check`) or print a final board (`show`).

Exit codes: 0 all good, 1 some recorded figure is not reproduced, 2 some input could not be read.
"""

from __future__ import annotations

import argparse
import sys

from scorer.gcg import GcgError, check_record, infer_variant, read_gcg_file
from scorer.variant import Variant, VariantError, load_variant


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `gcg check` and `gcg show`."""
    parser = subparsers.add_parser("gcg", help="GCG game records: rescore them or show the board")
    actions = parser.add_subparsers(dest="gcg_action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="rescore every play and compare with the recorded scores",
        description="Rescore every play of each GCG file from its placements and compare with "
        "the recorded scores, cumulative totals and end-of-game rack points. Prints each "
        "mismatch, then 'N files, M moves, K mismatches'.",
    )
    check.add_argument("files", nargs="+", metavar="FILE")
    show = actions.add_parser("show", help="print the board after the last move (board text)")
    show.add_argument("files", nargs=1, metavar="FILE")
    for action in (check, show):
        action.add_argument(
            "--variant",
            help="variant to score with (default: the file's #tile-distribution, else inferred "
            "from its letters, #lexicon and scores)",
        )
        action.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check or show the files; one line on stderr for each file that cannot be read."""
    try:
        chosen: Variant | None = load_variant(args.variant) if args.variant else None
    except VariantError as exc:
        print(f"scorekeeper gcg: {exc}", file=sys.stderr)
        return 2
    unreadable = False
    files = moves = mismatches = 0
    for path in args.files:
        try:
            record = read_gcg_file(path)
        except GcgError as exc:
            print(f"scorekeeper gcg: {exc}", file=sys.stderr)
            unreadable = True
            continue
        variant = chosen or infer_variant(record)
        result = check_record(record, variant)
        if args.gcg_action == "show":
            print(result.board.to_text())
            continue
        files += 1
        moves += result.plays
        mismatches += len(result.mismatches)
        for mismatch in result.mismatches:
            print(f"{path}:{mismatch.line}: {mismatch} (scored as {variant.name})")
    if args.gcg_action == "check":
        print(f"{files} files, {moves} moves, {mismatches} mismatches")
    if unreadable:
        return 2
    return 1 if mismatches else 0
