"""Every game as a TextArena environment: TextArena's loop, its wrappers, determinism, the global RNG."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ta = pytest.importorskip("textarena")

from negotiation_platform.errors import ErrorCode, NegotiationError  # noqa: E402
from negotiation_platform.llm_rl.text_env import TextEnv  # noqa: E402
from negotiation_platform.llm_rl.textarena_env import register_textarena_envs, textarena_env_id  # noqa: E402
from negotiation_platform.registry import Registry  # noqa: E402

REGISTRY = Registry()
GAMES = sorted(REGISTRY.games())
SMALL = {"max_length": 4, "negotiation_steps": 2}
"""AdaSociety plays 120 steps by default: four keep the test short."""
ROOT = Path(__file__).resolve().parent.parent


def small_config(game: str) -> dict[str, Any] | None:
    return SMALL if game.startswith("adasociety") else None


@pytest.fixture(scope="module", autouse=True)
def registered() -> list[str]:
    return register_textarena_envs(REGISTRY)


def players(game: str) -> int:
    return REGISTRY.game(game).spec.roles.min_players


def play(env: Any, game: str, seed: int) -> tuple[list[tuple[int, Any, str]], Any, Any]:
    """The UnstableBaselines loop with random legal replies; the transcript, rewards and game_info."""
    env.reset(num_players=players(game), seed=seed)
    rng = random.Random(seed)
    transcript: list[tuple[int, Any, str]] = []
    done = False
    while not done:
        pid, observation = env.get_observation()
        reply = env.text_env.legal_reply(env.text_env.seats[pid], rng)
        transcript.append((pid, observation, reply))
        done, info = env.step(reply)
        assert info["accepted"], info
    rewards, game_info = env.close()
    return transcript, rewards, game_info


def replay_payoffs(game: str, seed: int, transcript: list[tuple[int, Any, str]]) -> dict[str, float]:
    """The same replies played straight into a TextEnv, seat by seat: what the match pays."""
    text_env = TextEnv(game, config=small_config(game), registry=REGISTRY)
    text_env.reset(seed=seed)
    for pid, _, reply in transcript:
        text_env.step(text_env.seats[pid], reply)
    assert text_env.done
    return text_env.payoffs()


def test_every_installed_game_is_registered(registered: list[str]) -> None:
    assert registered == [f"Negotiation-{game}-v0" for game in GAMES]
    assert {"adasociety", "coins_classic", "split_100"} <= set(GAMES)  # plugin games come through entry points


@pytest.mark.parametrize("game", GAMES)
def test_textarena_loop_plays_every_game_to_its_payoffs(game: str) -> None:
    env = ta.make(textarena_env_id(game), config=small_config(game))
    assert isinstance(env, ta.Env)
    transcript, rewards, game_info = play(env, game, seed=3)
    seats = env.text_env.seats
    payoffs = replay_payoffs(game, 3, transcript)
    assert rewards == {pid: payoffs[seat] for pid, seat in enumerate(seats)}
    assert sorted(game_info) == list(range(len(seats)))
    for pid, info in game_info.items():
        assert info["seat"] == seats[pid]
        assert info["invalid_move"] is False
        assert info["turn_count"] == sum(1 for p, _, _ in transcript if p == pid)
        assert "Payoffs" in info["reason"]
    first_kinds = [kind for _, _, kind in transcript[0][1]]
    assert first_kinds == [ta.ObservationType.PROMPT, ta.ObservationType.GAME_BOARD]  # the rules, then the state


@pytest.mark.parametrize("game", GAMES)
def test_llm_observation_and_action_formatting_wrappers(game: str) -> None:
    """The compact grammar (`propose 55`) under ActionFormattingWrapper, which sends `[propose 55]`."""
    raw = ta.make(textarena_env_id(game), config=small_config(game), grammar="compact")
    _, raw_rewards, _ = play(raw, game, seed=5)
    wrapped = ta.wrappers.ActionFormattingWrapper(
        ta.wrappers.LLMObservationWrapper(ta.make(textarena_env_id(game), config=small_config(game), grammar="compact"))
    )
    transcript, rewards, _ = play(wrapped, game, seed=5)
    assert rewards == raw_rewards  # the brackets ActionFormattingWrapper adds are taken off again
    pid, observation, _ = transcript[0]
    assert isinstance(observation, str)
    assert observation.startswith("\n[GAME] " + wrapped.text_env.prompt(wrapped.text_env.seats[pid]).system[:40])
    for player in {p for p, _, _ in transcript}:
        turns = [(obs, reply) for p, obs, reply in transcript if p == player]
        if len(turns) > 1:  # its own earlier reply, as TextArena shows it (bracketed by ActionFormattingWrapper)
            assert f"[Player {player}] " in turns[1][0]
            assert turns[0][1].strip("[]") in turns[1][0]


def test_simultaneous_phases_are_asked_in_turn_with_replies_hidden() -> None:
    """Where several seats are awaited, one is asked at a time (lowest id first) and a reply changes
    nothing the seats still awaited are shown."""
    checked = 0
    for game in GAMES:
        env = ta.make(textarena_env_id(game), config=small_config(game))
        env.reset(num_players=players(game), seed=3)
        rng, done = random.Random(3), False
        while not done:
            pid, _ = env.get_observation()
            text_env = env.text_env
            awaited = text_env.to_move()
            assert text_env.seats[pid] == min(awaited, key=text_env.seats.index)
            before = {seat: text_env.prompt(seat).user for seat in awaited if seat != text_env.seats[pid]}
            done, _ = env.step(text_env.legal_reply(text_env.seats[pid], rng))
            for seat, shown in before.items():
                if not done and seat in text_env.to_move():
                    assert text_env.prompt(seat).user == shown
                    checked += 1
    assert checked > 0


def test_refused_reply_is_retried_then_defaulted_within_the_error_allowance() -> None:
    env = ta.make(textarena_env_id("split_100"))
    env.reset(num_players=2, seed=1)
    pid, _ = env.get_observation()
    done, info = env.step("not a move at all")
    assert (done, info["accepted"], info["defaulted"]) == (False, False, False)
    assert info["error"]
    again, observation = env.get_observation()
    assert again == pid
    assert any("attempted an invalid move" in text for _, text, _ in observation)
    done, info = env.step("still not a move")
    assert info["defaulted"] is True
    _, game_info = env.close()
    assert game_info[pid]["invalid_move"] is True


def test_zero_error_allowance_set_after_reset_defaults_at_once() -> None:
    env = ta.make(textarena_env_id("split_100"))
    env.reset(num_players=2, seed=1)
    env.state.error_allowance = 0  # what UnstableBaselines does
    pid, _ = env.get_observation()
    _, info = env.step("nonsense")
    assert info["defaulted"] is True
    assert env.close()[1][pid]["invalid_move"] is True


def test_wrong_player_count_and_loop_before_reset_are_refused() -> None:
    env = ta.make(textarena_env_id("split_100"))
    for call in (env.get_observation, env.close, lambda: env.step("accept")):
        with pytest.raises(NegotiationError) as early:
            call()
        assert early.value.code is ErrorCode.NOT_STARTED
    with pytest.raises(NegotiationError) as refused:
        env.reset(num_players=3, seed=1)
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT


def test_another_packages_id_is_not_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    from textarena.envs.registration import ENV_REGISTRY, EnvSpec

    foreign = EnvSpec(id="Negotiation-split_100-v0", entry_point=object, default_wrappers=None)
    monkeypatch.setitem(ENV_REGISTRY, "Negotiation-split_100-v0", foreign)
    before = dict(ENV_REGISTRY)
    with pytest.raises(NegotiationError) as refused:
        register_textarena_envs(REGISTRY)
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert before == ENV_REGISTRY


def test_playing_never_touches_the_global_random() -> None:
    random.seed(1234)
    state = random.getstate()
    digests()
    unseeded = ta.make(textarena_env_id("split_100"))
    unseeded.reset(num_players=2)  # no seed: one from the OS
    assert isinstance(unseeded.seed, int)
    assert random.getstate() == state


def digests() -> dict[str, list[Any]]:
    """Each game's transcript under LLMObservationWrapper (hashed) and rewards, seed 11."""
    out: dict[str, list[Any]] = {}
    for game in GAMES:
        env = ta.wrappers.LLMObservationWrapper(ta.make(textarena_env_id(game), config=small_config(game)))
        transcript, rewards, _ = play(env, game, seed=11)
        out[game] = [hashlib.sha256(repr(transcript).encode()).hexdigest(), sorted(rewards.items())]
    return out


SCRIPT = """
import json, random, sys
random.seed(0)
before = random.getstate()
from negotiation_platform.llm_rl.textarena_env import register_textarena_envs
register_textarena_envs()  # imports TextArena, which moves the global random: it must be put back
untouched = random.getstate() == before
sys.path.insert(0, sys.argv[1])
from test_llm_rl_textarena import digests
games = digests()
print(json.dumps({"untouched": untouched, "games": games}))
"""


def test_deterministic_across_hash_seeds_and_registering_keeps_global_random() -> None:
    """A second interpreter with another hash seed: registering there (TextArena's first import) keeps
    the global random, and every game plays the same observations and rewards as here."""
    hash_seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    with subprocess.Popen(  # runs while this interpreter plays the same games
        [sys.executable, "-c", SCRIPT, str(ROOT / "tests")],
        env={**os.environ, "PYTHONHASHSEED": hash_seed, "HF_HUB_OFFLINE": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        here = json.loads(json.dumps(digests()))
        out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    there = json.loads(out.strip().splitlines()[-1])
    assert there["untouched"] is True
    assert there["games"] == here
