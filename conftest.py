"""For every test directory: test processes, and the servers they start, keep no match store unless
a test names one; `postgres_url` gives a test an empty database on a throwaway PostgreSQL cluster."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from negotiation_platform.store import MEMORY, STORE_ENV
from tests.pg_cluster import fresh_database, postgres_cluster, server_binaries

os.environ[STORE_ENV] = MEMORY


@pytest.fixture(scope="session")
def postgres_cluster_url() -> Iterator[str]:
    """A throwaway PostgreSQL cluster for the whole session (skipped only where its binaries are absent)."""
    binaries = server_binaries()
    if binaries is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's postgresql package")
    with postgres_cluster(binaries) as url:
        yield url


@pytest.fixture
def postgres_url(postgres_cluster_url: str) -> str:
    """An empty database of its own for one test."""
    return fresh_database(postgres_cluster_url, f"test_{uuid.uuid4().hex[:12]}")
