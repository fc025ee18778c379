"""The engine's fast paths give exactly what the plain paths gave: payloads validated by compiled
validators, results copied without asdict, setups shared per game and config, immutable events."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from negotiation_platform.arena import Arena
from negotiation_platform.arena.live import LiveMatch
from negotiation_platform.engine import Event, EventKind, Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games import Split100Game
from negotiation_platform.games.base_game import GameResult
from negotiation_platform.games.setups import MAX_SETUPS, shared_setup
from negotiation_platform.spec import ActionSpec
from negotiation_platform.spec.flat_payloads import flat_checker
from negotiation_platform.spec.payload_checks import validate_payload
from negotiation_platform.wire.strict_json import validate_strict


class Flat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int = Field(ge=0, le=10)
    share: float = 0.5
    label: str = "x"
    sure: bool = False


class Bounded(BaseModel):
    """Flat, with every constraint the quick check reads: bounds on numbers, lengths of text."""

    model_config = ConfigDict(extra="forbid", title="BoundedPayload")
    price: float = Field(gt=-1.5, lt=1e6)
    units: int = Field(ge=-(2**60), le=2**60)
    name: str = Field(min_length=1, max_length=3)


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int


class Nested(BaseModel):
    model_config = ConfigDict(extra="forbid")
    inner: Inner
    note: str | None = None
    tags: list[str] = []


SCALARS = st.one_of(
    st.integers(-3, 12),
    st.integers(),
    st.sampled_from([2**53, -(2**53), 2**60 + 1, 1e6, -1.5, 1.5e308]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner))
KEYS = st.sampled_from(
    ["count", "share", "label", "sure", "inner", "note", "tags", "n", "other", "price", "units", "name"]
)


def reference(model: type[BaseModel], payload: dict[str, Any]) -> dict[str, Any] | list[dict[str, Any]]:
    """What validation gave before it was compiled: the model's JSON dump, or pydantic's complaints."""
    try:
        return validate_strict(model, payload).model_dump(mode="json")
    except ValidationError as exc:
        return [{"loc": e["loc"], "type": e["type"]} for e in exc.errors()]


@pytest.mark.parametrize("model", [Flat, Bounded, Nested])
@settings(max_examples=300, deadline=None)
@given(payload=st.dictionaries(KEYS, VALUES, max_size=4))
def test_compiled_payload_validation_agrees_with_the_model(model: type[BaseModel], payload: dict[str, Any]) -> None:
    action = ActionSpec(name="act", description="test", payload=model)
    expected = reference(model, payload)
    try:
        got: Any = validate_payload(action, payload)
    except NegotiationError as refusal:
        assert refusal.code is ErrorCode.INVALID_PAYLOAD
        assert isinstance(expected, list), f"refused {payload}, which the model accepts"
        return
    assert got == expected
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]  # type: ignore[union-attr]


@settings(max_examples=500, deadline=None)
@given(
    payload=st.fixed_dictionaries(
        {
            # mostly values near the limits, so that many payloads pass the quick check
            "price": st.one_of(st.floats(-1.5, 1e6), st.integers(-2, 10**6), SCALARS),
            "units": st.one_of(st.integers(-(2**60) - 1, 2**60 + 1), st.integers(-9, 9), st.integers(-9, 9)),
            "name": st.one_of(st.text("ab\x00 é", max_size=4), *[st.text("abc", min_size=1, max_size=3)] * 3),
        },
        optional={"other": SCALARS},
    )
)
def test_the_quick_check_accepts_only_what_the_model_accepts_and_returns_the_same(payload: dict[str, Any]) -> None:
    quick = flat_checker(Bounded)
    assert quick is not None
    checked = quick(payload)
    if checked is not None:  # None is "not sure": the slow path decides, and the test above covers it
        expected = reference(Bounded, payload)
        assert checked == expected
        assert list(checked) == list(expected) and [type(v) for v in checked.values()] == [
            type(v)
            for v in expected.values()  # type: ignore[union-attr]
        ]


class OneInt(BaseModel):
    """One int field with strict bounds (the one-comparison check)."""

    model_config = ConfigDict(extra="forbid")
    n: int = Field(gt=-3, lt=7)


@settings(max_examples=400, deadline=None)
@given(
    payload=st.one_of(
        st.fixed_dictionaries({"n": st.one_of(st.integers(-5, 9), st.integers(), SCALARS)}),
        st.dictionaries(st.sampled_from(["n", "other"]), st.one_of(st.integers(-5, 9), SCALARS), max_size=2),
    )
)
def test_the_quick_check_of_one_int_field_agrees_with_the_model(payload: dict[str, Any]) -> None:
    quick = flat_checker(OneInt)
    assert quick is not None
    checked = quick(payload)
    expected = reference(OneInt, payload)
    if checked is not None:
        assert checked == expected and [type(v) for v in checked.values()] == [int]
    elif set(payload) == {"n"} and type(payload["n"]) is int and -2 <= payload["n"] <= 6:
        raise AssertionError(f"{payload} is in range, yet the quick check was unsure")


def test_flat_models_get_the_quick_check_and_others_do_not() -> None:
    assert flat_checker(Flat) is not None and flat_checker(Bounded) is not None
    quick = flat_checker(Bounded)
    assert quick is not None
    assert quick({"price": 3, "units": 2, "name": "ab"}) == {"price": 3.0, "units": 2, "name": "ab"}
    assert quick({"price": 3, "units": True, "name": "ab"}) is None  # unsure: pydantic words the refusal
    assert quick({"price": 3, "units": 2, "name": "é"}) is None

    class Validated(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def even(cls, value: int) -> int:
            return value * 2

    class Stepped(BaseModel):
        cents: float = Field(multiple_of=0.01)

    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        n: int

    class Stripped(BaseModel):
        model_config = ConfigDict(str_strip_whitespace=True)
        text: str

    for model in (Nested, Validated, Stepped, Open, Stripped):
        assert flat_checker(model) is None, model.__name__


def test_actions_without_data_accept_only_an_empty_payload() -> None:
    accept = ActionSpec(name="accept", description="accept")
    assert validate_payload(accept, None) == {} and validate_payload(accept, {}) == {}
    with pytest.raises(NegotiationError) as refused:
        validate_payload(accept, {"extra": 1})
    assert refused.value.code is ErrorCode.INVALID_PAYLOAD


@dataclasses.dataclass
class Detail:
    values: tuple[int, ...]
    tags: list[str]


class Pair(NamedTuple):
    left: int
    right: list[int]


def test_result_to_dict_is_the_deep_copy_asdict_makes() -> None:
    result = GameResult(
        game_id="g",
        players=["a", "b"],
        winner=None,
        final_scores={"a": 1.5, "b": 0.0},
        total_rounds=3,
        game_data={"detail": Detail((1, 2), ["x"]), "pair": Pair(1, [2]), "nested": {"k": [{"v": 1}]}, "n": None},
        success=True,
    )
    copied = result.to_dict()
    assert copied == dataclasses.asdict(result)
    assert type(copied["game_data"]["pair"]) is Pair and type(copied["game_data"]["detail"]["values"]) is tuple
    copied["game_data"]["nested"]["k"][0]["v"] = 99
    copied["players"].append("c")
    assert result.game_data["nested"]["k"][0]["v"] == 1 and result.players == ["a", "b"]


def test_games_of_one_config_share_its_spec_and_rules() -> None:
    first, second = Split100Game(config={"rounds": 4}), Split100Game(config={"rounds": 4})
    other = Split100Game(config={"rounds": 5})
    assert first.spec is second.spec and first.settings is second.settings
    assert first.rules_text is second.rules_text
    assert other.spec is not first.spec and other.spec.rounds == 5
    assert Split100Game().spec is Split100Game.spec is Split100Game(config={}).spec
    first.config["rounds"] = 99  # a fresh copy: the shared config cannot be changed through it
    assert first.config["rounds"] == 4 and second.settings.rounds == 4


def test_a_refused_config_is_refused_every_time() -> None:
    for _ in range(2):
        with pytest.raises(ValidationError):
            Split100Game(config={"rounds": "4"})
        with pytest.raises(ValidationError):
            Split100Game(config={"rounds": float("inf")})


def test_setups_are_bounded() -> None:
    spec = shared_setup(Split100Game, {"total": 1}).spec
    for total in range(2, MAX_SETUPS + 3):
        shared_setup(Split100Game, {"total": total})
    assert shared_setup(Split100Game, {"total": 1}).spec is not spec  # the oldest setup was let go
    assert shared_setup(Split100Game, {"total": 1}).spec == spec


def test_a_parsed_config_handed_back_finds_its_setup() -> None:
    """A config a setup parsed is that setup (found by identity, as an arena starts its matches), for its
    own game class only; an equal config made anew finds it by its JSON text; an evicted one is parsed again."""
    setup = shared_setup(Split100Game, {"total": 7})
    assert shared_setup(Split100Game, setup.settings) is setup
    assert shared_setup(Split100Game, Split100Game.Config(total=7)).spec == setup.spec
    settings = setup.settings
    assert isinstance(settings, Split100Game.Config)
    assert Split100Game(config=settings).spec is setup.spec
    for total in range(8, MAX_SETUPS + 10):
        shared_setup(Split100Game, {"total": total})
    again = shared_setup(Split100Game, setup.settings)
    assert again is not setup
    assert again.spec == setup.spec


def test_an_arena_starts_its_match_from_the_config_it_parsed() -> None:
    async def started() -> LiveMatch:
        arena = Arena()
        first = await arena.start_game("split_100", config={"total": 9}, seed=1)
        await arena.join_game(first["match_id"])
        (live,) = arena.held_matches()
        return live

    live = asyncio.run(started())
    assert live.match is not None
    assert live.match.game.settings is live.settings
    assert live.config == {**Split100Game.Config().model_dump(mode="json"), "total": 9}
    assert live.settings is not None
    assert live.settings.model_dump(mode="json") == live.config


def test_events_are_immutable_and_keep_their_json_shape() -> None:
    match = Match(Split100Game, ["a", "b"], seed=3)
    events = match.submit("a", "propose", {"mine": 60})
    event = events[0]
    with pytest.raises(AttributeError):
        event.data = {}  # type: ignore[misc]
    assert event.to_dict() == {
        "seq": event.seq,
        "kind": "action",
        "round": 1,
        "phase": "bargain",
        "actor": "a",
        "data": {"action_type": "propose", "payload": {"mine": 60}},
        "visible_to": None,
    }
    assert [Event.from_dict(e.to_dict()) for e in match.events] == match.events
    assert [e.seq for e in match.events] == list(range(1, len(match.events) + 1))
    kinds = [e.kind for e in match.events]
    assert kinds[:3] == [EventKind.MATCH_STARTED, EventKind.ROUND_STARTED, EventKind.PHASE_STARTED]


def test_a_refused_action_lists_what_is_available() -> None:
    match = Match(Split100Game, ["a", "b"], seed=3)
    with pytest.raises(NegotiationError) as refused:
        match.submit("a", "accept")
    assert refused.value.code is ErrorCode.INVALID_ACTION
    assert "['propose', 'walk_away']" in refused.value.message


def test_the_games_generator_is_the_one_seeded_from_the_match_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The derivation is fixed (a store's matches replay the same after an upgrade); seeding one
    costs more than a move, so a game that draws nothing never has one made."""
    from negotiation_platform.games import AuctionGame

    seeded: list[object] = []

    class Counting(random.Random):
        def __init__(self, seed: object = None) -> None:
            seeded.append(seed)
            super().__init__(seed)

    monkeypatch.setattr(random, "Random", Counting)
    Match(Split100Game, ["a", "b"], seed=5).submit("a", "propose", {"mine": 60})
    assert seeded == []
    auction = Match(AuctionGame, ["a", "b", "c"], seed=5)
    fresh = Counting(Counting(5).getrandbits(64))
    low, high = auction.game.settings.value_low, auction.game.settings.value_high
    assert auction.game.game_data["values"] == {p: fresh.randint(low, high) for p in ["a", "b", "c"]}
    assert auction.game.rng.getstate() == fresh.getstate()


