"""Every distribution builds as a wheel, and `pip install "negotiation-platform[mcp]"` from those wheels alone
(no checkout, no editable install) gives a `serve mcp` that a real MCP client can talk to over stdio.

Slow: it installs the dependencies from the package index into a fresh venv (pip's cache keeps it to about a
minute). `pytest -m "not slow"` leaves it out.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTIONS = {
    "negotiation-platform": ".",
    "negotiation-platform-coin-games": "plugins/coin_games",
    "negotiation-platform-adasociety": "plugins/adasociety",
    "negotiation-platform-mcp": "transports/mcp",
    "negotiation-platform-a2a": "transports/a2a",
    "negotiation-platform-openenv": "transports/openenv",
}
NOT_SOURCES = shutil.ignore_patterns(".*", "__pycache__", "*.egg-info", "build", "dist")
BUILD_SECONDS = 300
INSTALL_SECONDS = 600


def build_wheels(out: Path, scratch: Path) -> dict[str, Path]:
    """Each distribution's wheel, built by `python -m build` from a copy of the sources.

    A copy, because setuptools writes build/ and *.egg-info next to the sources, and a stale build/ would
    slip files that no longer exist into the wheel. The six builds run at once.
    """
    sources = scratch / "sources"
    shutil.copytree(ROOT, sources, ignore=NOT_SOURCES)
    builds = [
        subprocess.Popen(
            [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(sources / folder)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for folder in DISTRIBUTIONS.values()
    ]
    for build in builds:
        log, _ = build.communicate(timeout=BUILD_SECONDS)
        assert build.returncode == 0, log[-3000:]
    wheels = {wheel.name.split("-")[0].replace("_", "-"): wheel for wheel in out.glob("*.whl")}
    assert set(wheels) == set(DISTRIBUTIONS)
    return wheels


def run_in(env: Path, *command: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`command` from the venv's bin folder, run from the venv: from the checkout, `python -c` would import
    the checkout's sources (and read its *.egg-info) before the installed wheels."""
    return subprocess.run(
        [str(env / "bin" / command[0]), *command[1:]], capture_output=True, text=True, timeout=timeout, cwd=env
    )


def pip_install(env: Path, *requirements: str, constraints: Path) -> None:
    done = run_in(
        env, "python", "-m", "pip", "install", "--quiet", "--constraint", str(constraints), *requirements,
        timeout=INSTALL_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def installed_from(env: Path, distribution: str) -> str:
    """The URL pip installed `distribution` from (its direct_url.json)."""
    code = f"import importlib.metadata as m; print(m.distribution({distribution!r}).read_text('direct_url.json'))"
    done = run_in(env, "python", "-c", code)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["url"])


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (no system site-packages) holding the core wheel, then `[mcp]` on top."""
    scratch = tmp_path_factory.mktemp("packaging")
    wheels = build_wheels(scratch / "dist", scratch)
    # Our names resolve to the local wheels only: the core by its file, the transports through URL constraints
    # (pip ignores a URL constraint on a requirement that has extras, hence the file for the core). A transport
    # gets installed only if the core's extra asks for it; everything else comes from the package index.
    constraints = scratch / "constraints.txt"
    constraints.write_text(
        "".join(f"{name} @ {wheel.as_uri()}\n" for name, wheel in wheels.items() if name != "negotiation-platform")
    )
    env = scratch / "venv"
    venv.create(env, with_pip=True, system_site_packages=False)
    core = wheels["negotiation-platform"].as_uri()

    pip_install(env, f"negotiation-platform @ {core}", constraints=constraints)
    bare = run_in(env, "negotiation-platform", "serve", "mcp")
    assert (bare.returncode, bare.stderr) == (
        1,
        'negotiation-platform serve: the mcp transport is not installed: pip install "negotiation-platform[mcp]"\n',
    )

    pip_install(env, f"negotiation-platform[mcp] @ {core}", constraints=constraints)
    for name in ("negotiation-platform", "negotiation-platform-mcp"):
        assert installed_from(env, name) == wheels[name].as_uri()
    return env


@pytest.mark.anyio
async def test_the_mcp_extra_serves_over_stdio_to_a_real_client(installed: Path) -> None:
    mcp = pytest.importorskip("mcp")

    server = mcp.StdioServerParameters(
        command=str(installed / "bin" / "negotiation-platform"), args=["serve", "mcp"], cwd=installed
    )
    async with mcp.Client(server) as client:
        result = await client.call_tool("list_games", {})
    assert not result.is_error
    games = {game["id"] for game in (result.structured_content or {})["games"]}
    assert {"split_100", "auction", "company_car"} <= games
    assert "coins_classic" not in games  # the plugins are not part of [mcp]: nothing leaked in from the checkout


def test_the_extras_name_the_transport_distributions(installed: Path) -> None:
    code = "import importlib.metadata as m; print('\\n'.join(m.requires('negotiation-platform')))"
    requires = run_in(installed, "python", "-c", code).stdout.splitlines()
    assert 'negotiation-platform-mcp>=0.1; extra == "mcp"' in requires
    assert 'negotiation-platform-a2a>=0.1; extra == "a2a"' in requires
    assert 'negotiation-platform-openenv[openenv]>=0.1; extra == "openenv"' in requires
    assert any(line.startswith("negotiation-platform[") and 'extra == "all"' in line for line in requires)
