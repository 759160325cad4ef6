"""`score --baseline --allow-different --markdown`: the summary says the runs differ (QA41b #5).

The terminal, ``--json`` and the page said a baseline was compared although its judge
settings differ; the Markdown, the artefact pasted into a pull request, showed the
shift as a plain one.
"""

from __future__ import annotations

from pathlib import Path

from tests.evaluation.test_score_trend_effort import _run  # 12 answers, openai/gpt-5.1
from tests.server import JudgeServer


def test_the_markdown_says_the_baseline_was_compared_anyway(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    old, md = tmp_path / "old.jsonl", tmp_path / "summary.md"
    code, said = _run(score_server, tmp_path, "old", "--out", str(old))
    assert code == 0, said
    code, said = _run(score_server, tmp_path, "new", "--reasoning-effort", "low", "--baseline",
                      str(old), "--allow-different", "--markdown", str(md))  # fmt: skip
    assert code == 0, said
    text = md.read_text("utf-8")
    assert ("> Compared anyway (--allow-different): reasoning\\_effort: baseline (not sent: the "
            "model's default, none), this run low.") in " ".join(text.split()), text  # fmt: skip
    code, said = _run(score_server, tmp_path, "same", "--baseline", str(old), "--markdown", "-")
    assert code == 0, said
    assert "Compared anyway" not in said  # the same settings: no caveat
