"""The frame every result shares: its JSON, its failures and its stop, written once."""

from __future__ import annotations

from dataclasses import replace

from fairjudge import Item, ScoreItem, evaluate_pairs
from fairjudge.evaluation import compare_via_scores, score_answers
from fairjudge.evaluation._settings import members_failures

ITEMS = [Item(f"q{i}?", "a long answer", "short", id=str(i)) for i in range(4)]


def flaky(q: str, a: str, b: str) -> str:
    if q == "q0?":
        raise RuntimeError("boom")
    return "no verdict here" if q == "q1?" else "A"


def dims(q: str, a: str) -> dict[str, int]:
    return dict.fromkeys(("accuracy", "relevance", "usefulness"), 4)


def test_a_pairwise_result_renders_its_settings_whole_and_counts_its_failures() -> None:
    result = evaluate_pairs(flaky, ITEMS, n_resamples=50, seed=3)
    assert (result.seed, result.level, result.n_resamples) == (3, 0.95, 50)
    # two calls per item: the parser's wording of the failure is its own business
    parse = [r for r in result.failures if r.startswith("parse failure: ")]
    assert len(parse) == 1
    assert result.failures == {parse[0]: 2, "RuntimeError: boom": 2}
    frame = result.frame_dict()
    assert list(frame) == ["settings", "partial", "stopped"]
    assert frame["settings"]["seed"] == 3
    assert (frame["partial"], frame["stopped"]) == (False, None)
    stopped = replace(result, stopped="budget spent")
    assert stopped.partial
    assert stopped.to_dict()["stopped"] == "budget spent"
    assert members_failures(["#1", "#2"], [result, result])["#2: RuntimeError: boom"] == 2


def test_scoring_results_carry_the_bootstrap_flat() -> None:
    scored = score_answers(dims, [ScoreItem("q?", "a")], seed=5, n_resamples=40)
    assert scored.frame_dict(partial=False) == {
        "seed": 5, "level": 0.95, "n_resamples": 40, "stopped": None,
    }  # fmt: skip
    assert "partial" not in scored.to_dict()
    via = compare_via_scores(dims, ITEMS[:2], seed=5, n_resamples=40)
    data = via.to_dict()
    assert (data["seed"], data["n_resamples"], data["partial"]) == (5, 40, False)
    assert via.n_not_run == 0
