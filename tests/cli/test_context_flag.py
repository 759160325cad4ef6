"""``--context``: the advice for a prompt too long for a local judge can be followed.

The context-overflow error used to say "raise n_ctx", which no command-line option
could do. ``--context N`` sets the local judge's window (llama.cpp's ``n_ctx``), is
refused for judges it does not apply to, and the error names it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge._errors import RequestRejected
from fairjudge.backends._local import llama_error
from fairjudge.judges import BackendOptions
from tests.cli_process import run_process
from tests.forked_cli import PACKAGES


def fairjudge(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # A process of its own, forked from one that has imported the library's packages
    # (PACKAGES: a server that starts fast, for this module's few runs).
    return run_process(args, env=dict(os.environ), cwd=cwd, timeout=300, preload=PACKAGES)


def _long_items(folder: Path) -> Path:
    path = folder / "long.jsonl"
    rows = [
        {"id": str(i), "question": f"Q{i}?", "answer_1": "word " * 400, "answer_2": "short"}
        for i in range(3)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_overflow_message_names_the_flag_and_the_parameter() -> None:
    error = llama_error({"type": "exceed_context_size_error", "n_prompt_tokens": 900}, 512)
    assert isinstance(error, RequestRejected)
    assert str(error) == (
        "the prompt has 900 tokens, more than the local judge's context of 512 (n_ctx); "
        "raise it (--context on the command line) or shorten the answers"
    )


def test_context_is_checked_before_any_model_loads() -> None:
    with pytest.raises(ConfigError, match="at least 256 tokens; got 100"):
        BackendOptions(context=100)
    assert BackendOptions(context=4096).context == 4096


@pytest.mark.parametrize(
    ("judge", "expected"),
    [
        ("python:fairjudge.examples.judges:longer", "--context does not apply to the judge"),
        ("openai/some-model", "--context does not apply to the judge 'openai/some-model'"),
    ],
)
def test_context_is_refused_where_it_does_not_apply(
    tmp_path: Path, judge: str, expected: str
) -> None:
    done = fairjudge(
        "compare", str(_long_items(tmp_path)), "--judge", judge, "--context", "4096",
        "--base-url" if judge.startswith("openai/") else "--seed",
        "http://127.0.0.1:9/v1" if judge.startswith("openai/") else "1",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert not (tmp_path / ".fairjudge").exists()  # refused before a store was opened


def test_a_context_too_small_is_a_usage_error(tmp_path: Path) -> None:
    done = fairjudge(
        "compare", str(_long_items(tmp_path)), "--judge", "local/gemma-3-270m",
        "--context", "100", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == "error: --context must be at least 256 tokens; got 100"


@pytest.mark.local_model
def test_context_reaches_the_local_judge_and_the_error_names_it(tmp_path: Path) -> None:
    done = fairjudge(
        "compare", str(_long_items(tmp_path)), "--judge", "local/gemma-3-270m",
        "--context", "256", "--store", str(tmp_path / "s.sqlite"), "-q", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    # The window the flag set is the one llama.cpp enforced, and the advice names the flag.
    assert "more than the local judge's context of 256 (n_ctx)" in done.stderr
    assert "raise it (--context on the command line)" in done.stderr
