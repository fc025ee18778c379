"""The research subcommands: `tournament` (play a round-robin into a folder) and `report` (analyse it).

`tournament` exits 0 when every scheduled match is played, FAILED_EXIT (1) when any failed (their rows
are in failures.jsonl; a re-run plays them again) or when an LLM seat had no usable answer from its
endpoint at all, and 2 for bad arguments, before anything is played. Matches in which LLM seats lost
moves to their endpoints are named, and counted in the summary only with --keep-failed-llm.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import JsonValue
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from negotiation_platform.agents.llm_failures import MarkedMatch, counted, marked_matches, without_answer
from negotiation_platform.cli.parsing import json_object
from negotiation_platform.cli.progress import stderr_progress
from negotiation_platform.cli.transcript import shown
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry

if TYPE_CHECKING:
    from negotiation_platform.cli.parsing import Subcommands
    from negotiation_platform.research.rows import FailureRow, MatchRow

FAILED_EXIT = 1
"""`tournament`'s exit status when any match failed (2 stays for bad arguments)."""


def add_research_commands(sub: Subcommands) -> None:
    """Add `tournament` and `report` to the CLI's subcommands."""
    tournament = sub.add_parser(
        "tournament",
        help="play every agent against every other over seats and seeds",
        description="Play every agent against every other into --out. Exit 1 when a match failed (failures.jsonl) "
        "or an LLM seat got no usable answer from its endpoint at all; matches in which LLM seats lost moves to "
        "their endpoints are named and left out of the summary's counts (--keep-failed-llm keeps them).",
    )
    tournament.add_argument("--games", nargs="+", required=True, help="game ids, as `games` lists them")
    tournament.add_argument(
        "--agents", nargs="+", required=True, help="agent specs, e.g. concession, llm:MODEL or policy:DIR"
    )
    tournament.add_argument("--seeds", type=int, default=1, help="matches per line-up (seeds 0..N-1)")
    tournament.add_argument("--swap-roles", action="store_true", help="every agent plays every seat")
    tournament.add_argument("--workers", type=int, default=1, help="processes for scripted matches; remote concurrency")
    tournament.add_argument("--out", default="tournament", help="folder for matches.jsonl (re-runs resume)")
    tournament.add_argument(
        "--config", action="append", default=[], type=_game_config, help="GAME=JSON config for one game (repeatable)"
    )
    tournament.add_argument(
        "--agent-config", type=json_object, default=None, help="options for llm/remote agents as a JSON object"
    )
    add_llm_options(tournament)
    add_keep_failed_llm(tournament, "count them in the summary (they are named and marked either way)")
    tournament.add_argument(
        "--prices", default=None, help="price table (.json or .toml): USD per million tokens per model, for costs"
    )
    social = sub.add_parser(
        "eval-social",
        help="round-robin with self-play, scored for collective payoff, split efficiency and robustness to greedy",
        description="Play every ordered pair of the agents, self-play included (greedy joins when not named), "
        "--matches times each (match seeds 0..N-1), and report each agent's payoff, its payoff against greedy, "
        "collective payoff (both seats summed) and split efficiency (collective over the game's maximum), each "
        "with a 95%% percentile-bootstrap interval over matches drawn with --seed.",
    )
    social.add_argument("game", help="a two-seat game id, as `games` lists it")
    social.add_argument("--agents", nargs="+", required=True, help="agent specs, e.g. cooperative concession hf:DIR")
    social.add_argument("--matches", type=int, default=10, help="matches per ordered pair (seeds 0..N-1)")
    social.add_argument("--seed", type=int, default=0, help="seeds the bootstrap's generator")
    social.add_argument("--config", type=json_object, default=None, help="the game's config as a JSON object")
    social.add_argument("--workers", type=int, default=1, help="processes for scripted matches")
    social.add_argument("--out", default=None, help="folder for matches.jsonl and social.json (re-runs resume)")
    social.add_argument("--json", action="store_true", help="print the report as one JSON object")
    add_train_llm(sub)
    report = sub.add_parser("report", help="write report.md, report.html and figures for a tournament folder")
    report.add_argument("dir", help="a folder written by `tournament`")
    report.add_argument(
        "--samples",
        type=int,
        default=200,
        help="bootstrap resamples for the rating intervals (each refits the ratings; means and tests use 2,000)",
    )
    add_keep_failed_llm(report, "put them in the outcome tables, figures and ratings (they are listed either way)")


