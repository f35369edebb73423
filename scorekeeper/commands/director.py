"""`scorekeeper director-token`: make a director's token for the director's page (/director)."""

from __future__ import annotations

import argparse
from pathlib import Path

from server.storage import DB_FILE, DEFAULT_DATA_DIR


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `director-token`."""
    parser = subparsers.add_parser(
        "director-token",
        help="make a director's token for the page /director",
        description="Make a new director's token in the games' database and print it: it shows "
        "every game of the evening at /director (stored hashed; printed only now).",
    )
    parser.add_argument(
        "--db", default=None, help=f"SQLite file or postgresql:// URL (default DATA_DIR/{DB_FILE})"
    )
    parser.add_argument(
        "--data-dir",
        default=str(DEFAULT_DATA_DIR),
        help=f"where the default database is kept (default ./{DEFAULT_DATA_DIR})",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print a new director's token; 2 when the database cannot be opened."""
    from server.director import make_director_token
    from server.storage import StorageError, Store

    try:
        store = Store(args.db or str(Path(args.data_dir) / DB_FILE), args.data_dir)
    except StorageError as exc:
        print(f"scorekeeper director-token: {exc}")
        return 2
    try:
        print(make_director_token(store))
    finally:
        store.close()
    return 0
