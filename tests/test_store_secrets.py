"""A store's password is never printed: not when the store cannot be used, not in logs, not in `--help`.

`serve mcp|a2a|view --store postgresql://user:PASSWORD@...` that could not reach its database said
the URL in clear, in text and in JSON logs; `--help` showed `$NEGOTIATION_STORE` as the default.
"""

from __future__ import annotations

import json
import logging

import pytest

from negotiation_platform.cli.main import main
from negotiation_platform.observability.logs import configure_logging
from negotiation_platform.store import STORE_ENV, masked
from negotiation_platform.store.sql import SqlStore
from tests.test_cli_conventions import cli

SECRET = "S3cr3tPa55"
UNUSABLE = f"postgresql://user:{SECRET}@127.0.0.1:1/db"
"""Nobody listens on port 1: the store cannot be opened."""


@pytest.mark.parametrize(
    ("transport", "log_format", "from_env"),
    [("mcp", "text", False), ("mcp", "json", False), ("a2a", "json", False), ("view", "text", True)],
)
def test_a_server_whose_store_cannot_be_used_exits_without_printing_its_password(
    transport: str, log_format: str, from_env: bool
) -> None:
    where = {"env": {STORE_ENV: UNUSABLE}} if from_env else {}
    done = cli("--log-format", log_format, "serve", transport, *([] if from_env else ["--store", UNUSABLE]), **where)
    assert done.returncode == 1
    assert SECRET not in done.stdout + done.stderr
    assert "cannot use --store postgresql://user:***@127.0.0.1:1/db" in done.stderr
    if log_format == "json":  # every line a log shipper reads is JSON, the failure too
        [line] = done.stderr.splitlines()
        assert json.loads(line)["error"]["code"] == "command_failed"


def test_help_shows_a_default_store_from_the_environment_without_its_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(STORE_ENV, UNUSABLE)
    for command in (["serve", "mcp"], ["serve", "a2a"], ["serve", "view"], ["matches"], ["export"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "$NEGOTIATION_STORE, else postgresql://user:***@127.0.0.1:1/db" in text and SECRET not in text


def test_masked_hides_every_password_in_a_text_and_nothing_else() -> None:
    assert masked(f"cannot use {UNUSABLE}: refused") == "cannot use postgresql://user:***@127.0.0.1:1/db: refused"
    assert masked(f"'postgres://u:{SECRET}@x@host/db'") == "'postgres://u:***@host/db'"  # a raw @ in the password
    assert (
        masked(f"postgresql://host/db?user=u&password={SECRET}&x=1") == "postgresql://host/db?user=u&password=***&x=1"
    )
    assert masked(f"postgresql://:{SECRET}@host/db") == "postgresql://:***@host/db"
    for plain in ("http://127.0.0.1:8000/mcp", "postgresql://user@host/db", "alice@example.org", "/tmp/a.db"):
        assert masked(plain) == plain


def test_log_lines_and_a_stores_repr_never_hold_the_password(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    for log_format in ("text", "json"):
        configure_logging("warning", log_format)
        log = logging.getLogger("negotiation_platform.test")
        log.warning("store failure: %s", UNUSABLE)
        try:
            raise RuntimeError(f"could not open {UNUSABLE}")
        except RuntimeError:
            log.exception("failed")
        err = capsys.readouterr().err
        assert SECRET not in err, err
        assert err.count("user:***@") == 2, err
    configure_logging("warning", "text")
    with pytest.raises(ValueError) as refused:
        SqlStore(f"mysql://user:{SECRET}@127.0.0.1:1/db")
    assert SECRET not in str(refused.value) and "user:***@" in str(refused.value)
