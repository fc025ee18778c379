"""What a durable store costs: actions/s through the arena with no store (`:memory:`), SQLite and PostgreSQL.

Each configuration plays the identical split_100 script (alternating proposals, an accept at the
end; every match also starts and seats two players, which are written too) through `Arena` in one
process, in the same run, so the printed ratios against `:memory:` mean something on a noisy
machine. SQLite runs in WAL mode with synchronous=NORMAL (a crash of the process loses nothing
committed; a power cut may lose the last transactions). PostgreSQL is a throwaway cluster on a
Unix socket (Debian's postgresql package) unless `--postgres URL` names one; it is left out,
with a note, when neither is available.

    python benchmarks/store.py [--matches N] [--repeats R] [--postgres URL]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the throwaway cluster helper under tests/

from benchmarks.engine import script
from negotiation_platform.arena import Arena
from negotiation_platform.arena.persistence import Persistence
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.store import open_store


async def play(arena: Arena, matches: int, offset: int) -> int:
    actions = 0
    for seed in range(offset, offset + matches):
        a = await arena.start_game("split_100", seed=seed, name="a")
        b = await arena.join_game(a["match_id"], name="b")
        tokens = {"a": a["token"], "b": b["token"]}
        for player, action, payload in script(seed):
            await arena.perform_action(a["match_id"], tokens[player], action, payload)
            actions += 1
    return actions


def best_rates(locations: dict[str, str], matches: int, repeats: int, served: bool) -> dict[str, float]:
    """Best actions/s of each store over `repeats` rounds; the stores take turns within each round, so a
    burst of load on a shared machine hits them alike. Each store keeps growing, as in service.
    `served`: steps (and their writes) run in worker threads, as on `serve mcp|a2a`; else on the loop."""
    arenas: dict[str, Arena] = {}
    for name, location in locations.items():
        arenas[name] = Arena(policy=ArenaPolicy(reproducible=True, steps_in_thread=served))
        store = open_store(location)
        if store is not None:
            arenas[name].use_store(Persistence(store, "bench"))

    async def rounds() -> dict[str, float]:
        best = dict.fromkeys(arenas, 0.0)
        for arena in arenas.values():
            await play(arena, 5, 10**6)  # warm up: connections, the registry, the first pages of the files
        for repeat in range(repeats):
            for name, arena in arenas.items():
                start = time.perf_counter()
                actions = await play(arena, matches, repeat * matches)
                best[name] = max(best[name], actions / (time.perf_counter() - start))
        for arena in arenas.values():
            await arena.close()
        return best

    return asyncio.run(rounds())


@contextmanager
def postgres(url: str | None) -> Iterator[str | None]:
    if url is not None:
        yield url
        return
    from tests.pg_cluster import fresh_database, postgres_cluster, server_binaries

    binaries = server_binaries()
    if binaries is None:
        yield None
        return
    with postgres_cluster(binaries) as cluster:
        yield fresh_database(cluster, "bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--postgres", default=None, metavar="URL", help="an existing PostgreSQL database to use")
    args = parser.parse_args()
    with ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory())
        pg = stack.enter_context(postgres(args.postgres))
        stores = {":memory:": ":memory:", "SQLite (WAL, synchronous=NORMAL)": str(Path(folder) / "bench.db")}
        if pg is not None:
            stores["PostgreSQL (local socket)"] = pg
        modes = {
            "served (steps and writes in worker threads, as serve mcp|a2a run)": True,
            "in-process (steps and writes on the event loop, as play --store runs)": False,
        }
        results = {mode: best_rates(stores, args.matches, args.repeats, served) for mode, served in modes.items()}
    print(f"split_100 through Arena, {args.matches} matches x {len(script(0))} actions, best of {args.repeats}:")
    for mode, rates in results.items():
        base = rates[":memory:"]
        print(f" {mode}:")
        for name, rate in rates.items():
            print(f"  {name:<34} {rate:>9,.0f} actions/s   cost per action {base / rate:.2f}x :memory:")
    if pg is None:
        print("  PostgreSQL left out: no server binaries (install Debian's postgresql) and no --postgres URL")


if __name__ == "__main__":
    main()
