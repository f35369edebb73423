"""`scorekeeper` entry point: parses the command line and dispatches to a subcommand module.

Subcommand modules are imported lazily so that `scorekeeper gcg check` does not load OpenCV or
onnxruntime, and a failure in one command's dependencies cannot break the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# subcommand name -> module under scorekeeper.commands
COMMANDS: dict[str, str] = {
    "director-token": "director",
    "gcg": "gcg",
    "read": "read",
    "replay": "replay",
    "serve": "serve",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scorekeeper",
        description="Camera-based scorekeeper for Scrabble, Скрэббл and Эрудит.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in COMMANDS.values():
        try:
            module = importlib.import_module(f"scorekeeper.commands.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"scorekeeper.commands.{module_name}":
                raise
            continue
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
