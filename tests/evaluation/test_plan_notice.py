"""A large plan says so before it is built, instead of a silent minute.

An LLM judge's run builds every call (prompt rendered, key hashed) before it sends the
first: 1,000,000 calls took a minute with nothing on standard error. From
``PLAN_NOTICE_CALLS`` calls a line says the plan is being built; a quiet run, a
display of the caller's own and a Python judge (which builds nothing up front) print
nothing, and the result is the same either way.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from fairjudge import Item
from fairjudge.evaluation import evaluate_pairs
from fairjudge.judges._pairwise import LLMJudge
from fairjudge.runner import RunOptions, _progress
from fairjudge.runner._progress import announce_plan
from tests.runner._fakes import FakeBackend

ITEMS = [Item(f"q{i}", "a longer answer", "short", id=str(i)) for i in range(3)]


def test_announce_plan_names_the_count_from_the_threshold_on() -> None:
    out = io.StringIO()
    announce_plan(_progress.PLAN_NOTICE_CALLS - 1, "plain", out)
    assert out.getvalue() == ""
    announce_plan(1_000_000, "plain", out)
    assert out.getvalue() == (
        "fairjudge: planning 1,000,000 calls (rendering each prompt, hashing its key)...\n"
    )


@pytest.mark.parametrize("mode", ["quiet", object()])
def test_a_quiet_run_or_a_display_of_ones_own_gets_no_line(mode: object) -> None:
    out = io.StringIO()
    announce_plan(1_000_000, mode, out)
    assert out.getvalue() == ""


def run(tmp_path: Path, progress: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    fake = FakeBackend(lambda spec, attempt: "[[A]]")
    options = RunOptions(progress=progress, max_calls=0)  # plans every call, makes none
    with LLMJudge(fake, store=tmp_path / "store.sqlite", options=options) as judge:
        result = evaluate_pairs(judge, ITEMS, rounds=1, balanced=True)
    assert fake.calls == 0
    assert result.n_not_run == 3
    return capsys.readouterr().err, repr(result.to_dict(include_judgments=True))


def test_an_llm_judge_run_says_it_is_planning_before_its_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_progress, "PLAN_NOTICE_CALLS", 3)
    err, items = run(tmp_path, "plain", capsys)
    first = err.splitlines()[0]
    assert first == "fairjudge: planning 3 calls (rendering each prompt, hashing its key)..."
    quiet_err, quiet_items = run(tmp_path, "quiet", capsys)
    assert "planning" not in quiet_err
    assert quiet_items == items  # the line changes nothing in the result


def test_a_python_judge_run_prints_no_planning_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_progress, "PLAN_NOTICE_CALLS", 1)
    result = evaluate_pairs(lambda q, a, b: "A", ITEMS, rounds=1, balanced=True)
    assert result.n_items == 3
    assert "planning" not in capsys.readouterr().err


@pytest.mark.parametrize(("rounds", "balanced"), [(1, True), (1, False), (2, True)])
def test_a_plan_that_draws_no_order_hashes_no_item_seed(
    rounds: int, balanced: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fairjudge.evaluation import _results

    expected = evaluate_pairs(lambda q, a, b: "A", ITEMS, rounds=rounds, balanced=balanced)

    def no_seed(*parts: object) -> int:
        raise AssertionError("item_seed was computed for a plan that draws nothing")

    monkeypatch.setattr(_results, "item_seed", no_seed)
    result = evaluate_pairs(lambda q, a, b: "A", ITEMS, rounds=rounds, balanced=balanced)
    assert result.to_dict(include_judgments=True) == expected.to_dict(include_judgments=True)
    assert result.n_items == 3
