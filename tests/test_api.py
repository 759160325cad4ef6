"""The notebook API (fairjudge.compare, ...): thin wrappers, called for real with offline judges."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge import Item, MissingExtraError
from fairjudge.evaluation import evaluate_pairs, score_answers
from fairjudge.examples.judges import longer, scorer

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
PAIRS = EXAMPLES / "demo_pairs.jsonl"
ANSWERS = EXAMPLES / "score_answers.jsonl"
LONGER = "python:fairjudge.examples.judges:longer"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_compare_gives_evaluate_pairs_numbers_from_a_path_rows_items_and_a_spec() -> None:
    rows = _rows(PAIRS)
    items = [Item(r["question"], r["answer_1"], r["answer_2"], id=r["id"]) for r in rows]
    expected = evaluate_pairs(longer, items)
    assert expected.win_rate is not None
    assert expected.win_rate.estimate == pytest.approx(0.9)  # 18 of 20: the answers say so
    for given, judge in ((PAIRS, LONGER), (rows, longer), (items, longer), (str(PAIRS), LONGER)):
        result = fairjudge.compare(given, judge)
        w = result.result.win_rate
        assert (w.estimate, w.wins, w.ties, w.losses) == (0.9, 18, 0, 2)
        assert (w.ci.low, w.ci.high) == (expected.win_rate.ci.low, expected.win_rate.ci.high)
        assert result.to_dict()["win_rate"] == expected.win_rate.to_dict()
        assert result.stopped is None
    assert "win rate of model 1: 0.900" in result.summary()


def test_compare_settings_are_the_commands_settings() -> None:
    from fairjudge.evaluation import EvalSettings

    settings = EvalSettings(rule="soft", seed=7, n_resamples=300)
    result = fairjudge.compare(PAIRS, longer, settings=settings)
    assert result.to_dict()["settings"] == {
        **settings.to_dict(), "judge": LONGER, "source": str(PAIRS)
    }  # fmt: skip


def test_dataframe_input_equals_list_input_with_a_column_mapping() -> None:
    pandas = pytest.importorskip("pandas")
    rows = _rows(PAIRS)
    frame = pandas.DataFrame(rows).rename(columns={"question": "prompt", "answer_1": "a"})
    from_frame = fairjudge.compare(frame, longer, columns={"prompt": "question", "a": "answer_1"})
    from_rows = fairjudge.compare(rows, longer)
    assert _untimed(from_frame.to_dict()) == _untimed(from_rows.to_dict())
    assert from_frame.to_records() == from_rows.to_records()


def _untimed(summary: dict[str, Any]) -> dict[str, Any]:
    """The result without the calls' wall time (the function runs on the engine, timed)."""
    summary["calls"].pop("wall_s")
    return summary


def test_to_pandas_has_one_row_per_item_with_both_orders_replies() -> None:
    pytest.importorskip("pandas")
    frame = fairjudge.compare(PAIRS, longer).to_pandas()
    assert len(frame) == 20
    first = frame.iloc[0]
    # q01: answer 1 is the longer one, so the length judge picks it in both orders.
    assert (first["verdict_original"], first["verdict_swapped"]) == ("A", "B")
    assert (first["id"], first["outcome"], first["consistent"]) == ("q01", "1", True)
    assert {"reply_original", "reply_swapped", "answer_1", "answer_2", "id"} <= set(frame.columns)


def test_a_bad_row_is_named_by_its_row_number() -> None:
    rows = _rows(PAIRS)[:3]
    rows[1] = {**rows[1], "answer_2": "  "}
    with pytest.raises(fairjudge.InputError, match=r"<rows>:2: ") as caught:
        fairjudge.compare(rows, longer)
    assert "fairjudge-" not in str(caught.value)  # the private file is never named


def test_to_html_writes_the_comparison_page_with_its_headline(tmp_path: Path) -> None:
    page = fairjudge.compare(PAIRS, longer).to_html(tmp_path / "report.html")
    text = page.read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>") or text.lstrip().lower().startswith("<!doctype html>")
    assert "0.900" in text or "90.0%" in text or "90%" in text


