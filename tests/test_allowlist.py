"""`AllowList`: URLs are compared in one spelling, and anything two parsers could read two ways is refused
(issue 26, defect 5). The real-server side is in transports/a2a/tests/test_a2a_allowlist.py."""

from __future__ import annotations

import argparse

import pytest

from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.cli.serve_options import add_policy_arguments
from negotiation_platform.wire.allowlist import AllowList, UrlRefused, canonical

OK = "http://127.0.0.1:8000/agents/ok"


@pytest.mark.parametrize(
    "url",
    [
        OK,
        OK + "/",
        OK + "/.well-known/agent-card.json",
        OK + "/a2a/jsonrpc?tenant=1",
        "HTTP://127.0.0.1:8000/agents/ok/x",
        "http://127.0.0.1:08000/agents/ok",
        "http://127.0.0.1:8000/agents/%6Fk/x",  # an escaped letter is that letter
        "http://127.0.0.1:8000/agents/ok/a%20b",
        "http://127.0.0.1:8000/agents/ok/caf%C3%A9",
        "http://127.0.0.1:8000/agents/ok//x",
    ],
)
def test_urls_under_the_prefix_are_allowed(url: str) -> None:
    assert AllowList.of([OK]).refusal(url) is None


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:8000/agents/okay", "not under"),
        ("http://127.0.0.1:8000/agents/ok%61y", "not under"),
        ("http://127.0.0.1:8000/agents", "not under"),
        ("http://127.0.0.1:8000/Agents/ok", "not under"),
        ("http://127.0.0.1:8000/agents/ok/../../x", "dot segments"),
        ("http://127.0.0.1:8000/agents/ok/..", "dot segments"),
        ("http://127.0.0.1:8000/agents/ok/./x", "dot segments"),
        ("http://127.0.0.1:8000/agents/ok/%2e%2e/%2e%2e/x", "encoded '.'"),
        ("http://127.0.0.1:8000/agents/ok/%2E%2E/x", "encoded '.'"),
        ("http://127.0.0.1:8000/agents/ok/.%2e/x", "encoded '.'"),
        ("http://127.0.0.1:8000/agents/ok/a%2ejson", "encoded '.'"),
        ("http://127.0.0.1:8000/agents/ok%2f..%2f..%2fx", "encoded '/'"),
        ("http://127.0.0.1:8000/agents/ok/..%2Fx", "encoded '/'"),
        ("http://127.0.0.1:8000/agents/ok/..%5cx", "encoded '\\\\'"),
        ("http://127.0.0.1:8000/agents/ok/%252e%252e/x", "encoded '%'"),
        ("http://127.0.0.1:8000/agents/ok/%00", "encoded '\\x00'"),
        ("http://127.0.0.1:8000/agents/ok/%zz", "malformed %-escape"),
        ("http://127.0.0.1:8000/agents/ok/%2", "malformed %-escape"),
        ("http://127.0.0.1:8000/agents/ok\\..\\..\\x", "backslashes"),
        ("http:\\\\127.0.0.1:8000/agents/ok", "backslashes"),
        ("http://user@127.0.0.1:8000/agents/ok", "user info"),
        ("http://user:pw@127.0.0.1:8000/agents/ok", "user info"),
        ("http://127.0.0.1:8000@evil.example/agents/ok", "user info"),
        ("http://127.0.0.1:8000/agents/ok#x", "fragment"),
        ("http://127.0.0.1:8000/agents/o\tk", "whitespace"),
        ("http://127.0.0.1:8000/agents/ok\n", "whitespace"),
        (" http://127.0.0.1:8000/agents/ok", "whitespace"),
        ("http://127.0.0.1:8000/agents/ok/é", "non-ASCII"),
        ("http://127.0.0.1:8000/agents/ok/a b", "whitespace"),
        ("http://127.0.0.1:8000/agents/ok/<x>", "may not hold"),
        ("https://127.0.0.1:8000/agents/ok", "not under"),
        ("http://127.0.0.1:8001/agents/ok", "not under"),
        ("http://127.0.0.1/agents/ok", "not under"),
        ("http://localhost:8000/agents/ok", "not under"),
        ("http://127.1:8000/agents/ok", "plain IPv4"),
        ("http://0x7f.0.0.1:8000/agents/ok", "plain IPv4"),
        ("http://2130706433:8000/agents/ok", "plain IPv4"),
        ("http://127.000.0.1:8000/agents/ok", "plain IPv4"),
        ("http://127.0.0.1.:8000/agents/ok", "not a plain name"),
        ("http://127.0.0.1:+8000/agents/ok", "port"),
        ("http://127.0.0.1:8000:80/agents/ok", "port"),
        ("http://127.0.0.1:99999/agents/ok", "port"),
        ("http://127.0.0.1:0/agents/ok", "port"),
        ("http://[::1/agents/ok", "IPv6"),
        ("http://[::1%25eth0]:8000/agents/ok", "IPv6"),
        ("http://[127.0.0.1]:8000/agents/ok", "IPv6"),
        ("http:///agents/ok", "no host"),
        ("//127.0.0.1:8000/agents/ok", "no scheme"),
        ("127.0.0.1:8000/agents/ok", "no scheme"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("ftp://127.0.0.1:8000/agents/ok", "scheme 'ftp'"),
        ("", "not a URL"),
    ],
)
def test_ambiguous_or_outside_urls_are_refused_with_the_reason(url: str, why: str) -> None:
    refusal = AllowList.of([OK]).refusal(url)
    assert refusal is not None and why in refusal, refusal