def add_train_llm(sub: Subcommands) -> None:
    """`train-llm`: GRPO (TRL) or Advantage Alignment on a local causal LM (the `llm-rl` extra); see
    negotiation_platform.llm_rl.train."""
    train = sub.add_parser(
        "train-llm",
        help="train a local language model on a game by GRPO or Advantage Alignment (the llm-rl extra)",
        description="Train the model in --model (a local folder, nothing downloaded) on GAME: each step plays "
        "--group-size rollouts from one seed, compared with each other (the group-relative baseline). --algo grpo: "
        "the first seat learns against --opponents with TRL's GRPOTrainer ('self': a frozen copy of the model as it "
        "was at the start). --algo ad-align: Advantage Alignment on a two-seat game, both seats the learner in "
        "self-play by default (--opponents self), per-round discounted returns (--gamma), the leave-one-out "
        "baseline and the opponent-shaping credit (--beta). Writes OUT/checkpoint-<step> every --save-every steps, "
        "OUT/final (the model and tokenizer; with --lora the adapter is merged in and also kept in OUT/adapter), "
        "OUT/curve.csv and OUT/summary.json. Runs on the GPU when there is one, else on the CPU.",
    )
    train.add_argument("game", help="a game id, as `games` lists it")
    train.add_argument("--model", required=True, help="a local model folder with its tokenizer and chat template")
    train.add_argument(
        "--algo", choices=["grpo", "ad-align"], default="grpo", help="grpo (TRL) or ad-align (Advantage Alignment)"
    )
    train.add_argument("--lora", action="store_true", help="train a LoRA adapter instead of every weight")
    train.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        help="agent specs for the other seats (one, or one each), or self; default: self for ad-align, concession "
        "for grpo",
    )
    train.add_argument("--group-size", type=int, default=4, help="rollouts per seed, compared with each other")
    train.add_argument("--steps", type=int, default=100, help="optimisation steps (one seed each)")
    train.add_argument(
        "--max-completion-length",
        type=int,
        default=512,
        help="tokens a rollout may generate (grpo), or one reply (ad-align)",
    )
    train.add_argument("--lr", type=float, default=1e-5, help="the optimiser's learning rate")
    train.add_argument("--seed", type=int, default=0, help="seed of the run")
    train.add_argument("--beta", type=float, default=2.0, help="ad-align: weight of the opponent-shaping term")
    train.add_argument("--gamma", type=float, default=0.96, help="ad-align: discount of the per-round returns")
    train.add_argument("--save-every", type=int, default=0, help="write OUT/checkpoint-<step> every N steps (0: none)")
    train.add_argument(
        "--grammar",
        choices=["json", "compact"],
        default="json",
        help="the replies' grammar: json (the llm: agent's) or compact (`split 7`, for small models); ad-align reads "
        "the model's replies in it, grpo writes its tool calls in it",
    )
    train.add_argument("--config", type=json_object, default=None, help="the game's config as a JSON object")
    train.add_argument(
        "--out", default="runs/train-llm", help="folder for checkpoints, final/, curve.csv and summary.json"
    )
    train.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def cmd_train_llm(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    from importlib.util import find_spec

    from negotiation_platform.llm_rl.train import train_llm

    if missing := [name for name in ("torch", "transformers", "trl", "peft") if find_spec(name) is None]:
        raise SystemExit(f"train-llm needs the llm-rl extra (pip install 'negotiation-platform[llm-rl]'): {missing}")
    summary = train_llm(
        args.game,
        args.model,
        out=args.out,
        algo=args.algo,
        lora=args.lora,
        opponents=args.opponents,
        group_size=args.group_size,
        steps=args.steps,
        seed=args.seed,
        max_completion_length=args.max_completion_length,
        learning_rate=args.lr,
        beta=args.beta,
        gamma=args.gamma,
        save_every=args.save_every,
        grammar=args.grammar,
        config=args.config,
        registry=registry,
    )
    if args.json:
        print(summary.model_dump_json(indent=2))
        return 0
    console.print(
        f"{summary.game} {summary.algo}, {summary.steps} steps of {summary.group_size} rollouts on {summary.device} "
        f"in {summary.seconds:.1f} s: mean reward {summary.start_mean_reward} → {summary.end_mean_reward}; "
        f"wrote {Path(args.out) / 'final'}, curve.csv, summary.json",
        soft_wrap=True,
        markup=False,
    )
    return 0


def add_keep_failed_llm(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--keep-failed-llm",
        action="store_true",
        help=f"matches in which an LLM seat lost moves to its endpoint (timeouts, 5xx, unreadable replies after "
        f"the retries) are left out of the outcomes: {what}",
    )


def add_llm_options(parser: argparse.ArgumentParser) -> None:
    """The flags for LLM agents' calls; each sets the agent option of the same name (see `llm_agent_options`)."""
    parser.add_argument(
        "--max-concurrency", type=int, default=None, help="most requests in flight per LLM endpoint (agent option)"
    )
    parser.add_argument("--llm-cache", default=None, help="SQLite file caching LLM replies: re-runs cost nothing")
    parser.add_argument("--llm-cache-sampled", action="store_true", help="cache replies sampled at temperature > 0 too")


def llm_agent_options(args: argparse.Namespace) -> dict[str, JsonValue] | None:
    """--agent-config with the LLM flags that were given merged in (None when there are none)."""
    options: dict[str, JsonValue] = dict(args.agent_config or {})
    if args.max_concurrency is not None:
        options["max_concurrency"] = args.max_concurrency
    if args.llm_cache is not None:
        options["cache"] = args.llm_cache
    if args.llm_cache_sampled:
        options["cache_sampled"] = True
    return options or None


def _game_config(text: str) -> tuple[str, dict[str, JsonValue]]:
    game, sep, config = text.partition("=")
    if not sep or not game:
        raise argparse.ArgumentTypeError("expected GAME=JSON")
    return game, json_object(config)


def cmd_tournament(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    from negotiation_platform.agents.llm_usage import load_prices
    from negotiation_platform.research.tournament import run_tournament

    if args.max_concurrency is not None and args.max_concurrency < 1:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "--max-concurrency must be at least 1.")
    prices = load_prices(args.prices) if args.prices is not None else None
    agreed = new = 0
    before = 0
    failed: list[FailureRow] = []
    columns = (
        TextColumn("[bold]tournament"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[agreements]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    bar = stderr_progress(*columns)
    task = bar.add_task("matches", total=None, agreements="")

    def scheduled(total: int, to_play: int) -> None:
        # Started only once the schedule is valid, so a refused tournament prints just its error.
        nonlocal before
        before = total - to_play
        bar.start()
        bar.update(task, total=to_play, agreements=f"{total - to_play} of {total} done before")

    def landed(row: MatchRow) -> None:
        nonlocal agreed, new
        new += 1
        agreed += bool(row["agreement"])
        bar.update(task, advance=1, agreements=f"agreements {agreed}/{new}")

    try:
        rows = run_tournament(
            args.games,
            args.agents,
            seeds=args.seeds,
            swap_roles=args.swap_roles,
            workers=args.workers,
            out=args.out,
            configs=dict(args.config),
            agent_options=llm_agent_options(args),
            prices=prices,
            registry=registry,
            on_schedule=scheduled,
            progress=landed,
            on_failure=failed.append,
        )
    finally:
        if bar.live.is_started:  # stopping a bar never started still prints an empty line
            bar.stop()
    kept = counted(rows, args.keep_failed_llm)
    share = sum(r["agreement"] for r in kept) / len(kept) if kept else 0.0
    left_out = f" ({len(rows) - len(kept)} left out: LLM endpoint failures)" if len(kept) < len(rows) else ""
    console.print(
        f"{before + new + len(failed)} scheduled: {new} played, {before} skipped (done before), "
        f"{len(failed)} failed; {len(kept)} matches{left_out}, {share:.0%} agreements → "
        f"{Path(args.out) / 'matches.jsonl'}",
        soft_wrap=True,
    )
    note = "counted above, as asked" if args.keep_failed_llm else "left out above; --keep-failed-llm counts them"
    status = tell_endpoint_failures(console, marked_matches(rows), note)
    if not failed:
        return status
    console.print(f"failures (kept in {Path(args.out) / 'failures.jsonl'}; a re-run plays them again):", soft_wrap=True)
    for reason, count in Counter(f["error"] for f in failed).most_common():
        console.print(f"  {count}× {shown(reason)}", soft_wrap=True)
    return FAILED_EXIT


def tell_endpoint_failures(console: Console, matches: list[MarkedMatch], note: str) -> int:
    """Name the matches (and their seats) that lost moves to LLM endpoints; FAILED_EXIT when some seat
    had no usable answer at all (every move it was asked for lost), else 0. `tournament` and `play` alike."""
    if not matches:
        return 0
    console.print(f"{len(matches)} matches had LLM endpoint failures ({note}):", soft_wrap=True)
    for match in matches:
        for seat in match.seats:
            console.print(f"  {match.key}: {seat.describe()}", soft_wrap=True, markup=False)
    silent = without_answer(seat for match in matches for seat in match.seats)
    if not silent:
        return 0
    agents = sorted({seat.agent for seat in silent})
    said = f"{len(silent)} seats ({', '.join(agents)}) had no usable answer from their endpoint at all."
    console.print(said, soft_wrap=True, markup=False)
    return FAILED_EXIT


def cmd_report(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    try:
        from negotiation_platform.research.report import write_report
    except ImportError as exc:
        raise SystemExit(
            f"report needs matplotlib and scipy: pip install 'negotiation-platform[report]' ({exc})"
        ) from None
    with stderr_progress(
        TextColumn("[bold]report"), BarColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), transient=True
    ) as bar:
        task = bar.add_task("reading the matches", total=None)

        def step(done: int, total: int, what: str) -> None:
            bar.update(task, completed=done, total=total, description=what)

        written = write_report(
            args.dir, samples=args.samples, registry=registry, progress=step, keep_failed_llm=args.keep_failed_llm
        )
    console.print(f"wrote {len(written)} files: " + ", ".join(str(path) for path in written[:3]) + ", figures/…")
    return 0


def cmd_eval_social(args: argparse.Namespace, registry: Registry, console: Console) -> int:
    from rich.table import Table

    from negotiation_platform.research.social_evaluation import SOCIAL, evaluate_social, social_sections

    if args.matches < 1:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "--matches must be at least 1.")
    report = evaluate_social(
        args.game,
        args.agents,
        matches=args.matches,
        seed=args.seed,
        config=args.config,
        out=args.out,
        workers=args.workers,
        registry=registry,
    )
    if args.out is not None:
        (Path(args.out) / SOCIAL).write_text(report.model_dump_json(indent=2))
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    for section in social_sections(report):
        table = Table(*(column.title for column in section.columns), title=section.title, caption=section.note)
        for row in section.rows:
            table.add_row(*(str(value) for value in row))  # the social tables hold text only
        console.print(table)
    return 0
