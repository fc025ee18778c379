"""The container and the compose deployment, without Docker: the commands that the Dockerfile and
compose.yaml declare are read from those files and run here as processes, the arenas on a real
PostgreSQL and behind the same haproxy configuration, so the files cannot drift from what is tested.

A container and this test differ only in addresses and paths (`Here`): 0.0.0.0 binds 127.0.0.1,
the container port 8000 is a free port per service, a service's name is 127.0.0.1 with its port,
/run/secrets/NAME is a file of the test, and the store URL names the test's PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import yaml

from negotiation_platform.agents.driver import SeatHandle, run_seat
from negotiation_platform.agents.random_agent import RandomAgent
from negotiation_platform.errors import ErrorCode, NegotiationError
from tests.cli_servers import free_port, server_log, start_server
from tests.pg_cluster import fresh_database, postgres_cluster, server_binaries

ROOT = Path(__file__).resolve().parent.parent
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
DOCKERFILE = (ROOT / "Dockerfile").read_text()
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
CONTAINER_PORT = "8000"
SERVICES: dict[str, Any] = COMPOSE["services"]
ARENAS = sorted(name for name in SERVICES if name.startswith("arena-"))
VARIABLE = re.compile(r"\$\{(\w+)(?::([-?])([^}]*))?\}")
pytestmark = pytest.mark.anyio


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's `${NAME}`, `${NAME:-default}` and `${NAME:?error}` in `value`."""

    def one(found: re.Match[str]) -> str:
        name, kind, rest = found.groups()
        if env.get(name):
            return env[name]
        assert kind != "?", f"compose.yaml needs {name}: {rest}"
        return rest if kind == "-" else ""

    return VARIABLE.sub(one, value)


def instruction(name: str) -> list[str]:
    """The exec form (a JSON array) of the Dockerfile's instruction `name` (HEALTHCHECK: its CMD)."""
    lines = DOCKERFILE.replace("\\\n", " ").splitlines()
    (line,) = [line for line in lines if line.startswith(name + " ")]
    form = line[line.index(" CMD [") + 5 :] if name == "HEALTHCHECK" else line[len(name) + 1 :]
    parsed: list[str] = json.loads(form)
    return parsed


@dataclass
class Here:
    """What stands for a container's addresses and paths in this test."""

    ports: dict[str, int]
    secrets: dict[str, Path] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def argv(self, service: str, declared: list[str]) -> list[str]:
        return [self.arg(service, interpolate(str(arg), self.env)) for arg in declared]

    def arg(self, service: str, arg: str) -> str:
        if arg == "0.0.0.0":
            return "127.0.0.1"
        if arg == CONTAINER_PORT:
            return str(self.ports[service])
        if arg.startswith("/run/secrets/"):
            return str(self.secrets[arg.removeprefix("/run/secrets/")])
        for name, port in self.ports.items():  # another service, or this one by its own name
            arg = arg.replace(f"{name}:{CONTAINER_PORT}", f"127.0.0.1:{port}")
        return arg


def program(name: str) -> str:
    """The Dockerfile's programs, here: the entry point from this environment, python is this one."""
    if name == "python":
        return sys.executable
    found = Path(sys.executable).parent / name
    assert found.exists(), f"{name} is not installed beside {sys.executable}"
    return str(found)


def test_the_image_is_slim_runs_as_a_user_and_serves_from_its_entry_point() -> None:
    assert [line.split()[1] for line in DOCKERFILE.splitlines() if line.startswith("FROM ")] == [
        "python:3.12-slim",
        "python:3.12-slim",
    ]
    users = [line.split()[1] for line in DOCKERFILE.splitlines() if line.startswith("USER ")]
    assert users == ["arena"]
    assert instruction("ENTRYPOINT") == ["negotiation-platform"]
    port = free_port()
    here = Here({"image": port})
    command, health = instruction("CMD"), instruction("HEALTHCHECK")
    assert command[:2] == ["serve", "mcp"] and CONTAINER_PORT in command
    check = [program(health[0]), *(a.replace(f"127.0.0.1:{CONTAINER_PORT}", f"127.0.0.1:{port}") for a in health[1:])]
    proc = start_server([program("negotiation-platform"), *here.argv("image", command)], port)
    try:
        assert subprocess.run(check, capture_output=True, timeout=30).returncode == 0
        assert httpx.get(f"http://127.0.0.1:{port}/view/api/matches").status_code == 200
    finally:
        stderr = server_log(proc)
    assert subprocess.run(check, capture_output=True, timeout=30).returncode != 0  # a stopped server fails it
    assert "negotiation_platform.requests" not in stderr  # requests are logged from --log-level info on


