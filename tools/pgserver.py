"""A throwaway PostgreSQL server for the tests and the benchmarks (dev only): Debian's
`postgresql` package (initdb and pg_ctl under /usr/lib/postgresql/*/bin) started in a temp dir,
on a free loopback port, with trust auth and fsync off. As root the server runs as the
`postgres` user (`runuser`), since PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


class PostgresUnavailable(RuntimeError):
    """PostgreSQL is not installed or could not be started here (the message says why)."""


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_postgres(args: list[str]) -> list[str]:
    """Root cannot run the server: run it as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


class TempPostgres:
    """A running server in its own data dir: `url` is `postgresql://postgres@127.0.0.1:PORT`
    (add `/DBNAME`); `stop()` (or leaving the `with` block) stops it and removes the folder.
    `max_connections`: the server's limit."""

    def __init__(self, max_connections: int = 100) -> None:
        bin_dir = postgres_bin()
        if bin_dir is None:
            raise PostgresUnavailable(
                "PostgreSQL is not installed (apt-get install postgresql): no initdb found"
            )
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            raise PostgresUnavailable(
                "running as root without runuser: cannot start PostgreSQL as `postgres`"
            )
        self._bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="scorekeeper-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self._data = self.root / "data"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            self._run("initdb", "-D", self._data, "-U", "postgres", "-A", "trust", "--no-sync")
            options = (
                f"-p {port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                f"-c max_connections={max_connections}"
            )
            self._run(
                "pg_ctl", "-D", self._data, "-o", options, "-l", self.root / "log", "-w", "start"
            )
        except subprocess.CalledProcessError as exc:
            shutil.rmtree(self.root, ignore_errors=True)
            reason = exc.stderr.decode(errors="replace").strip()
            raise PostgresUnavailable(f"PostgreSQL could not be started: {reason}") from exc
        self.url = f"postgresql://postgres@127.0.0.1:{port}"

    def _run(self, program: str, *args: object) -> None:
        subprocess.run(
            _as_postgres([str(self._bin / program), *map(str, args)]),
            check=True,
            capture_output=True,
            timeout=60,
        )

    def create_database(self, name: str) -> str:
        """Create database `name`; returns its URL."""
        import psycopg

        with psycopg.connect(f"{self.url}/postgres", autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return f"{self.url}/{name}"

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        subprocess.run(
            _as_postgres(
                [str(self._bin / "pg_ctl"), "-D", str(self._data), "-m", "immediate", "stop"]
            ),
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> TempPostgres:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
