"""Adaptive stopping through the real pipeline: evaluate per batch, the sequence, the store."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import binom

from fairjudge import BudgetExceeded, ConfigError, Item
from fairjudge._call import CallSpec
from fairjudge.evaluation import (
    AdaptiveResult,
    EvalSettings,
    compare_via_scores,
    compare_via_scores_adaptive,
    evaluate,
    evaluate_adaptive,
    evaluate_jury,
    evaluate_jury_adaptive,
)
from fairjudge.evaluation._adaptive import default_batch, draw_order
from fairjudge.judges import CallableJudge, Jury, JuryMember
from fairjudge.judges._pairwise import LLMJudge
from fairjudge.runner import RunOptions, Store
from fairjudge.stats import Population
from tests.runner._fakes import FakeBackend
from tests.server import extract_pair

FLAG = re.compile(r"(?<![\w-])--[a-z]")
SETTINGS = EvalSettings(n_resamples=100)

# --- scripted files and judges ---------------------------------------------------------
# Each item's answers carry its key ("one|q3.0", "two|q3.0"); a script maps the key to
# what the judge says of it: "1" or "2" (that model's answer wins in both orders),
# "tie", "garbage" (a reply with no verdict) or "error" (the call raises).


def make_file(outcomes: list[str], per_question: int = 1) -> tuple[list[Item], dict[str, str]]:
    """Items for ``len(outcomes) / per_question`` questions, and the script behind them."""
    items, script = [], {}
    for n, outcome in enumerate(outcomes):
        q, k = divmod(n, per_question)
        key = f"q{q}.{k}"
        script[key] = outcome
        items.append(Item(f"question {q}", f"one|{key}", f"two|{key}", id=key))
    return items, script


def say(script: Mapping[str, str], answer_a: str, answer_b: str) -> str:
    want = script[answer_a.split("|")[1]]
    if want == "garbage":
        return "I would rather not choose."
    if want == "error":
        raise RuntimeError("the backend hiccupped")
    if want == "tie":
        return "tie"
    return "A" if (want == "1") == answer_a.startswith("one") else "B"


def python_judge(script: Mapping[str, str]) -> Callable[[str, str, str], str]:
    return lambda question, answer_a, answer_b: say(script, answer_a, answer_b)


def backend(script: Mapping[str, str], *, cap: int | None = None) -> FakeBackend:
    def reply(spec: CallSpec, attempt: int) -> str:
        pair = extract_pair(spec.messages[-1][1])
        assert pair is not None
        return say(script, pair.answer_a, pair.answer_b)

    return FakeBackend(reply, max_concurrency=cap)


def model_judge(fake: FakeBackend, store: Path, max_calls: int | None = None) -> LLMJudge:
    options = RunOptions(progress="quiet", max_calls=max_calls)
    return LLMJudge(fake, store=store, options=options)


def mixed(n: int, seed: int) -> list[str]:
    """60% wins for model 1, 20% ties, 20% losses, shuffled."""
    base = ["1"] * (3 * n // 5) + ["tie"] * (n // 5) + ["2"] * (n - 3 * n // 5 - n // 5)
    return [base[i] for i in np.random.default_rng(seed).permutation(n)]


def judged_keys(result: AdaptiveResult) -> list[str]:
    return [j.item.cluster_key for j in result.pairwise.judgments]


# --- stopping ---------------------------------------------------------------------------


def test_a_clear_winner_is_decided_early_for_a_fraction_of_the_calls() -> None:
    items, script = make_file(["1"] * 200)
    result = evaluate_adaptive(python_judge(script), items, SETTINGS, "decided", batch=8)
    assert result.reason == "decided"
    assert result.stopped is None
    assert not result.partial
    assert result.interval.winner == "1"
    assert (result.questions_judged, result.n_questions, result.items_judged) == (16, 200, 16)
    assert (result.calls_used, result.calls_new, result.calls_saved) == (32, 32, 368)
    assert result.calls_full == 400
    assert result.interval.interval.low == pytest.approx(0.6585)
    assert result.interval.interval.high == 1.0
    # The judged questions are the first 16 of the seeded order, in input order.
    first = sorted(q[0] for q in draw_order(items, SETTINGS.seed)[:16])
    assert [j.item for j in result.pairwise.judgments] == [items[i] for i in first]
    # The comparison is all there, marked as adaptively stopped.
    data = result.to_dict()
    assert data["n_items"] == 16
    assert data["win_rate"]["estimate"] == 1.0
    block = data["adaptive"]
    assert block["adaptive"] is True
    assert (block["reason"], block["stop_when"], block["stopped_early"]) == (
        "decided",
        "decided",
        True,
    )
    assert block["bootstrap_ci_valid"] is False
    assert "not valid" in block["note"]
    assert block["questions"] == {"judged": 16, "total": 200}
    assert block["calls"] == {
        "used": 32, "new": 32, "not_run": 0, "saved": 368, "not_made": 0, "full": 400,
    }  # fmt: skip
    assert block["population"] == "source"
    assert block["describes"].startswith("questions like these")
    assert (
        block["conclusion"]
        == result.conclusion
        == ("Model 1 is better: the whole anytime-valid interval lies above 0.5.")
    )
    assert result.summary().startswith(
        "adaptive stop: decided (stop_when=decided) after 16 of 200 questions, 16 of 200 "
        "items; calls 32 of 400 (32 new, 368 saved, 0 not made)"
    )
    assert result.summary().endswith(block["conclusion"])


@pytest.mark.parametrize(
    ("population", "bounds"), [("source", (0.4435, 0.5565)), ("file", (0.5, 0.5))]
)
def test_a_judge_that_ties_everything_never_decides(
    population: Population, bounds: tuple[float, float]
) -> None:
    items, script = make_file(["tie"] * 60)
    judge = python_judge(script)
    result = evaluate_adaptive(judge, items, SETTINGS, "decided", batch=8, population=population)
    assert result.reason == "not decided"
    assert result.interval.winner is None
    assert (result.questions_judged, result.calls_used, result.calls_saved) == (60, 120, 0)
    ci = result.interval.interval
    # About this file, its exact win rate; about questions like these, an interval.
    assert (ci.low, ci.high) == bounds
    assert not result.stopped_early
    assert result.to_dict()["adaptive"]["bootstrap_ci_valid"] is True
    # The whole file judged in batches is the fixed run, field for field.
    assert result.pairwise.to_dict() == evaluate(judge, items, SETTINGS).to_dict()


def test_a_run_without_stop_when_is_the_fixed_run_with_its_exact_win_rate() -> None:
    outcomes = mixed(90, 1)
    outcomes[5] = "garbage"  # a question with one of its three items unresolved
    items, script = make_file(outcomes, per_question=3)
    judge = python_judge(script)
    result = evaluate_adaptive(judge, items, SETTINGS, None, batch=7, population="file")
    assert result.reason == "complete"
    assert result.conclusion is None  # nothing decided on a look: the bootstrap's verdict
    assert result.stop_when is None
    assert result.pairwise.to_dict() == evaluate(judge, items, SETTINGS).to_dict()
    score = {"1": 1.0, "tie": 0.5, "2": 0.0, "garbage": 0.0}
    units = np.array([score[o] for o in outcomes]).reshape(30, 3).mean(axis=1)
    ci = result.interval.interval
    # The unresolved item is 0 in the lower bound and 1 in the upper: a third of a unit.
    assert ci.low == pytest.approx(units.sum() / 30)
    assert ci.high == pytest.approx((units.sum() + 1 / 3) / 30)
    interval = result.interval
    assert (interval.unresolved_items, interval.unresolved_questions) == (1, 0)
    assert interval.partly_unresolved_questions == 1


@pytest.mark.parametrize(("failure", "parse", "errors"), [("garbage", 80, 0), ("error", 0, 80)])
def test_failed_judgments_are_bounded_never_counted_as_ties(
    failure: str, parse: int, errors: int
) -> None:
    outcomes = ["1"] * 28 + ["tie"] * 12 + [failure] * 40
    outcomes = [outcomes[i] for i in np.random.default_rng(2).permutation(80)]
    items, script = make_file(outcomes)
    about_source = evaluate_adaptive(python_judge(script), items, SETTINGS, "decided", batch=8)
    assert (about_source.reason, about_source.interval.winner) == ("not decided", None)
    # About this file only, the bounds at its end are exact.
    failed = evaluate_adaptive(
        python_judge(script), items, SETTINGS, "decided", batch=8, population="file"
    )
    # Counted as ties, the failures would decide the file (win rate 0.675)...
    as_ties = {k: "tie" if v == failure else v for k, v in script.items()}
    tied = evaluate_adaptive(
        python_judge(as_ties), items, SETTINGS, "decided", batch=8, population="file"
    )
    assert (tied.reason, tied.interval.winner, tied.questions_judged) == ("decided", "1", 32)
    # ...but unknown in [0, 1] they leave it open: [28 + 6, 28 + 6 + 40] / 80.
    assert (failed.reason, failed.interval.winner, failed.questions_judged) == (
        "not decided",
        None,
        80,
    )
    ci = failed.interval.interval
    assert (ci.low, ci.high) == (0.425, 0.925)
    assert failed.interval.estimate == 34 / 40  # the resolved questions' mean
    assert (failed.interval.unresolved_items, failed.interval.unresolved_questions) == (40, 40)
    assert failed.pairwise.n_parse_failures == parse
    assert failed.pairwise.n_call_errors == errors
    assert failed.pairwise.n_unresolved == 40
    assert failed.pairwise.win_rate is not None
    assert failed.pairwise.win_rate.ties == 12
    unresolved = failed.to_dict()["adaptive"]["unresolved"]
    assert unresolved["items"] == 40
    assert unresolved["questions_without_result"] == 40
    assert "never a tie" in unresolved["counted_as"]


def test_width_stops_when_the_interval_is_narrow_enough() -> None:
    items, script = make_file(mixed(300, 3))
    result = evaluate_adaptive(python_judge(script), items, SETTINGS, "width:0.15", batch=10)
    assert result.reason == "width"
    assert result.interval.half_width <= 0.15
    assert result.questions_judged == 50
    assert result.to_dict()["adaptive"]["stop_when"] == "width:0.15"


def test_decided_comes_first_when_both_conditions_are_given() -> None:
    items, script = make_file(mixed(300, 3))
    judge = python_judge(script)
    both = evaluate_adaptive(judge, items, SETTINGS, ["width:0.05", "decided"], batch=10)
    assert (both.reason, both.questions_judged) == ("decided", 110)
    assert both.interval.half_width > 0.05


# --- the order, reruns and resumes -----------------------------------------------------


def test_the_draw_order_is_seeded_stable_and_by_question() -> None:
    items, _ = make_file(["1"] * 60, per_question=3)
    order = draw_order(items, 5)
    assert order == draw_order(items, 5)
    assert order != draw_order(items, 6)
    assert sorted(i for q in order for i in q) == list(range(60))
    assert all(len({items[i].cluster_key for i in q}) == 1 and len(q) == 3 for q in order)
    # The place of a question depends on the seed and the question, not on the file's order.
    keys = [items[q[0]].cluster_key for q in order]
    backwards = items[::-1]
    assert [backwards[q[0]].cluster_key for q in draw_order(backwards, 5)] == keys


def test_a_rerun_gives_the_same_result() -> None:
    items, script = make_file(mixed(120, 4), per_question=2)
    runs = [
        evaluate_adaptive(python_judge(script), items, SETTINGS, "decided", batch=5)
        for _ in range(2)
    ]
    assert runs[0].to_dict(include_judgments=True) == runs[1].to_dict(include_judgments=True)
    assert judged_keys(runs[0]) == judged_keys(runs[1])


def test_a_rerun_with_a_tighter_target_reuses_every_stored_call(tmp_path: Path) -> None:
    items, script = make_file(mixed(120, 5))
    store = tmp_path / "calls.sqlite"
    first_backend = backend(script)
    with model_judge(first_backend, store) as judge:
        first = evaluate_adaptive(judge, items, SETTINGS, "decided")
    assert first.batch == 8  # one wave of the default concurrency of 16: 8 questions
    assert (first.reason, first.questions_judged, first.calls_used) == ("decided", 48, 96)
    assert first_backend.calls == first.calls_new == 96
    with Store(store) as s:
        assert s.count() == 96

    tighter = backend(script)
    with model_judge(tighter, store) as judge:
        second = evaluate_adaptive(judge, items, SETTINGS, "width:0.12")
    assert (second.reason, second.questions_judged) == ("width", 112)
    assert second.calls_used == 224
    assert tighter.calls == second.calls_new == 224 - 96  # only the questions after the stop
    assert set(judged_keys(first)) <= set(judged_keys(second))

    to_the_end = backend(script)
    with model_judge(to_the_end, store) as judge:
        third = evaluate_adaptive(judge, items, SETTINGS, None)
    assert (third.reason, third.calls_used, to_the_end.calls) == ("complete", 240, 240 - 224)

    fixed = backend(script)
    with model_judge(fixed, store) as judge:
        plain = evaluate(judge, items, SETTINGS)
    assert fixed.calls == 0  # the whole file is in the store
    assert plain.to_dict() == third.pairwise.to_dict()
    with Store(store) as s:
        assert s.count() == 240


def _without_new(data: dict[str, Any]) -> dict[str, Any]:
    data["adaptive"]["calls"].pop("new")
    return data


def test_a_run_stopped_mid_batch_then_resumed_equals_an_uninterrupted_run(
    tmp_path: Path,
) -> None:
    items, script = make_file(mixed(120, 6), per_question=2)
    whole_backend = backend(script)
    with model_judge(whole_backend, tmp_path / "whole.sqlite") as judge:
        whole = evaluate_adaptive(judge, items, SETTINGS, "decided", batch=6)
    assert (whole.reason, whole.questions_judged, whole.calls_used) == ("decided", 24, 96)

    store = tmp_path / "killed.sqlite"
    with model_judge(backend(script), store, max_calls=53) as judge:
        killed = evaluate_adaptive(judge, items, SETTINGS, "decided", batch=6)
    assert killed.reason == "budget"
    assert killed.partial
    assert killed.stopped is not None
    assert "budget is spent: 53 calls made" in killed.stopped
    assert killed.to_dict()["stopped"] == killed.stopped
    assert (killed.calls_used, killed.calls_not_run) == (53, 19)
    # The sequence took the stopped batch's questions up to the first with a call not made.
    assert killed.questions_judged == 13
    assert killed.interval.n == 13
    with Store(store) as s:
        assert s.count() == 53

    resumed_backend = backend(script)
    with model_judge(resumed_backend, store) as judge:
        resumed = evaluate_adaptive(judge, items, SETTINGS, "decided", batch=6)
    assert resumed_backend.calls == resumed.calls_new == 96 - 53  # no call made twice
    assert _without_new(resumed.to_dict(include_judgments=False)) == _without_new(
        whole.to_dict(include_judgments=False)
    )
    assert judged_keys(resumed) == judged_keys(whole)


def test_max_calls_and_stop_when_stop_at_whichever_comes_first(tmp_path: Path) -> None:
    items, script = make_file(["1"] * 100)
    with model_judge(backend(script), tmp_path / "a.sqlite", max_calls=1000) as judge:
        rule_first = evaluate_adaptive(judge, items, SETTINGS, "decided", batch=8)
    assert (rule_first.reason, rule_first.stopped, rule_first.calls_used) == ("decided", None, 32)
    with model_judge(backend(script), tmp_path / "b.sqlite", max_calls=20) as judge:
        budget_first = evaluate_adaptive(judge, items, SETTINGS, "decided", batch=8)
    assert budget_first.reason == "budget"
    assert budget_first.stopped is not None
    # The budget ended the batch before the rule was asked; the interval is as it stood.
    assert budget_first.interval.winner == "1"
    assert (budget_first.calls_used, budget_first.questions_judged) == (20, 10)
    block = budget_first.to_dict()["adaptive"]
    assert (block["reason"], block["bootstrap_ci_valid"]) == ("budget", False)
    assert budget_first.to_dict()["partial"] is True


# --- validity ---------------------------------------------------------------------------


def test_coverage_of_questions_like_these_at_the_stopping_times_seen() -> None:
    # 60 files, each of 40 questions of 2 items drawn afresh from a population whose win
    # rate is 0.6; each run stops by the rule, or at its file's end. The interval at the
    # stop must cover 0.6, the population's win rate, in at least 95% of runs.
    score = {"1": 1.0, "tie": 0.5, "2": 0.0}
    rng = np.random.default_rng(8)
    misses, wrong, files_below, stops = 0, 0, 0, []
    for seed in range(60):
        outcomes = list(rng.choice(["1", "tie", "2"], p=[0.5, 0.2, 0.3], size=80))
        items, script = make_file(outcomes, per_question=2)
        settings = EvalSettings(seed=seed, n_resamples=20)
        result = evaluate_adaptive(python_judge(script), items, settings, "decided", batch=4)
        ci = result.interval.interval
        misses += not ci.low <= 0.6 <= ci.high
        stops.append(result.questions_judged)
        wrong += result.interval.winner == "2"
        files_below += np.mean([score[o] for o in outcomes]) < 0.5
    assert misses == 1
    assert misses <= binom.ppf(0.95, 60, 0.05)
    assert (wrong, files_below) == (0, 2)  # no run says model 2 wins, though 2 files do
    assert sum(n < 40 for n in stops) == 10  # 40 questions are few to tell 0.6 from 0.5


def test_coverage_of_this_file_at_the_stopping_times_seen_through_the_pipeline() -> None:
    # One small file (40 questions of 2 items, file win rate 0.7) judged in 40 seeded
    # orders, about this file only; each run stops by the rule. The interval at the stop
    # must cover the file's win rate in at least 95% of runs.
    outcomes = mixed(80, 7)
    items, script = make_file(outcomes, per_question=2)
    score = {"1": 1.0, "tie": 0.5, "2": 0.0}
    truth = float(np.mean([score[o] for o in outcomes]))
    judge = python_judge(script)
    misses, stops = 0, []
    for seed in range(40):
        settings = EvalSettings(seed=seed, n_resamples=20)
        result = evaluate_adaptive(
            judge, items, settings, "decided,width:0.2", batch=4, population="file"
        )
        ci = result.interval.interval
        misses += not ci.low <= truth <= ci.high
        stops.append(result.questions_judged)
    assert truth == 0.7
    assert misses == 1
    assert misses <= binom.ppf(0.95, 40, 0.05)
    assert np.median(stops) < 40  # the runs do stop early


# --- settings ---------------------------------------------------------------------------


def test_the_default_batch_fills_one_wave_of_the_judge(tmp_path: Path) -> None:
    items, script = make_file(["1"] * 12)
    assert default_batch(python_judge(script), 2, 100, 100) == 8
    with LLMJudge(
        backend(script), store=tmp_path / "s.sqlite", options=RunOptions(concurrency=64)
    ) as judge:
        assert default_batch(judge, 2, 100, 100) == 32
        assert default_batch(judge, 2, 300, 100) == 11  # three items a question
        assert default_batch(judge, 4, 100, 100) == 16
    capped = backend(script, cap=20)
    with LLMJudge(capped, store=tmp_path / "t.sqlite", options=RunOptions(concurrency=64)) as j:
        assert default_batch(j, 2, 100, 100) == 10
    result = evaluate_adaptive(python_judge(script), items, SETTINGS, "decided")
    assert result.batch == 8


@pytest.mark.parametrize(
    ("kwargs", "says", "param"),
    [
        ({"stop_when": "soon"}, "stop_when has an unknown condition 'soon'", "stop_when"),
        ({"stop_when": "decided", "batch": 0}, "batch must be a whole number", "batch"),
        ({"stop_when": "decided", "batch": True}, "got True", "batch"),
    ],
)
def test_bad_settings_name_the_parameter_before_any_call(
    kwargs: dict[str, Any], says: str, param: str
) -> None:
    calls: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        calls.append(question)
        return "A"

    items, _ = make_file(["1"] * 4)
    with pytest.raises(ConfigError) as info:
        evaluate_adaptive(judge, items, SETTINGS, **kwargs)
    assert says in str(info.value)
    assert info.value.params == (param,)
    assert not FLAG.search(str(info.value))
    assert calls == []
    with pytest.raises(ConfigError, match="items is empty"):
        evaluate_adaptive(judge, [], SETTINGS, "decided")


# --- a panel ----------------------------------------------------------------------------


def jury_of(*judges: Callable[[str, str, str], str]) -> Jury:
    return Jury([JuryMember(f"m{k}", CallableJudge(j), 1.0) for k, j in enumerate(judges)])


def test_a_panel_decides_early_on_its_majority_verdict() -> None:
    items, script = make_file(["1"] * 200)
    contrary = {key: "2" for key in script}  # one member always disagrees: outvoted
    jury = jury_of(python_judge(script), python_judge(script), python_judge(contrary))
    result = evaluate_jury_adaptive(jury, items, SETTINGS, "decided", batch=8)
    assert (result.reason, result.interval.winner) == ("decided", "1")
    assert (result.questions_judged, result.n_questions, result.items_judged) == (16, 200, 16)
    # Every member's calls count: 3 members x 2 orders.
    assert (result.calls_used, result.calls_saved, result.calls_full) == (96, 1104, 1200)
    assert result.interval.interval.low == pytest.approx(0.6585)
    panel = result.pairwise
    assert panel.n_items == 16
    assert panel.win_rate is not None
    assert panel.win_rate.estimate == 1.0
    assert [m.win_rate.estimate for m in panel.members if m.win_rate] == [1.0, 1.0, 0.0]
    assert [j.item.cluster_key for j in panel.judgments] == judged_keys(
        evaluate_adaptive(python_judge(script), items, SETTINGS, "decided", batch=8)
    )
    data = result.to_dict()
    assert data["adaptive"]["calls"] == {
        "used": 96, "new": 96, "not_run": 0, "saved": 1104, "not_made": 0, "full": 1200,
    }  # fmt: skip
    assert data["aggregation"] == "majority"


def test_a_panel_run_to_the_end_is_evaluate_jury() -> None:
    items, script = make_file(mixed(60, seed=4), per_question=2)
    flip = {key: {"1": "2", "2": "1"}.get(v, v) for key, v in script.items()}
    jury = jury_of(python_judge(script), python_judge(flip), python_judge(script))
    for rule in ("majority", "mean"):
        full = evaluate_jury_adaptive(jury, items, SETTINGS, None, aggregation=rule, batch=5)
        fixed = evaluate_jury(jury, items, SETTINGS, aggregation=rule)
        assert full.reason == "complete"
        assert full.pairwise.to_dict(include_judgments=True) == fixed.to_dict(
            include_judgments=True
        )
        assert full.calls_used == full.calls_full == 360
        # The interval is the panel's win rate over the questions, a point at the end.
        assert fixed.win_rate is not None
        assert full.interval.estimate == pytest.approx(fixed.win_rate.estimate)


def test_a_panel_item_a_member_failed_is_bounded_never_a_tie() -> None:
    items, script = make_file(["1"] * 40)
    broken = dict(script, **{f"q{q}.0": "garbage" for q in range(0, 40, 4)})
    jury = jury_of(python_judge(script), python_judge(broken), python_judge(script))
    result = evaluate_jury_adaptive(jury, items, SETTINGS, None, batch=8, population="file")
    assert result.interval.unresolved_items == 10
    assert result.pairwise.n_unresolved == 10
    ci = result.interval.interval
    assert (ci.low, ci.high) == (pytest.approx(0.75), 1.0)  # 0 in the lower bound, 1 above


# --- compare via scores -------------------------------------------------------------------


def scorer(script: Mapping[str, str]) -> Callable[[str, str], dict[str, int]]:
    """Scores 5 the answer the script names the winner, 2 the other; 3 both on a tie."""

    def score(question: str, answer: str) -> dict[str, int]:
        side, key = answer.split("|")
        want = script[key]
        value = 3 if want == "tie" else 5 if (want == "1") == (side == "one") else 2
        return dict.fromkeys(("accuracy", "relevance", "usefulness"), value)

    return score


def test_via_scores_decides_early_and_a_full_run_is_compare_via_scores() -> None:
    items, script = make_file(["1"] * 200)
    result = compare_via_scores_adaptive(scorer(script), items, SETTINGS, "decided", batch=8)
    assert (result.reason, result.interval.winner) == ("decided", "1")
    assert (result.questions_judged, result.calls_used, result.calls_full) == (16, 32, 400)
    assert result.pairwise.n_items == 16
    items, script = make_file(mixed(40, seed=2), per_question=2)
    full = compare_via_scores_adaptive(scorer(script), items, SETTINGS, None, batch=3)
    fixed = compare_via_scores(scorer(script), items, n_resamples=100)
    assert full.reason == "complete"
    assert full.pairwise.to_dict(include_items=True) == fixed.to_dict(include_items=True)
    assert fixed.win_rate is not None
    assert full.interval.estimate == pytest.approx(fixed.win_rate.estimate)


def test_via_scores_budget_stop_keeps_the_prefix_of_fully_scored_questions() -> None:
    items, _ = make_file(["1"] * 40)
    made = 0

    def until_21(question: str, answer: str) -> dict[str, int]:
        nonlocal made
        made += 1
        if made > 21:
            raise BudgetExceeded("the budget is spent (test)")
        return dict.fromkeys(("accuracy", "relevance", "usefulness"), 4)

    result = compare_via_scores_adaptive(until_21, items, SETTINGS, "decided", batch=8)
    assert (result.reason, result.stopped) == ("budget", "the budget is spent (test)")
    # Batch 2 made 5 calls: questions 9 and 10 in full, one answer of the 11th.
    assert (result.questions_judged, result.pairwise.n_items) == (10, 16)
    assert result.pairwise.partial
    # Nothing is saved: the budget left 59 calls unmade (11 of them in the stopped batch).
    assert result.adaptive_dict()["calls"] == {
        "used": 21, "new": 21, "not_run": 11, "saved": 0, "not_made": 59, "full": 80,
    }  # fmt: skip


# --- what the decision is about -----------------------------------------------------------


def test_population_is_checked_and_named_before_any_call() -> None:
    import fairjudge
    from fairjudge.stats import StopRule

    calls: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        calls.append(question)
        return "A"

    items, _ = make_file(["1"] * 4)
    alone = ("population",)
    cases: list[tuple[Callable[[], object], str, tuple[str, ...]]] = [
        (lambda: evaluate_adaptive(judge, items, SETTINGS, "decided", population="files"),
         "population must be 'source'", alone),  # type: ignore[arg-type]
        (lambda: evaluate_adaptive(judge, items, SETTINGS, None, population="all"),
         "population must be 'source' or 'file'; got 'all'", alone),  # type: ignore[arg-type]
        (lambda: evaluate_adaptive(
            judge, items, SETTINGS, StopRule(decided=True, population="file"), population="source"
        ), "contradicts the stop rule's population='file'", alone),
        (lambda: fairjudge.compare(
            [{"question": "q", "answer_1": "a", "answer_2": "b"}], judge, population="file"
        ), "population applies with stop_when only", ("population", "stop_when")),
    ]  # fmt: skip
    for call, says, params in cases:
        with pytest.raises(ConfigError) as info:
            call()
        assert says in str(info.value)
        assert info.value.params == params
        assert not FLAG.search(str(info.value))
    assert calls == []


def test_compare_population_file_is_the_sequence_about_this_file() -> None:
    import fairjudge

    rows = [{"question": f"q{i}", "answer_1": "a", "answer_2": "b"} for i in range(60)]
    half = {f"q{i}": "A" if i < 31 else "B" for i in range(60)}  # 31 of 60 to model 1

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        first_is_1 = answer_a == "a"
        return "A" if (half[question] == "A") == first_is_1 else "B"

    source = fairjudge.compare(rows, judge, stop_when="decided").to_dict()["adaptive"]
    this_file = fairjudge.compare(rows, judge, stop_when="decided", population="file")
    block = this_file.to_dict()["adaptive"]
    assert (source["population"], source["winner"], source["reason"]) == (
        "source", None, "not decided",
    )  # fmt: skip
    assert (block["population"], block["winner"], block["reason"]) == ("file", "1", "decided")
    assert block["ci"]["low"] == block["ci"]["high"] == pytest.approx(31 / 60)
    assert this_file.summary().endswith(block["conclusion"])
    assert block["conclusion"].startswith("On this file only, model 1 is better")
