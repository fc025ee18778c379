"""A throwaway PostgreSQL cluster for tests: `initdb` + `pg_ctl` on a Unix socket in a temp dir.

The server binaries come from Debian's `postgresql` package (`/usr/lib/postgresql/*/bin`, or
PATH); `.ci/run` installs it when missing. initdb refuses to run as root, so as root the cluster
runs as the package's `postgres` user (else `nobody`), owning its temp dir.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def server_binaries() -> Path | None:
    """The directory holding initdb and pg_ctl (the newest version installed), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3].split(".")[0])
    )
    return Path(candidates[-1]).parent if candidates else None


def _run_as() -> list[str]:
    """How to run a command as an unprivileged user when we are root (initdb refuses root)."""
    if os.geteuid() != 0:
        return []
    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        return ["runuser", "-u", user, "--"]
    raise RuntimeError("running as root, and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL")


@contextmanager
def postgres_cluster(binaries: Path) -> Iterator[str]:
    """A running cluster; yields its URL (user postgres, trust auth, Unix socket only). Stopped afterwards."""
    root = Path(tempfile.mkdtemp(prefix="negotiation-pg-"))
    data, log = root / "data", root / "server.log"
    as_user = _run_as()
    if as_user:
        owner = pwd.getpwnam(as_user[2])
        os.chown(root, owner.pw_uid, owner.pw_gid)
    quiet = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True, "cwd": root}
    try:
        subprocess.run(
            [
                *as_user,
                str(binaries / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            **quiet,  # type: ignore[call-overload]
        )
        options = f"-k {root} -c listen_addresses='' -F -c max_connections=200"
        started = subprocess.run(
            [*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "start"],
            **quiet,  # type: ignore[call-overload]
        )
        if started.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {started.stdout}\n{log.read_text() if log.exists() else ''}")
        try:
            yield f"postgresql://postgres@/postgres?host={root}"
        finally:
            subprocess.run(
                [*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                **quiet,  # type: ignore[call-overload]
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def fresh_database(cluster_url: str, name: str) -> str:
    """Create an empty database `name` in the cluster; returns its URL."""
    import psycopg

    with psycopg.connect(cluster_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return cluster_url.replace("/postgres?", f"/{name}?", 1)
