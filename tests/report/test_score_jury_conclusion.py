"""``score-jury`` ends with a conclusion, and the known truth where human scores exist.

``compare`` ends with a plain conclusion; ``score-jury`` printed
none. A scoring panel has no win rate, so its conclusion is on what it does have:
whether the members agree (Krippendorff's ordinal alpha against
:data:`fairjudge.report._jury.AGREEMENT_BAR`, the whole interval), and, where
the input has ``human_<dimension>`` scores, whether the panel's scores follow them.
Each test runs ``fairjudge`` as a process, 80 columns wide, and reads its exit code
and stdout.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.cli_process import run_process
from tests.forked_cli import PACKAGES

ROOT = Path(__file__).resolve().parents[2]
P = "python:tests.panel_scorers"


def score_jury(*args: str) -> Any:
    """``fairjudge score-jury ARGS`` as a process, 80 columns wide, as when piped."""
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": path, "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    # A process of its own, forked from one that has imported the library.
    argv = ("score-jury", *args, "--bootstrap", "200")
    return run_process(
        argv, env=env, cwd=ROOT, timeout=240, program="fairjudge", preload=PACKAGES
    )  # PACKAGES: a server that starts fast, for the few runs in this environment


def _file(tmp_path: Path, answers: list[str], *, human: bool = True) -> str:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": a}
            | ({"human_accuracy": int(a[0])} if human else {})
            for i, a in enumerate(answers)]  # fmt: skip
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _flat(text: str) -> str:
    return " ".join(text.split())


FIVE = ["1 a", "5 b", "2 c", "4 d", "3 e"]


ALIKE = "(all alike, the bootstrap cannot vary)"


def test_a_panel_alike_on_every_question_reads_no_verdict_and_finds_the_known_truth(
    tmp_path: Path,
) -> None:
    # Two copies of one judge: alpha is 1 on every resample, a point no resample moves
    # (QA41b #2): marked, and no "the members agree" read from it.
    done = score_jury(_file(tmp_path, FIVE), "--judge", f"{P}:leading", "--judge", f"{P}:leading")
    assert done.returncode == 0, done.stderr
    out = _flat(done.stdout)
    for dimension in ("accuracy", "relevance", "usefulness"):
        assert (
            f"{dimension}: no conclusion on agreement (ordinal alpha 1.00 [1.00, 1.00] {ALIKE}): "
            "no verdict rests on it."
        ) in out
    assert "the members agree (" not in out
    assert (
        "Known truth, from the input's human_accuracy scores: the panel's scores follow them "
        "(Spearman 1.00 [1.00, 1.00], 5 answers: the whole interval is above 0)."
    ) in out


def test_a_panel_that_disagrees_alike_on_every_question_reads_no_verdict(tmp_path: Path) -> None:
    # the mirror scores 6 - digit: alpha is -0.8 on every resample of these five answers
    done = score_jury(_file(tmp_path, FIVE), "--judge", f"{P}:leading", "--judge", f"{P}:mirror")
    assert done.returncode == 0, done.stderr
    out = _flat(done.stdout)
    assert (
        f"accuracy: no conclusion on agreement (ordinal alpha -0.80 [-0.80, -0.80] {ALIKE}): "
        "no verdict rests on it."
    ) in out
    # their mean is 3 on every answer: nothing to rank against the humans' scores
    assert (
        "Known truth, from the input's human_accuracy scores: not compared (the judge's "
        "scores are all equal: no rank correlation)."
    ) in out


def test_an_interval_across_the_bar_is_no_conclusion(tmp_path: Path) -> None:
    done = score_jury(
        _file(tmp_path, FIVE, human=False), "--judge", f"{P}:leading", "--judge", f"{P}:high"
    )
    assert done.returncode == 0, done.stderr
    out = _flat(done.stdout)
    assert (
        "accuracy: unclear whether the members agree (ordinal alpha 0.81 [0.07, 0.90] "
        "contains 0.667)."
    ) in out
    assert "Known truth" not in out  # no human scores in the input


def test_nothing_scored_is_no_conclusion(tmp_path: Path) -> None:
    path = _file(tmp_path, ["5 a", "5 b"])
    done = score_jury(path, "--judge", f"{P}:fails_on_fives", "--judge", f"{P}:fails_on_fives")
    assert done.returncode == 4, done.stderr
    out = _flat(done.stdout)
    assert out.endswith("No item could be resolved: see the failures above.")
    assert "the members agree (" not in out


def test_the_pages_verdict_reads_no_side_from_an_alike_alpha() -> None:
    from types import SimpleNamespace

    from fairjudge.report._page_panel_jury import _side
    from fairjudge.stats import ConfidenceInterval

    alike = ConfidenceInterval.alike_point(1.0, 0.95, "every resample gives it")
    assert _side(SimpleNamespace(alpha=1.0, ci=alike)) == "no conclusion on"  # type: ignore[arg-type]
    measured = ConfidenceInterval(0.8, 0.95, 0.95)
    assert _side(SimpleNamespace(alpha=0.9, ci=measured)) == "agree on"  # type: ignore[arg-type]
