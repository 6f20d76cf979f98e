"""The PostgreSQL database a deployment (``run_prod``) or a benchmark runs on, and a
PostgreSQL cluster of one's own that a benchmark or a test may stop and start again."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import socket
import subprocess
from pathlib import Path


def ensure_database(url: str, *, fresh: bool = False) -> None:
    """Create the database ``url`` names if missing (``fresh``: drop it first, so that
    nothing left over from an earlier run, e.g. a benchmark's matches still dealing
    hands, loads the new one)."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if fresh:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def server_programs() -> Path | None:
    """The folder of the newest installed PostgreSQL's server programs (Debian's
    ``/usr/lib/postgresql/<version>/bin``), or None when there is none."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_version)
    return Path(found[-1]).parent if found else None


def _version(path: str) -> float:
    number = Path(path).parent.parent.name
    return float(number) if number.replace(".", "").isdigit() else 0.0


class OwnPostgres:
    """A PostgreSQL cluster of its own (initdb into ``folder``, trust for local
    connections, no fsync) on a free port, that its owner may stop and start again;
    the machine's PostgreSQL is never touched. ``database`` is the one ``url`` names."""

    def __init__(self, folder: Path, *, database: str) -> None:
        programs = server_programs()
        if programs is None:
            raise RuntimeError("PostgreSQL's server programs are not installed")
        self.bin, self.folder, self.database = programs, folder, database
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.data, self.log = folder / "data", folder / "postgres.log"
        # initdb refuses root: root runs the cluster as the postgres user.
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            account = pwd.getpwnam("postgres")
            os.chown(folder, account.pw_uid, account.pw_gid)
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--no-sync",
        )  # fmt: skip

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{self.database}"

    def _run(self, program: str, *args: str) -> None:
        command = [*self.as_user, str(self.bin / program), *args]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{program} failed: {result.stderr or result.stdout}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        with contextlib.suppress(RuntimeError):  # already stopped
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
