"""The arena as collaborators: `Arena` is a facade (no mixin bases), hosts read what it holds through
public reads, and a credential is matched to its seat in constant time wherever it is looked up."""

from __future__ import annotations

import hmac
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from negotiation_platform.arena import Arena
from negotiation_platform.observability.requests import held_statuses, known_match, seat_of

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_arena_is_a_facade_not_a_stack_of_mixins() -> None:
    assert Arena.__mro__ == (Arena, object)


async def test_request_logs_find_the_seat_of_a_token_or_context_in_constant_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compared: list[int] = []
    real: Callable[[str, str], bool] = hmac.compare_digest

    def counting(a: str, b: str) -> bool:
        compared.append(1)
        return real(a, b)

    arena = Arena()
    me = await arena.start_game("split_100", seed=1, name="me")
    them = await arena.join_game(me["match_id"], name="them")
    context = await arena.bind_context(me["match_id"], them["token"])
    monkeypatch.setattr(hmac, "compare_digest", counting)
    assert seat_of(arena, me["match_id"], me["token"]) == "me"
    assert seat_of(arena, me["match_id"], context) == "them"
    assert compared, "a credential was compared without hmac.compare_digest"
    assert seat_of(arena, me["match_id"], "not-a-token") is None
    assert seat_of(arena, "no-such-match", me["token"]) is None
    assert seat_of(arena, me["match_id"], None) is None
    assert known_match(arena, me["match_id"], "forbidden") == me["match_id"]
    assert known_match(arena, "no-such-match", "unknown_match") is None
    assert list(held_statuses(arena)) == ["running"]


def test_no_private_access_across_the_arena_and_observability() -> None:
    ruff = shutil.which("ruff") or str(Path(ROOT, ".venv", "bin", "ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    folders = ["negotiation_platform/arena", "negotiation_platform/observability"]
    checked = subprocess.run(
        [ruff, "check", "--isolated", "--select", "SLF001", "--output-format", "concise", *folders],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout
