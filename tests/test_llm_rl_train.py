"""`train-llm`: GRPO on CPU with the tiny offline model, its files, and its refusals. One run is a real
subprocess (the command as a user starts it); the others call the command line's `main` in this process,
which has torch and TRL imported already."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from negotiation_platform.cli.main import main

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

SUMMARY_FIELDS = {"game", "algo", "model", "steps", "group_size", "seed", "start_mean_reward", "end_mean_reward"}


@pytest.fixture
def model_dir(tiny_model_dir: Path) -> Path:
    """The tiny model and its tokenizer (tests/llm_rl_models.py) saved as a local model folder."""
    return tiny_model_dir


def train_llm(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRL_EXPERIMENTAL_SILENCE": "1", "CUDA_VISIBLE_DEVICES": ""}
    return subprocess.run(
        [sys.executable, "-m", "negotiation_platform.cli.main", "train-llm", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def tiny_args(model_dir: Path, out: Path, *extra: str) -> list[str]:
    return [
        "split_100", "--model", str(model_dir), "--algo", "grpo", "--steps", "2", "--group-size", "4",
        "--max-completion-length", "16", "--out", str(out), *extra,
    ]  # fmt: skip


def test_grpo_writes_the_final_model_the_curve_and_the_summary(model_dir: Path, tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    done = train_llm(*tiny_args(model_dir, tmp_path / "run", "--seed", "3", "--save-every", "1"))
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert set(summary) >= SUMMARY_FIELDS
    assert (summary["game"], summary["algo"], summary["steps"], summary["group_size"], summary["seed"]) == (
        "split_100", "grpo", 2, 4, 3,
    )  # fmt: skip
    assert summary["device"] == "cpu" and not summary["lora"]
    with (tmp_path / "run" / "curve.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert [int(row["step"]) for row in rows] == [1, 2]
    assert float(rows[0]["mean_reward"]) == summary["start_mean_reward"]
    assert float(rows[-1]["mean_reward"]) == summary["end_mean_reward"]
    final = tmp_path / "run" / "final"
    trained = AutoModelForCausalLM.from_pretrained(final, local_files_only=True)
    assert trained.config.hidden_size == 16
    assert AutoTokenizer.from_pretrained(final, local_files_only=True).chat_template
    for step in (1, 2):
        checkpoint = tmp_path / "run" / f"checkpoint-{step}"
        assert (checkpoint / "model.safetensors").is_file() and (checkpoint / "tokenizer.json").is_file()


def test_ad_align_self_play_writes_checkpoints_the_final_model_the_curve_and_the_summary(
    model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from transformers import AutoModelForCausalLM

    run = tmp_path / "run"
    code = main([
        "train-llm", "trust_and_split", "--model", str(model_dir), "--algo", "ad-align",
        "--steps", "2", "--group-size", "2",
        "--max-completion-length", "4", "--config", '{"rounds": 1}', "--save-every", "1", "--out", str(run), "--json",
    ])  # fmt: skip
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert json.loads((run / "summary.json").read_text()) == summary
    assert (summary["algo"], summary["opponents"], summary["steps"], summary["group_size"]) == (
        "ad-align", ["self"], 2, 2,
    )  # fmt: skip
    assert (summary["beta"], summary["gamma"], summary["save_every"]) == (2.0, 0.96, 1)
    with (run / "curve.csv").open() as file:
        assert [int(row["step"]) for row in csv.DictReader(file)] == [1, 2]
    for folder in (run / "checkpoint-1", run / "checkpoint-2", run / "final"):
        AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
        assert (folder / "tokenizer.json").is_file()


def test_lora_keeps_the_adapter_and_merges_it_into_the_final_model(
    model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from transformers import AutoModelForCausalLM

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")  # as `train_llm` sets it for the subprocess
    assert main(["train-llm", *tiny_args(model_dir, tmp_path / "run", "--lora", "--steps", "1", "--json")]) == 0
    assert json.loads(capsys.readouterr().out)["lora"] is True
    assert (tmp_path / "run" / "adapter" / "adapter_config.json").is_file()
    assert not (tmp_path / "run" / "final" / "adapter_config.json").exists()
    AutoModelForCausalLM.from_pretrained(tmp_path / "run" / "final", local_files_only=True)


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (
            ["trust_and_split", "--algo", "ad-align", "--opponents", "self", "self"],
            "invalid_argument",
            "one other seat",
        ),
        (["trust_and_split", "--algo", "ad-align", "--opponents", "nobody"], "invalid_argument", "nobody"),
        (["trust_and_split", "--algo", "ad-align", "--gamma", "1.5"], "invalid_argument", "--gamma"),
        (["no_such_game"], "unknown_game", "no_such_game"),
        (["split_100", "--opponents", "no_such_agent"], "invalid_argument", "no_such_agent"),
        (["split_100", "--group-size", "1"], "invalid_argument", "group-size"),
    ],
)
def test_refusals_are_structured_and_write_nothing(
    model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: str, said: str
) -> None:
    assert main(["train-llm", *args, "--model", str(model_dir), "--out", str(tmp_path / "run"), "--json"]) == 2
    error = json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]
    assert error["code"] == code and said in error["message"]
    assert not (tmp_path / "run").exists()


def test_a_folder_without_a_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train-llm", "split_100", "--model", str(tmp_path), "--out", str(tmp_path / "run")]) == 2
    said = capsys.readouterr().err
    assert "not a local model folder" in said and "Traceback" not in said
