"""``replay:FILE`` judges: recorded verdicts answered again, exactly, and never guessed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairjudge import CallError, ConfigError, InputError, Item, ParseFailure, Verdict
from fairjudge.cli import app
from fairjudge.evaluation import EvalSettings, evaluate_jury, evaluate_pairs, jury_diagnostics
from fairjudge.judges import (
    CallableJudge,
    Jury,
    JuryMember,
    MemberSpec,
    PairwiseRequest,
    ReplayJudge,
    resolve_judge,
)
from tests.out_file import out_records

runner = CliRunner()
SCRIPTED = "python:tests.judges.test_replay:scripted"
ROWS = [
    {"id": "a", "question": "Capital of France?", "answer_1": "Paris.",
     "answer_2": "Lyon, surely.", "human": "1"},
    {"id": "b", "question": "2+2?", "answer_1": "4", "answer_2": "It is five.", "human": "1"},
    {"id": "c", "question": "Largest planet?", "answer_1": "Jupiter is largest.",
     "answer_2": "Mars", "human": "2"},
    {"id": "d", "question": "Boiling point of water?", "answer_1": "100 °C at sea level.",
     "answer_2": "90 °C", "human": "tie"},
    {"id": "e", "question": "Author of Hamlet?", "answer_1": "Shakespeare.",
     "answer_2": "Marlowe wrote it.", "human": "1"},
]  # fmt: skip


def scripted(question: str, answer_a: str, answer_b: str) -> str:
    """A judge with every kind of reply: labels, an explanation, a tie, prose, an error."""
    if question.startswith("2+2"):
        return "A"  # position bias: inconsistent across the swap
    if question.startswith("Largest"):
        return "Both are fine, really."  # unreadable: a parse failure
    if question.startswith("Boiling"):
        raise RuntimeError("the judge's own bug")  # a call error
    if question.startswith("Author"):
        return "tie"
    return "Answer B is terse.\nVerdict: A" if len(answer_a) < len(answer_b) else "[[B]]"


def write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def items(tmp_path: Path) -> Path:
    return write(tmp_path / "items.jsonl", ROWS)


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout if "--json" in args else result.output


def comparable(summary: dict[str, Any]) -> dict[str, Any]:
    """Everything but the judge's name (the replay is named after its file) and its calls.

    The recorded Python judge ran on the engine, which counts its calls; a replay calls
    no one, so it has none to count.
    """
    summary.get("settings", summary).pop("judge")
    summary.pop("calls", None)
    return summary


# The scripted judge's kappa is 0 on the three labelled items it resolves: calibrate's gate
# (issue 21) would fail it, and this file is about replaying, not about the gate. Their
# labels are all one value, so the gate is not applied at all: exit 7 (QA 38 #4).
_GATE = {"compare": (), "calibrate": ("--min-kappa", "-1")}
_EXIT = {"compare": 0, "calibrate": 7}


def recorded(items: Path, tmp_path: Path, command: str = "compare") -> tuple[dict[str, Any], Path]:
    out = tmp_path / f"{command}.out.jsonl"
    code, text = cli(command, str(items), "--judge", SCRIPTED, "--out", str(out), "--json",
                     "--max-unresolved", "1", "--bootstrap", "200", *_GATE[command])  # fmt: skip
    assert code == _EXIT[command], text
    return json.loads(text), out


@pytest.mark.parametrize("command", ["compare", "calibrate"])
def test_replay_of_an_out_file_reproduces_the_run_exactly(
    items: Path, tmp_path: Path, command: str
) -> None:
    first, out = recorded(items, tmp_path, command)
    code, text = cli(command, str(items), "--judge", f"replay:{out}", "--json",
                     "--max-unresolved", "1", "--bootstrap", "200", *_GATE[command])  # fmt: skip
    assert code == _EXIT[command], text
    assert comparable(json.loads(text)) == comparable(first)


def test_replayed_out_records_match_call_for_call(items: Path, tmp_path: Path) -> None:
    first, out = recorded(items, tmp_path)
    again = tmp_path / "again.jsonl"
    code, text = cli("compare", str(items), "--judge", f"replay:{out}", "--out", str(again),
                     "--max-unresolved", "1", "--bootstrap", "200")  # fmt: skip
    assert code == 0, text
    assert out_records(out) == out_records(again)
    assert first["n_parse_failures"] == 2
    assert first["n_call_errors"] == 2


def test_a_missing_order_is_a_counted_call_error_naming_item_and_order(
    items: Path, tmp_path: Path
) -> None:
    _, out = recorded(items, tmp_path)
    records = out_records(out)
    records[0]["calls"] = [c for c in records[0]["calls"] if c["order"] == "original"]
    partial = write(tmp_path / "partial.jsonl", records)
    judged = tmp_path / "judged.jsonl"
    code, text = cli("compare", str(items), "--judge", f"replay:{partial}", "--json",
                     "--out", str(judged), "--max-unresolved", "1")  # fmt: skip
    assert code == 0, text
    assert json.loads(text)["n_call_errors"] == 3  # the missing call, and the two recorded
    first = out_records(judged)[0]
    assert first["outcome"] is None  # never guessed
    failure = first["calls"][1]["failure"]
    assert failure["kind"] == "NotRecorded"
    assert "item 'a'" in failure["message"]
    assert (
        "the call with answer 'Lyon, surely.' shown first (only the other order is recorded)"
        in (failure["message"])
    )


def test_an_unknown_item_names_its_question() -> None:
    judge = ReplayJudge({}, source="empty.jsonl")
    [reply] = judge.judge_batch([PairwiseRequest("Who painted it?", "Leonardo.", "Raphael.")])
    assert isinstance(reply.failure, CallError)
    assert reply.failure.kind == "NotRecorded"
    assert "'Who painted it?'" in reply.failure.message
    assert "'Leonardo.' shown first" in reply.failure.message


def test_rows_of_replies_and_verdicts(tmp_path: Path) -> None:
    rows = [
        {"question": "Q?", "answer_a": "x", "answer_b": "yy", "reply": "B is right.\nVerdict: B"},
        {"question": "Q?", "answer_a": "yy", "answer_b": "x", "verdict": "a",
         "probabilities": {"A": 0.7, "B": 0.2, "tie": 0.1}},
        {"question": "R?", "answer_a": "u", "answer_b": "v", "reply": "I cannot decide."},
        {"question": "R?", "answer_a": "v", "answer_b": "u", "reply": '{"verdict": "tie"}',
         "verdict_format": "json"},
    ]  # fmt: skip
    judge = resolve_judge(f"replay:{write(tmp_path / 'rec.jsonl', rows)}")
    assert isinstance(judge, ReplayJudge)
    result = evaluate_pairs(judge, [("Q?", "x", "yy"), ("R?", "u", "v")], n_resamples=50)
    first, second = result.judgments
    assert first.verdicts == (Verdict.B, Verdict.A)
    assert first.calls[1].reply.probabilities is not None
    assert first.outcome is not None
    assert first.outcome.value == "2"
    assert isinstance(second.calls[0].reply.failure, ParseFailure)
    assert second.calls[1].reply.verdict is Verdict.TIE
    assert second.outcome is None


def test_repeated_rows_are_successive_samples(tmp_path: Path) -> None:
    rows = [{"question": "Q?", "answer_a": "x", "answer_b": "y", "verdict": v} for v in "AB"]
    judge = ReplayJudge.from_file(write(tmp_path / "rec.jsonl", rows))
    replies = judge.judge_batch([PairwiseRequest("Q?", "x", "y", sample=s) for s in (0, 1, 2)])
    assert [r.verdict for r in replies] == [Verdict.A, Verdict.B, None]
    assert "sample 2" in str(replies[2].failure)


@pytest.mark.parametrize(
    ("lines", "line", "message"),
    [
        (['{"question": "Q", "answer_a": "x", "answer_b": "y", "verdict": "A"}', "{oops"], 2,
         "not JSON"),
        (['{"question": "Q", "answer_a": "x", "verdict": "A"}'], 1, "'answer_b' must be a string"),
        (['{"question": "Q", "answer_a": "x", "answer_b": "y", "verdict": "C"}'], 1,
         "'verdict' must be 'A', 'B' or 'tie'"),
        (['{"question": "Q", "answer_a": "x", "answer_b": "y"}'], 1, "needs 'reply'"),
        (["[1, 2]"], 1, "must be a JSON object"),
        (['{"question": "Q", "answer_1": "x", "answer_2": "y", "calls": []}'], 1, "'calls'"),
        (['{"question": "Q", "answer_1": "x", "answer_2": "y", '
          '"calls": [{"order": "sideways", "verdict": "A"}]}'], 1, "order"),
        (['{"question": "Q", "answer_a": "x", "answer_b": "y", "verdict": "A"}',
          '{"question": "Q", "answer_a": "x", "answer_b": "y", "verdict": "B", "sample": 0}'],
         2, "recorded twice"),
    ],
)  # fmt: skip
def test_a_bad_file_names_its_line(
    tmp_path: Path, lines: list[str], line: int, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        resolve_judge(f"replay:{path}")
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert caught.value.line == line


def test_an_empty_or_missing_file_is_an_input_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="holds no recording"):
        resolve_judge(f"replay:{empty}")
    with pytest.raises(InputError, match="cannot read"):
        resolve_judge(f"replay:{tmp_path / 'nowhere.jsonl'}")
    with pytest.raises(ConfigError, match="needs a file"):
        resolve_judge("replay:")


def test_options_that_do_not_apply_are_named(items: Path, tmp_path: Path) -> None:
    _, out = recorded(items, tmp_path)
    for flags, named in (
        (["--template", "default"], "--template"),
        (["--base-url", "http://127.0.0.1:9"], "--base-url"),
        (["--concurrency", "4"], "--concurrency"),
    ):
        code, text = cli("compare", str(items), "--judge", f"replay:{out}", *flags)
        assert code != 0
        assert named in text
        assert "does not apply" in text


def test_a_replay_sits_on_a_jury(items: Path, tmp_path: Path) -> None:
    _, out = recorded(items, tmp_path)
    jury = Jury.from_specs([MemberSpec(f"replay:{out}", name="recorded"),
                            MemberSpec("python:tests.judge_fixtures:longer")])  # fmt: skip
    assert jury.session is None  # no model member: no session, no store
    panel = [Item(r["question"], r["answer_1"], r["answer_2"], id=r["id"]) for r in ROWS]
    result = evaluate_jury(jury, panel, EvalSettings(n_resamples=50))
    live = evaluate_jury(
        Jury([JuryMember("recorded", CallableJudge(scripted)),
              JuryMember("longer", resolve_judge("python:tests.judge_fixtures:longer"))]),
        panel, EvalSettings(n_resamples=50),
    )  # fmt: skip
    assert result.judgments == live.judgments
    longer = "python:tests.judge_fixtures:longer"
    code, text = cli("jury", str(items), "--judge", f"replay:{out}", "--judge", longer,
                     "--json", "--max-unresolved", "1")  # fmt: skip
    assert code == 0, text
    assert json.loads(text)["members"][0]["name"] == f"replay:{out}"


def test_a_replayed_member_has_no_cached_count_beside_its_usage(
    items: Path, tmp_path: Path
) -> None:
    # A replay makes no call, so nothing of it is served from a store: its diagnostics'
    # cached is null, as its usage's made and cached are; a Python member keeps counts.
    _, out = recorded(items, tmp_path)
    longer = "python:tests.judge_fixtures:longer"
    jury = Jury.from_specs([MemberSpec(f"replay:{out}", name="recorded"), MemberSpec(longer)])
    panel = [Item(r["question"], r["answer_1"], r["answer_2"], id=r["id"]) for r in ROWS]
    replayed, python = jury_diagnostics(
        evaluate_jury(jury, panel, EvalSettings(n_resamples=50))
    ).members
    assert replayed.usage is not None
    assert python.usage is not None
    assert (replayed.cached, replayed.usage.cached, replayed.usage.made) == (None, None, None)
    assert (python.cached, python.usage.cached) == (0, 0)
    code, text = cli("jury", str(items), "--judge", f"replay:{out}", "--judge", longer,
                     "--json", "--max-unresolved", "1")  # fmt: skip
    assert code == 0, text
    member = json.loads(text)["members"][0]
    assert (member["cached"], member["usage"]["cached"], member["usage"]["made"]) == (None,) * 3
    assert member["calls"] == member["usage"]["calls"] == 2 * len(ROWS)


def test_the_example_recordings_cover_the_demo_items() -> None:
    root = Path(__file__).resolve().parents[2]
    judge = ReplayJudge.from_file(root / "examples" / "replay_reviews.jsonl")
    demo_text = (root / "examples" / "demo_pairs.jsonl").read_text(encoding="utf-8")
    demo = [json.loads(line) for line in demo_text.splitlines()]
    result = evaluate_pairs(
        judge, [(r["question"], r["answer_1"], r["answer_2"]) for r in demo], n_resamples=50
    )
    assert result.n_unresolved == 0
    assert result.n_inconsistent > 0  # the recorded reviewer leans to position A sometimes
