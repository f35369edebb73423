"""`scorekeeper serve`: run the HTTP API, the phone page and the director's page with uvicorn,
in one process or several workers (each its own app on the same database)."""

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
        "--workers",
        type=int,
        default=1,
        help="worker processes (default 1); several need a database they share: PostgreSQL, "
        "or SQLite on one machine",
    )
    parser.add_argument(
        "--no-director-token",
        action="store_true",
        help="do not make and print a director's token at start",
    )
    parser.add_argument(
        "--https",
        action="store_true",
        help="serve https with a self-signed certificate (kept in DATA_DIR/tls), as phones need "
        "for the table camera, and print the address to open",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Start the server; returns when it is stopped. The schema is created (or migrated) here
    first, so a database this version cannot use stops the command before any worker starts."""
    import os
    from pathlib import Path

    import uvicorn

    from server.app import APP_DATA_DIR_ENV, APP_DB_ENV
    from server.director import make_director_token
    from server.storage import StorageError, Store

    if args.workers < 1:
        print("scorekeeper serve: --workers must be at least 1")
        return 2
    db_url = args.db or str(Path(args.data_dir) / DB_FILE)
    try:
        store = Store(db_url, args.data_dir, pool_size=1)
        try:
            token = None if args.no_director_token else make_director_token(store)
        finally:
            store.close()
    except StorageError as exc:
        print(f"scorekeeper serve: {exc}")
        return 2
    host = args.host or ("0.0.0.0" if args.https else "127.0.0.1")
    tls: dict[str, str] = {}
    scheme, address = "http", host
    if args.https:
        from server.tls import lan_address, self_signed

        address = lan_address() if host in ("0.0.0.0", "::") else host
        cert, key = self_signed(Path(args.data_dir) / "tls", [address])
        tls = {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}
        scheme = "https"
        print(f"scorekeeper: open https://{address}:{args.port}/ on the phones", flush=True)
        print("  (the certificate is the server's own: each phone asks once to trust it)")
    if token is not None:
        print(
            f"director's page: {scheme}://{address}:{args.port}/director#token={token}", flush=True
        )
    os.environ[APP_DB_ENV] = db_url
    os.environ[APP_DATA_DIR_ENV] = args.data_dir
    uvicorn.run(
        "server.app:app_from_env",
        factory=True,
        host=host,
        port=args.port,
        workers=args.workers,
        log_level="info",
        **tls,
    )
    return 0
