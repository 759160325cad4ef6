"""A panel never passes its members' labels off as a measured probability (QA 41 #5).

A jury's per-call reply (its ``--out`` file's panel calls, a jury used as one judge)
has probabilities only when every member that answered measured them: averaging a
label-only member in as 1 or 0 made one logprob member's panel look measured, and a
replay of it under ``--rule soft`` said "mean P(model 1 better)". An older file whose
panel calls hold such a mix is read as labels again, from its members' own calls.
The live ``jury --aggregate mean`` says what its mean averaged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import ParseFailure, Probabilities, Reply, Verdict
from fairjudge.cli import app
from fairjudge.judges import ReplayJudge
from fairjudge.judges._jury import panel_reply
from tests.out_file import out_records
from tests.server import JudgeServer

HERE = "python:tests.judges.test_jury_mixed_probabilities"
ROWS = [
    {"id": "a", "question": "Capital of France?", "answer_1": "Paris, the capital.",
     "answer_2": "Lyon."},
    {"id": "b", "question": "2+2?", "answer_1": "It is four.", "answer_2": "5"},
    {"id": "c", "question": "Largest planet?", "answer_1": "Mars", "answer_2": "Jupiter, by far."},
]  # fmt: skip
LABELS = "model 1 better 1, tie ½, model 2 better 0"


def label(question: str, answer_a: str, answer_b: str) -> str:
    """A label-only member: the longer answer."""
    return "B" if len(answer_b) > len(answer_a) else "A"


def measured(question: str, answer_a: str, answer_b: str) -> dict[str, float]:
    """A member that measures probabilities: 0.7 on the longer answer."""
    return {"A": 0.2, "B": 0.7, "tie": 0.1} if len(answer_b) > len(answer_a) else {
        "A": 0.7, "B": 0.2, "tie": 0.1}  # fmt: skip


@pytest.fixture
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def jury(items: Path, out: Path, *members: str) -> str:
    judges = [a for m in members for a in ("--judge", f"{HERE}:{m}")]
    return cli("jury", str(items), *judges, "--aggregate", "mean", "--bootstrap", "100",
               "--out", str(out))  # fmt: skip


def replay_soft(items: Path, out: Path) -> str:
    return cli("compare", str(items), "--judge", f"replay:{out}", "--rule", "soft",
               "--bootstrap", "100")  # fmt: skip


def test_a_panel_call_has_probabilities_only_when_every_answering_member_measured() -> None:
    sure = Reply(Verdict.A, Probabilities(0.8, 0.2))
    mixed = panel_reply([sure, Reply(Verdict.A), Reply(Verdict.B)], ["x", "y", "z"], [1, 1, 1])
    assert mixed.verdict is Verdict.A
    assert mixed.probabilities is None  # was (0.6, 0.4, 0): two labels averaged in as 1/0
    assert mixed.payload == {"members": {"x": "A", "y": "A", "z": "B"}}
    failed = Reply(verdict=None, raw="??", failure=ParseFailure("??", "no verdict"))
    both = panel_reply([sure, sure, failed], ["x", "y", "z"], [1, 1, 1])
    assert both.probabilities == Probabilities(0.8, 0.2, 0.0)


def test_the_out_file_of_a_mixed_panel_holds_no_panel_probabilities(
    items: Path, tmp_path: Path
) -> None:
    out = tmp_path / "jury.jsonl"
    jury(items, out, "measured", "label", "label")
    records = out_records(out, "jury")
    assert [c["probabilities"] for r in records for c in r["calls"]] == [None] * 6
    # The members' own calls keep what each measured.
    own = records[0]["members"]
    assert own[f"{HERE}:measured"]["calls"][0]["probabilities"] == {"A": 0.7, "B": 0.2,
                                                                    "tie": 0.1}  # fmt: skip
    assert own[f"{HERE}:label"]["calls"][0]["probabilities"] is None
    every = tmp_path / "every.jsonl"
    jury(items, every, "measured", "measured")
    calls = [c for r in out_records(every, "jury") for c in r["calls"]]
    assert calls[0]["probabilities"] == pytest.approx({"A": 0.7, "B": 0.2, "tie": 0.1})


def test_a_replay_of_a_mixed_panel_under_soft_is_a_mean_of_labels(
    items: Path, tmp_path: Path
) -> None:
    out = tmp_path / "jury.jsonl"
    jury(items, out, "measured", "label", "label")
    text = replay_soft(items, out)
    assert "mean P(model 1 better)" not in text
    assert "soft: mean of the labels, no probabilities)" in text
    assert (
        "note: The judge gave no probabilities: under the soft rule each call counts as its "
        f"label ({LABELS}), so this win rate is a mean of labels"
    ) in text


def test_an_older_file_with_mixed_panel_probabilities_is_read_as_labels(
    items: Path, tmp_path: Path
) -> None:
    out = tmp_path / "jury.jsonl"
    jury(items, out, "measured", "label", "label")
    # As an earlier fairjudge wrote it: the measured member's (0.7, 0.2, 0.1) averaged
    # with two labels counted as 1 and 0.
    lines = out.read_text("utf-8").split("\n")
    for n, line in enumerate(lines[1:], start=1):
        if line:
            record = json.loads(line)
            for call in record["calls"]:
                p = 0.9 if call["verdict"] == "A" else 0.2 / 3
                call["probabilities"] = {"A": p, "B": 0.9 + 0.2 / 3 - p, "tie": 0.1 / 3}
            lines[n] = json.dumps(record)
    out.write_text("\n".join(lines), encoding="utf-8")
    judge = ReplayJudge.from_file(out)
    assert all(r.probabilities is None for rs in judge.recordings.values() for r in rs.values())
    assert "soft: mean of the labels, no probabilities)" in replay_soft(items, out)


def test_an_older_file_whose_members_all_measured_keeps_its_probabilities(
    items: Path, tmp_path: Path
) -> None:
    out = tmp_path / "jury.jsonl"
    jury(items, out, "measured", "measured")
    judge = ReplayJudge.from_file(out)
    assert all(r.probabilities is not None for rs in judge.recordings.values() for r in rs.values())
    text = replay_soft(items, out)
    assert "soft: mean P(model 1 better))" in text
    assert "no probabilities" not in text


def test_the_live_mean_says_what_it_averaged(items: Path, tmp_path: Path) -> None:
    mixed = jury(items, tmp_path / "mixed.jsonl", "measured", "label", "label")
    assert "win rate of model 1 (mean; 2 of 3 members by label)" in mixed
    assert (
        f"note: {HERE}:label, {HERE}:label#2 gave no probabilities: under the mean rule each "
        f"of their calls counts as its label ({LABELS}), averaged with the probabilities "
        f"measured by {HERE}:measured, so this win rate is not a probability the panel "
        "measured."
    ) in mixed
    labels = jury(items, tmp_path / "labels.jsonl", "label", "label")
    assert "win rate of model 1 (mean of the labels, no probabilities)" in labels
    assert "note: No member gave probabilities" in labels
    every = jury(items, tmp_path / "every.jsonl", "measured", "measured")
    assert "win rate of model 1 (mean)" in every
    assert "no probabilities" not in every


def test_a_logprob_model_member_beside_label_only_members(
    openai_env: JudgeServer, items: Path, tmp_path: Path
) -> None:
    openai_env.configure(judge="longer")
    out = tmp_path / "jury.jsonl"
    text = cli("jury", str(items), "--judge", "openai/judge-a", "--judge", f"{HERE}:label",
               "--judge", f"{HERE}:label", "--base-url", openai_env.base_url, "--aggregate",
               "mean", "--bootstrap", "100", "--out", str(out))  # fmt: skip
    assert "win rate of model 1 (mean; 2 of 3 members by label)" in text
    assert "averaged with the probabilities measured by openai/judge-a" in text
    records = out_records(out, "jury")
    model_calls = [c for r in records for c in r["members"]["openai/judge-a"]["calls"]]
    assert all(c["probabilities"] is not None for c in model_calls)  # logprobs measured
    assert [c["probabilities"] for r in records for c in r["calls"]] == [None] * 6
    assert "soft: mean of the labels, no probabilities)" in replay_soft(items, out)