@pytest.mark.parametrize(
    ("url", "spelled"),
    [
        ("HTTP://Example.COM/A", "http://example.com/A"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:80/a", "https://example.com:80/a"),
        ("http://[0:0:0:0:0:0:0:1]:9000/a", "http://[::1]:9000/a"),
        ("http://[::FFFF:7F00:1]/a", "http://[::ffff:7f00:1]/a"),
        ("http://h/%7e%41%c3%a9?q=%2e", "http://h/~A%C3%A9?q=%2e"),
        ("http://h:/a", "http://h/a"),
    ],
)
def test_a_url_has_one_spelling(url: str, spelled: str) -> None:
    assert str(canonical(url)) == spelled


@pytest.mark.parametrize(
    ("prefix", "allowed", "refused"),
    [
        ("http://h/agents/ok/", ["http://h/agents/ok", "http://h/agents/ok/x"], ["http://h/agents/okay"]),
        ("http://h:80/a", ["http://h/a/x", "HTTP://H/a"], ["http://h:8080/a", "https://h/a"]),
        ("https://h:443/a", ["https://h/a/x"], ["http://h/a", "https://h:8443/a"]),
        ("http://[::1]:9000", ["http://[0::1]:9000/anything"], ["http://[::2]:9000/", "http://127.0.0.1:9000/"]),
        ("http://h:1", ["http://h:1/", "http://h:1/any/path"], ["http://h:2/", "http://h2:1/"]),
    ],
)
def test_prefixes_are_compared_in_the_same_spelling(prefix: str, allowed: list[str], refused: list[str]) -> None:
    allow = AllowList.of([prefix])
    assert [u for u in allowed if allow.refusal(u) is not None] == []
    assert [u for u in refused if allow.refusal(u) is None] == []


@pytest.mark.parametrize(
    "prefix", ["http://h/a/../b", "http://h/a%2e", "http://user@h/", "http://h/a?x=1", "ftp://h/", "h:9000"]
)
def test_an_ambiguous_prefix_is_refused_when_the_server_starts(prefix: str) -> None:
    with pytest.raises(UrlRefused):
        AllowList.of([prefix])
    parser = argparse.ArgumentParser()
    add_policy_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--allow-remote-agent", prefix])


def test_a_served_policy_allows_only_its_prefixes_and_an_in_process_one_anything() -> None:
    served = ArenaPolicy.served(remote_agents=[OK]).remote_agents
    assert served is not None and served.refusal(OK + "/x") is None and served.refusal(OK + "/../x") is not None
    nothing = ArenaPolicy.served().remote_agents
    assert nothing is not None and nothing.refusal(OK) is not None
    assert ArenaPolicy().remote_agents is None  # in-process: the host names its own agents, any URL