def test_compose_file_follows_the_compose_spec(tmp_path: Path) -> None:
    pytest.importorskip("check_jsonschema")

    def validate(path: Path) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", str(path)]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    assert validate(ROOT / "compose.yaml").returncode == 0
    broken = tmp_path / "compose.yaml"
    broken.write_text(yaml.safe_dump({**COMPOSE, "services": {**SERVICES, "proxy": {**SERVICES["proxy"], "port": 1}}}))
    assert validate(broken).returncode != 0  # the check can fail


def test_each_arena_is_reached_at_its_instance_url_and_the_proxy_names_every_arena() -> None:
    assert len(ARENAS) >= 2
    proxy = SERVICES["proxy"]
    config = HAPROXY_CFG.read_text()
    for name in ARENAS:
        command = SERVICES[name]["command"]
        port = command[command.index("--port") + 1]
        assert command[command.index("--instance") + 1] == f"http://{name}:{port}"
        variable = name.upper().replace("-", "_")
        assert proxy["environment"][variable] == f"{name}:{port}"
        assert f'server {name} "${{{variable}}}"' in config
        # the arenas differ only in their own name
        assert [a.replace(name, "arena-N") for a in command] == [
            a.replace(ARENAS[0], "arena-N") for a in SERVICES[ARENAS[0]]["command"]
        ]
    assert config.count("\n    server ") == len(ARENAS)


def haproxy() -> str | None:
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if Path(p).exists()), None)


@contextmanager
def deployment(tmp_path: Path, store: str) -> Iterator[tuple[str, Here, dict[str, Any]]]:
    """compose.yaml's arenas and proxy as processes; yields the proxy's URL, the mapping and the processes."""
    here = Here({name: free_port() for name in [*ARENAS, "proxy"]}, env={"POSTGRES_PASSWORD": "unused-here"})
    for secret, source in COMPOSE["secrets"].items():
        here.secrets[secret] = tmp_path / Path(source["file"]).name
        here.secrets[secret].write_text(f"{secret}-s3cret\n")
    procs: dict[str, Any] = {}
    with ExitStack() as stack:
        for name in ARENAS:
            declared = {k: interpolate(v, here.env) for k, v in SERVICES[name]["environment"].items()}
            given = urlsplit(declared["NEGOTIATION_STORE"])
            assert (given.scheme, given.hostname, given.path) == ("postgresql", "postgres", "/arena")
            env = {**os.environ, **declared, "NEGOTIATION_STORE": store}
            command = [program("negotiation-platform"), *here.argv(name, SERVICES[name]["command"])]
            procs[name] = start_server(command, here.ports[name], env=env)
            stack.callback(server_log, procs[name])
        proxy = SERVICES["proxy"]
        (mount,) = [v for v in proxy["volumes"] if v.startswith("./deploy/haproxy.cfg:")]
        assert proxy["command"][0] == "haproxy" and proxy["command"][-1] == mount.split(":")[1]
        env = {**os.environ, **{k: here.arg("proxy", v) for k, v in proxy["environment"].items()}}
        env["PROXY_BIND"] = f"127.0.0.1:{here.ports['proxy']}"  # the container binds every interface
        # the image's entry point runs `haproxy ARGS` as `haproxy -W -db ARGS` (master-worker, foreground)
        command = [haproxy() or "haproxy", "-W", "-db", *proxy["command"][1:-1], str(HAPROXY_CFG)]
        procs["proxy"] = start_server(command, here.ports["proxy"], env=env)
        stack.callback(server_log, procs["proxy"])
        yield f"http://127.0.0.1:{here.ports['proxy']}", here, procs


def stop_postgres(cluster: str) -> None:
    """Kill the cluster's server at once (its socket directory holds the data directory)."""
    data = Path(parse_qs(urlsplit(cluster).query)["host"][0]) / "data"
    os.kill(int((data / "postmaster.pid").read_text().split()[0]), signal.SIGKILL)


