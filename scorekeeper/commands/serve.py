"""`scorekeeper serve`: run the HTTP API and the phone page with uvicorn."""

from __future__ import annotations

import argparse
from pathlib import Path

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
        "--host",
        default=None,
        help="address to listen on (default 127.0.0.1; with --https 0.0.0.0, for the phones)",
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
    parser.add_argument(
        "--https",
        action="store_true",
        help="serve https with a self-signed certificate (kept in DATA_DIR/tls), as phones need "
        "for the table camera, and print the address to open",
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
    if not args.https:
        uvicorn.run(app, host=args.host or "127.0.0.1", port=args.port, log_level="info")
        return 0
    from server.tls import lan_address, self_signed

    host = args.host or "0.0.0.0"
    address = lan_address() if host in ("0.0.0.0", "::") else host
    cert, key = self_signed(Path(args.data_dir) / "tls", [address])
    print(f"scorekeeper: open https://{address}:{args.port}/ on the phones")
    print("  (the certificate is the server's own: each phone asks once to trust it)")
    uvicorn.run(
        app,
        host=host,
        port=args.port,
        log_level="info",
        ssl_certfile=str(cert),
        ssl_keyfile=str(key),
    )
    return 0
