"""``calibrate`` exits 0 only when its gate was applied and passed.

Before, labels 1/2/tie without ``human_score`` printed S1 0.125 and kappa -0.75 and
exited 0 with no PASS/FAIL line; 2 items, or 1 pointwise item, exited 0 with "not
estimated" / "the gate is not applied". Now human labels are gated on Cohen's kappa
(``--min-kappa``, 0.4, compared with the point estimate), a failing gate exits 3, and
a gate that no check could be evaluated for exits 7 with a line saying why. The
commands run as processes, as a user runs them.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_process import fairjudge, flat

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "calibration.jsonl"
LONGER = "python:examples.judges:longer"
KNOWS = "python:examples.judges:knows_facts"


def labels_only(tmp_path: Path, n: int | None = None) -> str:
    """The example's items with their 1/2/tie labels and without ``human_score``."""
    rows = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        del row["human_score"]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[:n]), encoding="utf-8")
    return str(path)


def test_labels_only_are_gated_on_kappa_and_a_bad_judge_fails(tmp_path: Path) -> None:
    done = fairjudge("calibrate", labels_only(tmp_path), "--judge", LONGER, "--bootstrap", "200")
    assert done.returncode == 3, done.stderr
    assert "Cohen's kappa -0.750" in flat(done.stdout)
    assert "Gate: FAIL" in flat(done.stdout)
    assert "FAIL Cohen's kappa -0.750 [" in flat(done.stdout)
    assert "vs threshold 0.40 (the interval's upper end is below it too)" in flat(done.stdout)
    assert "gate failed: Cohen's kappa -0.750 < 0.4; do not use this judge" in flat(done.stderr)


def test_the_json_carries_the_gate(tmp_path: Path) -> None:
    done = fairjudge(
        "calibrate", labels_only(tmp_path), "--judge", LONGER, "--bootstrap", "200", "--json"
    )
    assert done.returncode == 3, done.stderr
    gate = json.loads(done.stdout)["gate"]
    assert (gate["outcome"], gate["passed"]) == ("failed", False)
    (kappa,) = gate["checks"]
    assert kappa["statistic"] == "Cohen's kappa"
    assert (kappa["threshold"], kappa["estimate"], kappa["passed"]) == (0.4, -0.75, False)
    assert kappa["ci"]["estimable"]


def test_a_good_judge_passes_and_min_kappa_moves_the_bar(tmp_path: Path) -> None:
    path = labels_only(tmp_path)
    good = fairjudge("calibrate", path, "--judge", KNOWS, "--bootstrap", "200")
    assert good.returncode == 0, good.stderr
    assert "Gate: PASS" in flat(good.stdout)
    assert "PASS Cohen's kappa 0.778 [" in flat(good.stdout)
    strict = fairjudge("calibrate", path, "--judge", KNOWS, "--bootstrap", "200",
                       "--min-kappa", "0.9", "--json")  # fmt: skip
    assert strict.returncode == 3, strict.stderr
    assert json.loads(strict.stdout)["gate"]["checks"][0]["threshold"] == 0.9
    assert "gate failed: Cohen's kappa 0.778 < 0.9" in flat(strict.stderr)


def test_too_few_items_is_no_gate_and_its_own_exit_code(tmp_path: Path) -> None:
    path = labels_only(tmp_path, n=2)
    done = fairjudge("calibrate", path, "--judge", KNOWS)
    assert done.returncode == 7, done.stderr
    assert "Gate: NOT APPLIED (no check could be evaluated: not a pass)" in flat(done.stdout)
    assert (
        "gate not applied: Cohen's kappa: needs 3 or more resolved items with a 'human' label "
        "(1/2/tie); have 2. No check could be evaluated"
    ) in flat(done.stderr)
    as_json = fairjudge("calibrate", path, "--judge", KNOWS, "--json")
    assert as_json.returncode == 7
    gate = json.loads(as_json.stdout)["gate"]
    assert (gate["outcome"], gate["passed"]) == ("not_applied", None)
    assert gate["checks"][0]["applied"] is False


def test_one_pointwise_item_is_no_gate(tmp_path: Path) -> None:
    path = tmp_path / "scores.jsonl"
    row = {"id": "a", "question": "What is the capital of Australia?", "answer": "Canberra.",
           "human_accuracy": 5}  # fmt: skip
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    scorer = "python:examples.judges:scorer"
    done = fairjudge("calibrate", str(path), "--judge", scorer)
    assert done.returncode == 7, done.stderr
    assert "gate not applied: accuracy: 1 item(s) with both scores" in flat(done.stderr)
    as_json = fairjudge("calibrate", str(path), "--judge", scorer, "--json")
    assert as_json.returncode == 7
    assert json.loads(as_json.stdout)["gate"]["outcome"] == "not_applied"
    # --min-kappa gates labels, which pointwise input has none of: refused, not ignored.
    refused = fairjudge("calibrate", str(path), "--judge", scorer, "--min-kappa", "0.5")
    assert refused.returncode == 2
    assert "--min-kappa applies to pairwise input" in flat(refused.stderr)


def test_a_bad_min_kappa_is_refused_before_any_call(tmp_path: Path) -> None:
    done = fairjudge("calibrate", labels_only(tmp_path), "--judge", LONGER, "--min-kappa", "2")
    assert done.returncode == 2
    assert "--min-kappa must be a number in [-1, 1]; got 2.0" in flat(done.stderr)
    assert done.stdout == ""
