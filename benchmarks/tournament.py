"""Tournament runner throughput: matches/s of a ~1,000-match scripted tournament with 1 and 2 workers.

Games split_100, company_car and integrative_negotiation; agents random, concession and batna;
every ordered line-up (--swap-roles), 38 seeds: 3 × 9 × 38 = 1,026 matches, each run into a fresh
folder. "In match" is the time spent inside `play_match` (arena, engine and the scripted agents),
summed over every match; the harness share is what the wall clock spent beyond that per worker:
1 − Σ in-match / (wall × workers) — scheduling, seeding, writing matches.jsonl and, with 2
workers, starting the spawned processes and shipping rows back.

    python benchmarks/tournament.py [--seeds 38] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from negotiation_platform.registry import Registry
from negotiation_platform.research.tournament import run_tournament

GAMES = ["split_100", "company_car", "integrative_negotiation"]
AGENTS = ["random", "concession", "batna"]


def measure(workers: int, seeds: int, registry: Registry) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        rows = run_tournament(GAMES, AGENTS, seeds=seeds, swap_roles=True, workers=workers, out=out, registry=registry)
        wall = time.perf_counter() - started
    in_match = sum(row["seconds"] for row in rows)
    return {
        "workers": workers,
        "matches": len(rows),
        "wall_s": wall,
        "matches_per_s": len(rows) / wall,
        "in_match_s": in_match,
        "harness_share": 1.0 - in_match / (wall * workers),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=38)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    registry = Registry()
    for workers in args.workers:
        r = measure(workers, args.seeds, registry)
        print(
            f"{r['workers']} worker(s): {r['matches']:.0f} matches in {r['wall_s']:.2f} s = "
            f"{r['matches_per_s']:,.0f} matches/s; in-match {r['in_match_s']:.2f} s, "
            f"harness share {r['harness_share']:.1%}"
        )


if __name__ == "__main__":
    main()