def test_the_games_history_stamps_each_action_with_its_event_number_as_a_float() -> None:
    """The stamps are shared float objects up to a bound and made afresh past it; either way they are
    the action event's sequence number."""
    from negotiation_platform.engine.match import logical_time

    match = Match(Split100Game, ["a", "b"], seed=1)
    match.submit("a", "propose", {"mine": 60})
    match.submit("b", "propose", {"mine": 55})
    actions = [e for e in match.events if e.kind is EventKind.ACTION]
    stamps = [a.timestamp for a in match.game.actions_history]
    assert stamps == [float(e.seq) for e in actions] and all(type(s) is float for s in stamps)
    assert [logical_time(n) for n in (0, 7, 4095, 4096, 10**9)] == [0.0, 7.0, 4095.0, 4096.0, 1e9]
    assert all(type(logical_time(n)) is float for n in (3, 10**9))


@pytest.mark.parametrize("config", [{}, {"seconds_per_turn": 5.0}])
def test_rounds_that_open_alike_log_what_the_general_opening_logs(config: dict[str, Any]) -> None:
    """split_100's rounds all open alike, so they reopen in one step; the log, the game's round and
    phase and the deadlines are what the general round opening gives, after every move."""

    def clock() -> Callable[[], float]:
        return iter(map(float, range(1_000_000))).__next__

    quick = Match(Split100Game, ["a", "b"], seed=4, config=config, clock=clock())
    plain = Match(Split100Game, ["a", "b"], seed=4, config=config, clock=clock())
    assert quick._rounds_alike
    plain._rounds_alike = False
    for turn in range(7):
        for match in (quick, plain):
            match.submit("ab"[turn % 2], "propose", {"mine": 50 + turn})
        assert list(quick.events) == list(plain.events)
        assert quick.events_for("a") == plain.events_for("a")
        assert (quick.round, quick.phase, quick.acting()) == (plain.round, plain.phase, plain.acting())
        assert (quick.game.current_round, quick.game.current_phase) == (plain.game.current_round, "bargain")
        assert quick.deadline == plain.deadline and (quick.deadline is None) == ("seconds_per_turn" not in config)
    assert quick.round == 4


def test_a_game_class_patched_between_matches_is_read_as_it_is_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which hooks a class replaces is kept per class, but checked against the class for every match."""

    class Strict(Split100Game):
        pass

    assert Match(Strict, ["a", "b"]).submit("a", "walk_away")
    monkeypatch.setattr(Strict, "available_actions", lambda self, player, names: [n for n in names if n != "walk_away"])
    with pytest.raises(NegotiationError) as refused:
        Match(Strict, ["a", "b"]).submit("a", "walk_away")
    assert refused.value.code is ErrorCode.INVALID_ACTION
    monkeypatch.undo()
    assert Match(Strict, ["a", "b"]).submit("a", "walk_away")
