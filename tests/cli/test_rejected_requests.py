"""One item the provider rejects (too long) is unresolved; every other item is kept.

A rerun goes as far, and retries only the rejected item.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.server import JudgeServer


def test_cli_keeps_every_other_item_when_one_is_too_long(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer", too_long_marker="HUGE")
    rows = [
        {"id": str(i), "question": f"q{i}", "answer_1": "a longer answer", "answer_2": "short"}
        for i in range(12)
    ]
    rows[5]["answer_2"] = "HUGE " * 3
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["compare", str(path), "--judge", "openai/m", "--base-url", openai_env.base_url]
    args += ["--store", str(tmp_path / "s.sqlite"), "-q", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output  # 1 of 12 unresolved is under the 0.2 limit
    summary = json.loads(result.stdout)
    assert summary["n_items"] == 12
    assert summary["n_unresolved"] == 1
    assert summary["win_rate"]["n"] == 11
    (reason,) = summary["failures"]
    assert "maximum context length" in reason
    assert summary["failures"][reason] == 2  # both orders of item 5, each sent once
    assert openai_env.count("too_long") == 2
    rerun = CliRunner().invoke(app, args)  # a rerun goes as far, and retries only item 5
    assert rerun.exit_code == 0, rerun.output
    assert openai_env.count("too_long") == 4
