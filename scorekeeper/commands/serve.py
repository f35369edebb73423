"""`scorekeeper serve`: run the HTTP API and the phone page with uvicorn."""

from __future__ import annotations

import argparse

from server.storage import DB_FILE, DEFAULT_DATA_DIR


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `serve`."""
    parser = subparsers.add_parser(
        "serve",
        help="run the scorekeeper web service",
        description="Serve the HTTP API and the phone page. Games are kept in a SQLite file "
        f"(default ./{DEFAULT_DATA_DIR}/{DB_FILE}) or a PostgreSQL database (--db "
        "postgresql://...); photos are kept under the data directory.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--db",
        default=None,
        help=f"SQLite file or postgresql:// URL (default DATA_DIR/{DB_FILE})",
    )
    parser.add_argument(
        "--data-dir",
        default=str(DEFAULT_DATA_DIR),
        help=f"where photos (and the default database) are kept (default ./{DEFAULT_DATA_DIR})",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Start the server; returns when it is stopped."""
    import uvicorn

    from server.app import create_app
    from server.storage import StorageError

    try:
        app = create_app(db_url=args.db, data_dir=args.data_dir)
    except StorageError as exc:
        print(f"scorekeeper serve: {exc}")
        return 2
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return 0