@pytest.mark.skipif(server_binaries() is None, reason="PostgreSQL server binaries are not installed")
@pytest.mark.skipif(haproxy() is None, reason="haproxy is not installed (Debian's haproxy; .ci/run installs it)")
async def test_the_compose_services_serve_behind_the_round_robin_proxy_over_one_postgresql(tmp_path: Path) -> None:
    httpx2 = pytest.importorskip("httpx2")
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from negotiation_mcp.client import McpArena

    binaries = server_binaries()
    assert binaries is not None
    with postgres_cluster(binaries) as cluster, deployment(tmp_path, fresh_database(cluster, "arena")) as running:
        url, here, procs = running
        bearer = {"Authorization": f"Bearer {here.secrets['auth_token'].read_text().strip()}"}
        tokens = []
        async with httpx2.AsyncClient(headers=bearer) as http:
            # two MCP sessions: each opens on the next arena and stays there (the proxy sticks to its session)
            for name in ("ann", "bea"):
                async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy") as client:
                    seat = await McpArena(client).start_game("split_100", name=name, opponents=["concession"])
                    assert (await McpArena(client).get_turn_state(seat["match_id"], seat["token"]))["agent_id"] == name
                    tokens.append(seat["token"])
            # without a session, calls are dealt round-robin: reading a match works on any arena
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
                arena = McpArena(client)
                seat = await arena.start_game("split_100", name="cy", opponents=["concession"])
                assert (await arena.get_turn_state(seat["match_id"], seat["token"]))["agent_id"] == "cy"
                tokens.append(seat["token"])
                # and so are the seat's moves: those reaching the other arena are forwarded to the one that holds
                # the match (signed with the peer secret), so the whole match is played through the plain proxy
                handle = SeatHandle(RandomAgent(seed=3), seat["agent_id"], seat["token"])
                await asyncio.wait_for(run_seat(arena, seat["match_id"], handle, wait_seconds=2), 60)
                played = await arena.get_result(seat["match_id"])
            async with httpx.AsyncClient() as web:
                assert (await web.get(f"{url}/healthz")).status_code == 200
                listed = (await web.get(f"{url}/view/api/matches")).json()["matches"]  # the viewer, public
                counts = [
                    (await web.get(f"http://127.0.0.1:{here.ports[name]}/metrics", headers=bearer)).text
                    for name in ARENAS
                ]
                # PostgreSQL goes away: the refusal and the store's failure are counted
                stop_postgres(cluster)
                first = f"http://127.0.0.1:{here.ports[ARENAS[0]]}"
                async with Client(streamable_http_client(f"{first}/mcp", http_client=http)) as client:
                    with pytest.raises(NegotiationError) as refused:
                        await McpArena(client).start_game("split_100", name="dee")
                failed = (await web.get(f"{first}/metrics", headers=bearer)).text
        logs = [server_log(procs[name]) for name in ARENAS]
        secrets = [path.read_text().strip() for path in here.secrets.values()]  # auth token, peer secret
    assert refused.value.code is ErrorCode.STORE_UNAVAILABLE
    assert played["status"] == "finished"
    assert sum(int(n) for text in counts for n in re.findall(r'operation="perform_action",code="ok"} (\d+)', text)) > 0
    assert re.search(r'operation="start_game",code="store_unavailable"} 1\n', failed)
    assert int(re.findall(r"negotiation_store_errors_total (\d+)", failed)[0]) >= 1
    assert re.findall(r"negotiation_store_errors_total (\d+)", counts[0]) == ["0"]
    assert len(listed) == 3 and all(name in json.dumps(listed) for name in ("ann", "bea", "cy"))  # one store
    sessions = [re.findall(r'operation="start_game",code="ok"} (\d+)', text) for text in counts]
    assert sorted(sessions) == [["1"], ["2"]]  # the sessions went to different arenas, the third to either
    for log in logs:
        lines = [line for line in log.splitlines() if line.startswith("{")]
        assert lines and all(json.loads(line)["level"] for line in lines)
        assert not any(secret in log for secret in [*tokens, *secrets])