def test_score_gives_score_answers_numbers() -> None:
    from fairjudge.io import load_score_items

    items = load_score_items(ANSWERS).items
    expected = score_answers(scorer, items)
    for given in (ANSWERS, _rows(ANSWERS), items):
        result = fairjudge.score(given, scorer)
        got = {d.name: d.mean.estimate for d in result.result.dimensions}
        assert got == {d.name: d.mean.estimate for d in expected.dimensions}
    assert result.to_dict()["dimensions"] == expected.to_dict()["dimensions"]
    spec = fairjudge.score(ANSWERS, "python:fairjudge.examples.judges:scorer")
    assert spec.to_dict()["dimensions"] == expected.to_dict()["dimensions"]


def test_score_to_pandas_and_its_html_page(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    result = fairjudge.score(ANSWERS, scorer)
    frame = result.to_pandas()
    assert len(frame) == len(_rows(ANSWERS))
    assert {"score_accuracy", "score_relevance", "score_usefulness", "reply"} <= set(frame.columns)
    page = result.to_html(tmp_path / "x.html").read_text("utf-8")  # the page score --html writes
    assert 'data-kind="score"' in page
    embedded = page.split('id="fj-summary">')[1].split("</script>")[0]
    assert json.loads(embedded) == json.loads(json.dumps(result.to_dict()))


def _no_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import pandas`` fail, as it does where the extra is not installed."""
    monkeypatch.setitem(sys.modules, "pandas", None)


def test_without_pandas_to_pandas_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    result = fairjudge.compare(PAIRS, longer)
    _no_pandas(monkeypatch)
    with pytest.raises(MissingExtraError, match=r"pip install 'fairjudge\[pandas\]'"):
        result.to_pandas()


def test_without_pandas_dataframe_input_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(_rows(PAIRS))
    _no_pandas(monkeypatch)
    with pytest.raises(MissingExtraError, match=r"pip install 'fairjudge\[pandas\]'"):
        fairjudge.compare(frame, longer)


def test_public_api_names_report_the_flat_namespace() -> None:
    for name in ("compare", "score", "Result"):
        assert getattr(fairjudge, name).__module__ == "fairjudge"


def test_calibrate_gives_calibration_report_numbers_and_its_page(tmp_path: Path) -> None:
    from fairjudge.audit import calibration_report
    from fairjudge.examples.judges import knows_facts

    labelled = EXAMPLES / "calibration.jsonl"
    result = fairjudge.calibrate(labelled, knows_facts)
    expected = calibration_report(fairjudge.compare(labelled, knows_facts).result)
    gate = result.to_dict()["gate"]
    assert gate["outcome"] == "passed"
    assert gate["checks"][0]["estimate"] == pytest.approx(7 / 9)  # Cohen's kappa
    assert gate["checks"][0]["estimate"] == expected["gate"].checks[0].estimate
    assert "Gate: PASS" in result.summary()
    page = result.to_html(tmp_path / "calibration.html").read_text("utf-8")
    assert "Cohen" in page


def test_calibrate_refuses_unlabelled_items_and_bad_thresholds_before_any_call() -> None:
    def never(q: str, a: str, b: str) -> str:
        raise AssertionError("called")

    with pytest.raises(fairjudge.ConfigError, match="min_kappa must be a number in"):
        fairjudge.calibrate(PAIRS, never, min_kappa=2)
    rows = [{"question": "q", "answer_1": "a", "answer_2": "b"}]
    with pytest.raises(fairjudge.InputError, match="human"):
        fairjudge.calibrate(rows, never)


def _cli_json(*args: str) -> dict[str, Any]:
    """The command's ``--json``, run in-process as a user would run it."""
    from typer.testing import CliRunner

    from fairjudge.cli import app

    run = CliRunner().invoke(app, [*args, "--json"])
    assert run.exit_code == 0, run.output
    out = run.stdout
    payload: dict[str, Any] = json.loads(out[out.index("{") :])
    payload.pop("calls", None)
    return payload


def _same(result: fairjudge.Result, cli: dict[str, Any]) -> None:
    mine = json.loads(json.dumps(result.to_dict()))  # as --json writes it (tuples -> lists)
    mine.pop("calls", None)
    assert mine == cli


RANK_ANSWERS = EXAMPLES / "rank_answers.jsonl"
BATTLES = EXAMPLES / "battles.jsonl"


def test_rank_equals_the_commands_json_for_answers_and_for_battles() -> None:
    from fairjudge.examples.judges import longer

    cli = _cli_json("rank", str(RANK_ANSWERS), "--judge", LONGER, "--bootstrap", "200")
    result = fairjudge.rank(RANK_ANSWERS, longer, n_resamples=200)
    _same(result, cli)
    # alpha's answers are the longest and the length judge prefers them: 35-10-3 in 48.
    top = result.to_dict()["ratings"][0]
    assert (top["model"], top["rating"], top["wins"], top["losses"], top["ties"]) == (
        "alpha", 1000.0, 35, 10, 3
    )  # fmt: skip
    assert len(result.result.judgments) == 96
    assert result.stopped is None
    assert [r["model"] for r in result.to_records()] == ["alpha", "beta", "gamma", "delta"]

    cli = _cli_json("rank", str(BATTLES), "--bootstrap", "200", "--ties", "davidson")
    battles = fairjudge.rank(_rows(BATTLES), n_resamples=200, ties="davidson")
    _same(battles, cli)
    assert battles.result is None
    assert battles.to_dict()["n_unresolved_pairs"] == 0


def test_rank_style_control_anchor_and_page_match_the_command(tmp_path: Path) -> None:
    args = ("--judge", LONGER, "--bootstrap", "100", "--style-control", "--anchor", "beta")
    cli = _cli_json("rank", str(RANK_ANSWERS), *args, "--anchor-rating", "1200")
    result = fairjudge.rank(
        RANK_ANSWERS, LONGER, n_resamples=100, style_control=True, anchor="beta",
        anchor_rating=1200.0,
    )  # fmt: skip
    _same(result, cli)
    assert result.to_dict()["style_control"]["anchor"] == "beta"
    assert "style_rating" in result.to_records()[0]
    page = result.to_html(tmp_path / "rank.html").read_text("utf-8")
    assert "alpha" in page
    assert "rank_answers.jsonl: leaderboard" in page


def test_rank_refuses_judge_settings_for_battles_and_bad_fits_before_any_call() -> None:
    def never(q: str, a: str, b: str) -> str:
        raise AssertionError("called")

    with pytest.raises(fairjudge.ConfigError, match=r"^judge, pairing: the items are judged"):
        fairjudge.rank(BATTLES, never, pairing="sample")
    with pytest.raises(fairjudge.ConfigError, match="n_resamples must be >= 1; got 0"):
        fairjudge.rank(RANK_ANSWERS, never, n_resamples=0)
    with pytest.raises(fairjudge.ConfigError, match="anchor 'omega' is not a model"):
        fairjudge.rank(RANK_ANSWERS, never, anchor="omega")


def test_the_fallback_ridge_lives_in_the_library() -> None:
    from fairjudge.cli import _rank
    from fairjudge.evaluation import FALLBACK_L2

    assert FALLBACK_L2 == 0.1
    assert not hasattr(_rank, "FALLBACK_L2") or _rank.FALLBACK_L2 is FALLBACK_L2


def _timeless(payload: Any) -> Any:
    """A report without its timings (``mean_latency_s``), which no two runs share."""
    if isinstance(payload, dict):
        return {k: _timeless(v) for k, v in payload.items() if k != "mean_latency_s"}
    if isinstance(payload, list):
        return [_timeless(v) for v in payload]
    return payload


CALIBRATION = EXAMPLES / "calibration.jsonl"
KNOWS = "python:fairjudge.examples.judges:knows_facts"
SCORER = "python:fairjudge.examples.judges:scorer"


def test_compare_with_judges_equals_the_jury_commands_json() -> None:
    from fairjudge.examples.judges import knows_facts

    args = ("--judge", LONGER, "--judge", KNOWS, "--judge", LONGER)
    cli = _timeless(_cli_json("jury", str(CALIBRATION), *args, "--weight", "1", "--weight",
                              "2", "--weight", "1", "--aggregate", "mean"))  # fmt: skip
    result = fairjudge.compare(
        CALIBRATION, judges=[LONGER, KNOWS, LONGER], weights=[1, 2, 1], aggregate="mean"
    )
    assert result.kind == "jury"
    mine = _timeless(json.loads(json.dumps(result.to_dict())))
    mine.pop("calls", None)
    assert mine == cli
    members = {m["name"]: m for m in result.to_dict()["members"]}
    # knows_facts agrees with the human labels far better than the length judge.
    assert members[KNOWS]["human_agreement"]["kappa"] == pytest.approx(7 / 9)
    assert members[LONGER]["human_agreement"]["kappa"] == pytest.approx(-0.75)
    # The same panel as functions: the same numbers, members named as the command names them.
    functions = fairjudge.compare(
        CALIBRATION, judges=[longer, knows_facts, longer], weights=[1, 2, 1], aggregate="mean"
    )
    assert functions.result.names == (LONGER, KNOWS, LONGER + "#2")
    assert functions.to_dict()["win_rate"] == result.to_dict()["win_rate"]
    assert "knows_facts" in functions.summary()
    assert len(functions.to_records()) == 24


def test_score_with_judges_equals_the_score_jury_commands_json(tmp_path: Path) -> None:
    cli = _timeless(_cli_json("score-jury", str(ANSWERS), "--judge", SCORER, "--judge", SCORER,
                              "--aggregate", "median"))  # fmt: skip
    result = fairjudge.score(ANSWERS, judges=[SCORER, SCORER], aggregate="median")
    assert result.kind == "score-jury"
    mine = _timeless(json.loads(json.dumps(result.to_dict())))
    mine.pop("calls", None)
    assert mine == cli
    means = {d["name"]: d["mean"]["estimate"] for d in mine["dimensions"]}
    single = fairjudge.score(ANSWERS, scorer).to_dict()["dimensions"]
    assert means == {d["name"]: d["mean"]["estimate"] for d in single}  # two equal members
    page = result.to_html(tmp_path / "x.html").read_text("utf-8")  # score-jury --html's page
    assert 'data-kind="score-jury"' in page
    assert _embedded_summary(page)["dimensions"] == result.to_dict()["dimensions"]


def test_a_panels_to_html_writes_the_jury_page_of_its_result(tmp_path: Path) -> None:
    result = fairjudge.compare(PAIRS, judges=[longer, LONGER])
    page = result.to_html(tmp_path / "jury.html").read_text("utf-8")  # jury --html's page
    assert 'data-kind="jury"' in page
    assert _embedded_summary(page)["win_rate"] == result.to_dict()["win_rate"]


def _embedded_summary(page: str) -> Any:
    """The command's JSON a page carries in its ``fj-summary`` data block."""
    start = page.index('id="fj-summary">') + len('id="fj-summary">')
    return json.loads(page[start : page.index("</script>", start)])


def test_judge_and_judges_together_is_refused_naming_both() -> None:
    with pytest.raises(fairjudge.ConfigError, match="judge and judges were both given") as caught:
        fairjudge.compare(PAIRS, longer, judges=[longer, LONGER])
    assert caught.value.params == ("judge", "judges")
    with pytest.raises(fairjudge.ConfigError, match="judge and judges were both given"):
        fairjudge.score(ANSWERS, scorer, judges=[scorer, SCORER])
    with pytest.raises(fairjudge.ConfigError, match="weights has 1 value"):
        fairjudge.compare(PAIRS, judges=[longer, LONGER], weights=[1])


@pytest.fixture
def audit_server(openai_env: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The scripted server handing its judge the whole prompt (as tests/audit's fixture)."""
    from tests.audit.conftest import plant
    from tests.audit.planted import Planted
    from tests.server import Pair

    monkeypatch.setattr("tests.server._app.extract_pair", lambda prompt: Pair(prompt, "", ""))
    plant(openai_env, Planted(first_share=0.5))
    return openai_env


def test_audit_judge_equals_the_audit_commands_json(audit_server: Any, tmp_path: Path) -> None:
    from fairjudge.audit import AuditSettings
    from fairjudge.judges import BackendOptions

    cli = _cli_json(
        "audit", "--judge", "openai/scripted-judge", "--base-url", audit_server.base_url,
        "--store", str(tmp_path / "cli.sqlite"), "--quiet", "--bootstrap", "200", "--limit", "8",
        "--experiments", "position,verbosity",
    )  # fmt: skip
    result = fairjudge.audit_judge(
        "openai/scripted-judge", experiments="position,verbosity", limit=8,
        settings=AuditSettings(n_resamples=200), store=tmp_path / "api.sqlite",
        backend=BackendOptions(base_url=audit_server.base_url),
    )  # fmt: skip
    assert result.kind == "audit"
    mine = json.loads(json.dumps(result.to_dict()))
    # A skip reason names the parameter to a library caller, the flag on the command line.
    flagged = [e["skipped"] for e in cli["experiments"]]
    assert "needs two or more judges (give --judge once per judge)" in flagged[-1]
    for e in cli["experiments"]:
        e["skipped"] = e["skipped"] and e["skipped"].replace("--judge", "judge")
    # It totals every experiment's calls, as the --out header does (_cli_json drops them).
    assert mine.pop("calls")["made"] == mine["calls_made"] > 0
    assert mine == cli
    assert mine["n_items"] == 8
    ran = [r["bias"] for r in result.to_records() if r["skipped"] is None]
    assert ran == ["position", "verbosity"]
    assert "position: " in result.summary()
    from tests.report.pages import embedded

    page = result.to_html(tmp_path / "audit.html")  # the page audit --html writes
    assert embedded(page, "fj-summary") == result.to_dict()


def test_audit_judge_refuses_a_python_judge_before_any_call() -> None:
    with pytest.raises(fairjudge.ConfigError, match="python:"):
        fairjudge.audit_judge(LONGER, experiments="position", limit=2)


class _LengthAuditJudge:
    """An AuditJudge over the example length judge: it prefers, and scores up, long answers."""

    name = "longer"

    def pairwise(self, template: str) -> Any:
        from fairjudge.judges import CallableJudge

        return CallableJudge(longer)

    def pointwise(self, rubric: str) -> Any:
        from fairjudge.judges import CallablePointwiseJudge
        from fairjudge.prompts import get_rubric

        dims = get_rubric(rubric).names
        return CallablePointwiseJudge(
            lambda q, a: {d: min(5, 1 + len(a.split()) // 20) for d in dims}, rubric=rubric
        )


def test_audit_judge_takes_a_judge_object_and_finds_the_length_bias() -> None:
    card = fairjudge.audit_judge(_LengthAuditJudge(), experiments=["position", "verbosity"],
                                 limit=6)  # fmt: skip
    verdicts = {r["bias"]: r["verdict"] for r in card.to_records()}
    assert verdicts == {"position": "uncertain", "verbosity": "severe",
                        "framing": "skipped", "self-preference": "skipped"}  # fmt: skip
    assert card.to_dict()["judges"] == ["longer"]
    assert card.to_dict()["n_items"] == 6
    assert "calls_made" not in card.to_dict()  # called directly, outside the store: not counted


def test_compare_stop_when_is_the_adaptive_run_and_resumes_from_the_store(tmp_path: Path) -> None:
    from fairjudge.evaluation import EvalSettings, evaluate_adaptive
    from fairjudge.judges import CallableJudge

    rows = [
        {"question": f"q{i}", "answer_1": "a long answer" if i % 5 < 4 else "s",
         "answer_2": "s" if i % 5 < 4 else "a long answer"}
        for i in range(200)
    ]  # fmt: skip
    stopped = fairjudge.compare(rows, longer, stop_when="decided")
    adaptive = stopped.to_dict()["adaptive"]
    assert adaptive["reason"] == "decided"
    assert adaptive["questions"]["judged"] < 200
    assert adaptive["bootstrap_ci_valid"] is False
    assert stopped.summary().startswith("adaptive stop: decided")
    # The same numbers as the library's adaptive run on the same items and settings.
    items = [Item(r["question"], r["answer_1"], r["answer_2"]) for r in rows]
    direct = evaluate_adaptive(CallableJudge(longer), items, EvalSettings(), "decided")
    assert adaptive["ci"] == direct.adaptive_dict()["ci"]
    assert stopped.result.win_rate.estimate == direct.pairwise.win_rate.estimate
    # Without stop_when, the whole file; batch alone is refused.
    assert "adaptive" not in fairjudge.compare(rows, longer).to_dict()
    with pytest.raises(fairjudge.ConfigError, match="batch applies with stop_when") as info:
        fairjudge.compare(rows, longer, batch=4)
    assert info.value.params == ("batch", "stop_when")
