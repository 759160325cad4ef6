"""The audit page's view model and loader: its numbers are the report's, its file the run's."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from fairjudge import InputError
from fairjudge.audit import AuditReport, AuditSettings, Effect, audit, builtin_items
from fairjudge.audit._audit_items import AuditItem
from fairjudge.report._page_audit import audit_page, audit_page_from_file, audit_payload, load_audit
from fairjudge.report._page_audit_model import (
    effect_view,
    marked_parts,
    pair_explorer,
    pair_views,
    rule_text,
    verdict_sentence,
)
from fairjudge.stats import ConfidenceInterval
from tests.report import pages
from tests.report.audit_judges import PlantedAuditJudge, family_items

SETTINGS = AuditSettings(n_resamples=200)


@pytest.fixture(scope="module")
def report() -> AuditReport:
    return audit(PlantedAuditJudge(first_share=0.4), settings=SETTINGS)


@pytest.fixture(scope="module")
def panel_report() -> AuditReport:
    judges = [PlantedAuditJudge(name="gpt-x", family="gpt", own_points=2),
              PlantedAuditJudge(name="claude-y", family="claude"),
              PlantedAuditJudge(name="qwen-z", family="qwen")]  # fmt: skip
    items = family_items(12, ("gpt", "claude", "qwen"))
    return audit(judges, items, experiments=["self-preference"], settings=SETTINGS)


def _effect(estimate: float, low: float, high: float, null: float = 0.0) -> Effect:
    ci = ConfidenceInterval(low, high, 0.95)
    return Effect.of("e", estimate, ci, null=null, unit="share", n=40)


def test_each_effect_shows_the_reports_own_numbers_on_the_verdicts_axis(
    report: AuditReport,
) -> None:
    position = report.experiments[0]
    first = position.effects[0]
    view = effect_view(first)
    assert first.estimate is not None
    assert view.estimate == f"{first.estimate:.3f}"
    assert view.interval == f"[{first.ci.low:.3f}, {first.ci.high:.3f}]"
    assert view.verdict == first.verdict
    assert view.distance == pytest.approx((first.estimate - 0.5) / first.scale)
    assert view.distance_low == pytest.approx(first.ci.low - 0.5)
    assert view.distance_high == pytest.approx(first.ci.high - 0.5)
    fairness = effect_view(position.effects[3])  # scale 2: -1 first .. +1 second
    assert position.effects[3].estimate is not None
    assert fairness.distance == pytest.approx(position.effects[3].estimate / 2)
    assert fairness.estimate.startswith(("+", "-"))  # signed around a zero null


def test_a_figure_that_cannot_be_estimated_shows_its_reason_and_no_number() -> None:
    missing = Effect.missing("flip rate", "no pair got both verdicts", null=0.0, unit="share")
    view = effect_view(missing)
    assert (view.estimate, view.interval, view.distance) == ("", "", None)
    assert view.reason == "no pair got both verdicts"
    censored = _effect(0.3, 0.2, 0.4).censored("the judge gave every answer the top score")
    view = effect_view(censored)
    assert view.reason == "the judge gave every answer the top score"
    assert (view.estimate, view.distance, view.distance_low) == ("", None, None)
    assert rule_text(censored).startswith("not estimable: the judge gave every answer")


@pytest.mark.parametrize(
    ("estimate", "low", "high", "verdict", "words"),
    [
        (0.01, -0.02, 0.03, "negligible", "wholly within 0.05"),
        (0.10, 0.06, 0.14, "notable", "excludes no bias"),
        (0.30, 0.20, 0.40, "severe", "0.15 or more"),
        (0.10, -0.01, 0.20, "uncertain", "covers no bias"),
        (0.02, 0.01, 0.45, "uncertain", "not excluded"),
    ],
)
def test_the_rule_says_why_with_the_effects_numbers(
    estimate: float, low: float, high: float, verdict: str, words: str
) -> None:
    effect = _effect(estimate, low, high)
    assert effect.verdict == verdict
    rule = rule_text(effect)
    assert rule.startswith(f"{verdict}: {estimate:+.3f} is {abs(estimate):.3f} of the scale")
    assert f"[{low:.3f}, {high:.3f}]" in rule
    assert words in rule


def test_the_headline_names_the_worst_effect_or_says_none_is_notable(report: AuditReport) -> None:
    sentence = verdict_sentence(report)
    worst = [e for exp in report.experiments if exp.skipped is None for e in exp.effects]
    assert any(e.verdict == "severe" for e in worst)
    first_severe = next(e for e in worst if e.verdict == "severe")
    assert sentence.startswith("Severe ")
    assert f"{first_severe.name} " in sentence
    calm = AuditReport(("j",), (), 1, "items")
    assert verdict_sentence(calm).startswith("Nothing was measured")


def test_padded_text_is_the_concise_answer_plus_marked_additions(report: AuditReport) -> None:
    example = report.experiments[1].details["example"]
    concise, padded, listy = example["concise"], example["padded"], example["repetitive_list"]
    parts = marked_parts(concise, padded)
    assert "".join(t for t, _ in parts) == padded  # nothing lost, nothing added
    assert [t.strip() for t, marked in parts if not marked and t.strip()] == [concise]
    assert all(t.strip() for t, marked in parts if marked)  # a mark never spans a blank line
    parts = marked_parts(concise, listy)
    assert "".join(t for t, _ in parts) == listy
    assert concise in "".join(t for t, marked in parts if not marked)
    assert marked_parts("One. Two.", "Intro. One. Two. One again.") == (
        ("Intro. ", True), ("One. Two.", False), (" One again.", True),
    )  # fmt: skip
    # Not verbatim (a list): each of the original's sentences unmarked once, the rest marked.
    assert marked_parts("One. Two.", "Intro.\n1. One.\n2. Two.\n3. One again.") == (
        ("Intro.", True), ("\n1. One.\n2. Two.\n3.", False), (" One again.", True),
    )  # fmt: skip


def test_pairs_are_the_position_experiments_own_calls(report: AuditReport) -> None:
    position = report.experiments[0]
    views = pair_views(report)
    assert len(views) == position.n_items == len(builtin_items())
    flip = next(e for e in position.effects if e.name == "flip rate")
    assert flip.estimate == pytest.approx(sum(v.followed_position for v in views) / len(views))
    explorer = pair_explorer(views)
    assert explorer is not None
    assert [r["k"] for r in explorer.records] == [it.id for it in builtin_items()]
    fact = explorer.records[0]
    assert fact["v"]["category"] == "fact"
    assert {d["h"] for d in fact["d"]} >= {"verdicts", "question", "answer 1", "answer 2"}


def test_a_pairs_search_text_holds_only_what_its_details_do_not(report: AuditReport) -> None:
    # The explorer's search reads the title and every detail; a search text repeating
    # the question, both answers, the judge and the category doubled each on the page.
    views = pair_views(report)
    explorer = pair_explorer(views)
    assert explorer is not None
    for view, record in zip(views, explorer.records, strict=True):
        assert record["s"] == ""  # no model names in the built-in suite: nothing to add
        found = pages.search_text(record)
        for text in (
            view.record["question"],
            view.record["answer_1"],
            view.record["answer_2"],
            view.judge,
            view.record["category"],
        ):
            assert str(text).lower() in found, text  # fmt: skip
    named = replace(views[0], record={**views[0].record, "model_1": "gpt-x", "model_2": "q"})
    (record,) = pair_explorer([named]).records  # type: ignore[union-attr]
    assert record["s"] == "gpt-x q"  # in the answers' headings only, which it does not read


def test_the_self_preference_matrix_is_the_experiments(panel_report: AuditReport) -> None:
    page = audit_page(panel_report, calls_made=0)
    exp = panel_report.experiments[-1]
    assert exp.bias == "self-preference"
    block = next(
        b for s in page.sections for b in s.blocks
        if type(b).__name__ == "PlotBlock" and type(b.plot).__name__ == "Heatmap"
    )  # fmt: skip
    matrix = exp.details["matrix"]
    assert block.plot.columns == ("claude", "gpt", "qwen")
    assert block.plot.heading is None  # its experiment's card titles it
    for row, judge in zip(block.plot.cells, matrix, strict=True):
        assert [c.text for c in row] == [
            f"{matrix[judge][f]:.2f}" for f in ("claude", "gpt", "qwen")
        ]
    # The planted judges have no noise: every question alike, so no verdict (QA41b #2).
    assert "3 of 3 effects are uncertain" in verdict_sentence(panel_report)
    assert page.explorer is None  # no pair judged: nothing to explore


def _write_out(report: AuditReport, path: Path, made: int) -> dict[str, object]:
    """The file ``audit --out`` writes (as cli/_audit.py does), and the ``--json``."""
    from fairjudge.io import out_header

    payload = audit_payload(report, made)
    summary = {"kind": "audit", **{k: v for k, v in payload.items() if k != "experiments"}}
    rows = [{"kind": "experiment", **e} for e in payload["experiments"]]
    header = out_header("audit", command=["fairjudge", "audit"], judge="j",
                        settings=payload["settings"])  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in [header, summary, *rows]) + "\n")
    return payload


def test_the_out_file_rebuilds_the_report_exactly(report: AuditReport, tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    payload = _write_out(report, path, made=7)
    loaded = load_audit(path)
    # Everything but the skip reasons' parameter names, which the file does not keep: the
    # reasons themselves are kept, already worded with the command's flags.
    same = tuple(replace(e, params=()) for e in report.experiments)
    assert loaded.report == replace(report, experiments=same)
    assert loaded.calls_made == 7
    page = audit_page_from_file(path, seed=0, level=0.95, n_resamples=2000)
    assert json.dumps(page.summary, sort_keys=True) == json.dumps(payload, sort_keys=True)
    assert page.headline.verdict == payload["headline"]
    live = audit_page(report, calls_made=7)
    assert page.sections == live.sections
    assert page.explorer == live.explorer


def test_a_file_that_cannot_rebuild_the_report_is_refused(
    report: AuditReport, tmp_path: Path
) -> None:
    path = tmp_path / "audit.jsonl"
    _write_out(report, path, made=0)
    lines = path.read_text().splitlines()
    broken = json.loads(lines[2])
    del broken["effects"]
    path.write_text("\n".join([*lines[:2], json.dumps(broken), *lines[3:]]) + "\n")
    with pytest.raises(InputError, match="experiment record lacks effects") as info:
        load_audit(path)
    assert str(info.value).startswith(f"{path}:3: ")
    path.write_text("\n".join([lines[0], *lines[2:]]) + "\n")
    with pytest.raises(InputError, match="no 'audit' summary record"):
        load_audit(path)
    compare = tmp_path / "compare.jsonl"
    compare.write_text(json.dumps({"fairjudge": {"kind": "compare", "schema_version": 1}}) + "\n")
    with pytest.raises(InputError, match="a compare file"):
        load_audit(compare)


def test_an_effect_without_an_interval_comes_back_without_one(tmp_path: Path) -> None:
    items = [AuditItem("q?", "a.", other="b.", id="only")]  # one question: no interval
    one = audit(PlantedAuditJudge(), items, experiments=["position"], settings=SETTINGS)
    flip = next(e for e in one.experiments[0].effects if e.name == "flip rate")
    assert flip.verdict == "not estimable"
    path = tmp_path / "one.jsonl"
    _write_out(one, path, made=0)
    loaded = load_audit(path).report
    assert loaded.to_dict() == one.to_dict()  # NaN bounds: compared as the JSON has them
    back = next(e for e in loaded.experiments[0].effects if e.name == "flip rate")
    assert math.isnan(back.ci.low)
    assert back.ci.reason == flip.ci.reason
    view = effect_view(back)
    assert (view.estimate, view.distance, view.reason) == ("", None, flip.ci.reason)


def test_two_judges_get_a_card_each_and_the_padded_example_once() -> None:
    judges = [PlantedAuditJudge(name="a/one"), PlantedAuditJudge(name="b/two", first_share=0.0)]
    two = audit(judges, builtin_items()[:6], experiments=["position", "verbosity"],
                settings=SETTINGS)  # fmt: skip
    page = audit_page(two, calls_made=0)
    blocks = [b for s in page.sections for b in s.blocks]
    assert sum(type(b).__name__ == "Highlighted" for b in blocks) == 1  # same text for both
    card = next(s for s in page.sections if s.id == "fj-position")
    tables = [b for b in card.blocks if type(b).__name__ == "FigureTable"]
    assert [t.caption for t in tables] == ["a/one", "b/two"]
    assert page.explorer is not None
    keys = [r["k"] for r in page.explorer.records]
    assert keys[:2] == ["a/one/fact-01", "a/one/fact-02"]
    assert len(set(keys)) == len(keys) == 12


def test_a_file_without_the_pairs_draws_the_figures_and_says_the_pairs_are_missing(
    report: AuditReport, tmp_path: Path
) -> None:
    path = tmp_path / "old.jsonl"
    _write_out(report, path, made=0)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    del lines[2]["details"]["pairs"]  # as an audit out file written before they were kept
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    page = audit_page_from_file(path, seed=0, level=0.95, n_resamples=2000)
    assert page.explorer is None
    missing = next(s for s in page.sections if s.id == "fj-pairs-missing")
    assert "not in this report" in missing.blocks[0].lines[0]
    assert page.headline.verdict == verdict_sentence(report)  # the figures stand


def test_a_stopped_audit_says_its_page_is_partial(report: AuditReport) -> None:
    stopped = replace(report, stopped="max_calls=10 reached.")
    page = audit_page(stopped, calls_made=10)
    assert page.headline.warnings[0].startswith("Partial report: max_calls=10 reached.")
    assert page.summary["stopped"] == "max_calls=10 reached."
