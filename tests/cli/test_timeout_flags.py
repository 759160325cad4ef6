"""``--timeout`` and ``--max-attempts`` bound a hanging provider.

``--timeout`` is refused for the local judge, to which it does not apply.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.server import Fault, JudgeServer


def test_timeout_and_max_attempts_flags(tmp_path: Path, openai_env: JudgeServer) -> None:
    openai_env.configure(faults={Fault.HANG: 1.0}, hang_s=5.0)
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"question": "q", "answer_1": "a", "answer_2": "b"}) + "\n")
    result = CliRunner().invoke(
        app,
        [
            "compare", str(path), "--judge", "openai/m", "--base-url", openai_env.base_url,
            "--store", str(tmp_path / "s.sqlite"), "-q", "--json",
            "--timeout", "0.3", "--max-attempts", "2",
        ],
    )  # fmt: skip
    assert result.exit_code == 4, result.output  # nothing resolved: both calls timed out
    failures = json.loads(result.stdout)["failures"]
    assert list(failures) == [
        f"BackendTimeout: openai backend: no reply from model 'm' at {openai_env.base_url} "
        "within 0.3 s"
    ]
    assert openai_env.count(Fault.HANG) == 4  # 2 calls x 2 attempts


def test_timeout_does_not_apply_to_the_local_judge(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"question": "q", "answer_1": "a", "answer_2": "b"}) + "\n")
    result = CliRunner().invoke(
        app, ["compare", str(path), "--judge", "local/gemma-3-270m", "--timeout", "5"]
    )
    assert result.exit_code == 2
    assert "--timeout does not apply" in result.output
