"""``compare --stop-when``: adaptive stopping from the command line.

The runs use the offline example judges (``longer`` prefers the longer answer) on
generated files whose winner is clear, and the scripted OpenAI-compatible server
where the store matters (a budget stop, a resume). Each adaptive figure is checked
against :func:`fairjudge.evaluation.evaluate_adaptive` run on the same file, and the
default path (no ``--stop-when``) against :func:`fairjudge.evaluation.evaluate`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.evaluation import EvalSettings, evaluate, evaluate_adaptive
from fairjudge.examples.judges import knows_facts, longer
from fairjudge.io import load_items
from fairjudge.report import comparison_report
from tests.out_file import out_header, out_records
from tests.server import JudgeServer

LONGER = "python:fairjudge.examples.judges:longer"
FACTS = "python:fairjudge.examples.judges:knows_facts"
DEMO = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples" / "demo_pairs.jsonl"


def _rows(n: int, *, losses: int = 0) -> list[dict[str, str]]:
    """``n`` items, each its own question; model 1's answer is the longer one but in ``losses``
    of them, spread evenly through the file."""
    lost = set(range(0, n, n // losses)[:losses]) if losses else set()
    rows = []
    for i in range(n):
        long, short = f"a longer, more detailed answer to question {i}", f"short {i}"
        one, two = (short, long) if i in lost else (long, short)
        rows.append({"id": f"q{i}", "question": f"Question {i}?", "answer_1": one, "answer_2": two})
    return rows


def _file(tmp_path: Path, rows: list[dict[str, str]], name: str = "items.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _compare(*args: str | Path) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``fairjudge compare ARGS`` (tables 200 columns wide)."""
    result = CliRunner().invoke(app, ["compare", *map(str, args)], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def _flat(text: str) -> str:
    return " ".join(text.split())


def _library(path: Path, stop_when: str, **kwargs: Any) -> Any:
    items = load_items(path).items
    return evaluate_adaptive(longer, items, EvalSettings(source=str(path)), stop_when, **kwargs)


# --- stopping -----------------------------------------------------------------------------


def test_decided_stops_early_with_fewer_calls_and_says_which_interval_is_valid(
    tmp_path: Path,
) -> None:
    path = _file(tmp_path, _rows(200))
    code, out, _ = _compare(path, "--judge", LONGER, "--stop-when", "decided", "-q")
    assert code == 0, out
    text = _flat(out)
    assert "items judged │ 16 of 16 drawn (200 in the file)" in text
    # All 16 went one way: the fixed-sample interval is Wilson's (QA40 F9), not [1, 1].
    assert (
        "1.000 [0.806, 1.000] (Wilson, all alike) (fixed-sample CI, not valid after the "
        "adaptive stop)" in text
    )
    assert (
        "adaptive stop: decided: the anytime-valid interval excludes 0.5 (--stop-when decided); "
        "16 of 200 questions and 16 of 200 items judged, in a seeded order, 8 questions per "
        "batch" in text
    )
    assert (
        "anytime-valid win rate of model 1: 1.000 [0.658, 1.000] on questions like these (95% "
        "confidence sequence, valid at any stop)" in text
    )
    assert "calls: 32 used of 400 for the whole file (32 new, 0 from the store); 368 saved" in text
    assert "The bootstrap CIs are fixed-sample intervals on the judged items: not valid" in text
    assert "Model 1 is better: the whole anytime-valid interval lies above 0.5." in text


def test_json_is_the_comparison_plus_the_librarys_adaptive_block(tmp_path: Path) -> None:
    path = _file(tmp_path, _rows(200, losses=30))
    code, out, _ = _compare(path, "--judge", LONGER, "--stop-when", "decided", "--json")
    assert code == 0, out
    doc = json.loads(out)
    lib = _library(path, "decided")
    assert doc["adaptive"] == lib.adaptive_dict()
    block = doc["adaptive"]
    assert (block["reason"], block["stop_when"], block["stopped_early"]) == (
        "decided",
        "decided",
        True,
    )
    assert block["bootstrap_ci_valid"] is False
    assert block["questions"] == {"judged": 24, "total": 200}
    assert block["calls"] == {
        "used": 48, "new": 48, "not_run": 0, "saved": 352, "not_made": 0, "full": 400,
    }  # fmt: skip
    # The rest is the comparison of the judged items, as --json always prints it.
    pairwise = lib.pairwise.to_dict()
    assert {k: doc[k] for k in pairwise if k != "settings"} == {
        k: v for k, v in pairwise.items() if k != "settings"
    }
    assert doc["n_items"] == 24
    assert {"alternative_rules", "length_controlled_win_rate", "known_truth"} <= set(doc)


def test_width_stops_at_the_half_width(tmp_path: Path) -> None:
    path = _file(tmp_path, _rows(200, losses=30))
    code, out, _ = _compare(path, "--judge", LONGER, "--stop-when", "width:0.1", "--json")
    assert code == 0, out
    block = json.loads(out)["adaptive"]
    assert block == _library(path, "width:0.1").adaptive_dict()
    assert (block["reason"], block["stop_when"]) == ("width", "width:0.1")
    assert block["questions"] == {"judged": 72, "total": 200}
    assert block["ci"]["high"] - block["ci"]["low"] <= 0.2


@pytest.mark.parametrize(
    "given",
    [["--stop-when", "width:0.1,decided"], ["--stop-when", "decided", "--stop-when", "width:0.1"]],
)
def test_both_conditions_comma_separated_or_repeated(tmp_path: Path, given: list[str]) -> None:
    path = _file(tmp_path, _rows(200, losses=30))
    code, out, _ = _compare(path, "--judge", LONGER, *given, "--batch", "4", "--json")
    assert code == 0, out
    block = json.loads(out)["adaptive"]
    assert block == _library(path, "decided,width:0.1", batch=4).adaptive_dict()
    assert (block["stop_when"], block["reason"], block["batch"]) == (
        "decided,width:0.1",
        "decided",
        4,
    )


def test_a_judge_that_resolves_nothing_ends_not_decided_and_exits_4(tmp_path: Path) -> None:
    path = _file(tmp_path, _rows(12))
    code, out, _ = _compare(
        path, "--judge", "python:tests.judge_fixtures:garbage", "--stop-when", "decided", "--json"
    )
    assert code == 4, out  # --max-unresolved, as always
    block = json.loads(out)["adaptive"]
    assert (block["reason"], block["stopped_early"]) == ("not decided", False)
    assert block["unresolved"]["items"] == 12
    assert block["ci"]["low"] == 0.0
    assert block["ci"]["high"] == 1.0


# --- usage errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--stop-when", "soon"], "--stop-when has an unknown condition 'soon'"),
        (["--stop-when", "width:0.7"], "--stop-when 'width:0.7': the width is a half-width"),
        (["--stop-when", "decided", "--stop-when", "decided"], "--stop-when gives 'decided' twice"),
        (["--stop-when", " , "], "--stop-when is empty"),
        (["--batch", "8"], "--batch applies with --stop-when only"),
        (["--stop-when", "decided", "--batch", "0"], "--batch must be a whole number"),
        (
            ["--stop-when", "decided", "--via-scores", "--with-swap"],
            "--stop-when does not apply to --via-scores --with-swap yet",
        ),
    ],
)
def test_usage_errors_exit_2_and_name_the_flag(tmp_path: Path, given: list[str], said: str) -> None:
    path = _file(tmp_path, _rows(20))
    code, out, err = _compare(path, "--judge", LONGER, *given, "--json")
    assert code == 2, out
    assert said in _flat(err)
    error = json.loads(out)["error"]
    assert said in error["message"]
    assert error["exit_code"] == 2
    assert "stop_when" not in error["message"]


# --- outputs ---------------------------------------------------------------------------------


def test_out_holds_the_judged_items_and_the_adaptive_block(tmp_path: Path) -> None:
    path = _file(tmp_path, _rows(200))
    out, page = tmp_path / "out.jsonl", tmp_path / "page.html"
    args = [path, "--judge", LONGER, "--stop-when", "decided", "-q", "--out", out, "--html", page]
    code, printed, _ = _compare(*args)
    assert code == 0, printed
    header = out_header(out)
    block = header["settings"]["adaptive"]
    assert block == _library(path, "decided").adaptive_dict()
    assert header["settings"]["seed"] == 0
    records = out_records(out, "compare")
    assert len(records) == 16
    assert all(len(r["calls"]) == 2 for r in records)
    # The page marks the stop, and `fairjudge report` still reads the file.
    html = page.read_text("utf-8")
    assert "Adaptively stopped before the end of the file." in html
    assert "Anytime-valid (adaptive)" in html
    assert "Debiased (fixed-sample CI)" in html
    rebuilt = CliRunner().invoke(app, ["report", str(out), "-o", str(tmp_path / "r.html")])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert "(16 items)" in rebuilt.stderr


# --- the default path ----------------------------------------------------------------------


def test_without_stop_when_the_json_is_evaluates_own(tmp_path: Path) -> None:
    code, out, _ = _compare(DEMO, "--judge", FACTS, "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert "adaptive" not in doc
    items = load_items(DEMO).items
    settings = EvalSettings(source=str(DEMO))
    result = evaluate(knows_facts, items, settings)
    result = replace(result, settings=replace(settings, judge=FACTS))
    expected = comparison_report(result, title="demo_pairs.jsonl: model 1 vs model 2").to_dict()
    calls = doc.pop("calls")  # the Python judge runs on the engine: its calls are counted
    assert (calls["made"], calls["failed"]) == (40, 0)
    assert doc == {k: v for k, v in expected.items() if k != "calls"}
    assert doc["n_items"] == 20
    assert doc["win_rate"]["estimate"] == pytest.approx(0.075)


# --- the store: a budget stop, a resume ----------------------------------------------------


def _server_args(tmp_path: Path, server: JudgeServer, *more: str) -> list[str]:
    return [
        "--judge", "openai/m", "--base-url", server.base_url, "--store",
        str(tmp_path / "s.sqlite"), "-q", "--json", *more,
    ]  # fmt: skip


def test_a_budget_stop_with_stop_when_exits_5(tmp_path: Path, openai_env: JudgeServer) -> None:
    openai_env.configure(judge="longer")
    path = _file(tmp_path, _rows(40))
    more = ("--stop-when", "decided", "--batch", "8", "--max-calls", "8", "--concurrency", "1")
    code, out, err = _compare(path, *_server_args(tmp_path, openai_env, *more))
    assert code == 5, out
    doc = json.loads(out)
    assert doc["partial"] is True
    block = doc["adaptive"]
    assert (block["reason"], block["stopped_early"]) == ("budget", True)
    assert block["questions"] == {"judged": 4, "total": 40}
    # Nothing saved: the budget left 72 calls unmade (8 of them in the stopped batch).
    assert block["calls"] == {
        "used": 8, "new": 8, "not_run": 8, "saved": 0, "not_made": 72, "full": 80,
    }  # fmt: skip
    assert doc["calls"]["made"] == 8
    assert "--max-calls" in err
    assert openai_env.count("requests") == 8


def test_a_rerun_goes_on_from_where_the_stop_left_off(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")
    path = _file(tmp_path, _rows(60, losses=6))
    code, out, _ = _compare(path, *_server_args(tmp_path, openai_env, "--stop-when", "decided"))
    assert code == 0, out
    first = json.loads(out)
    used = first["adaptive"]["calls"]["used"]
    assert first["adaptive"]["reason"] == "decided"
    assert (used, first["calls"]["made"], first["calls"]["cached"]) == (32, 32, 0)
    assert openai_env.count("requests") == 32

    # The same run again: every call from the store, the same stop and interval.
    code, out, _ = _compare(path, *_server_args(tmp_path, openai_env, "--stop-when", "decided"))
    assert code == 0, out
    again = json.loads(out)
    assert (again["calls"]["made"], again["calls"]["cached"]) == (0, 32)
    assert again["adaptive"]["calls"]["new"] == 0
    for doc in (first, again):
        del doc["adaptive"]["calls"], doc["calls"]
    assert again == first

    # Without --stop-when: the whole file, the stopped run's calls reused.
    code, out, _ = _compare(path, *_server_args(tmp_path, openai_env))
    assert code == 0, out
    whole = json.loads(out)
    assert (whole["calls"]["cached"], whole["calls"]["made"]) == (32, 88)
    assert whole["n_items"] == 60
    assert openai_env.count("requests") == 120  # no call paid twice


# --- jury -------------------------------------------------------------------------------------


def _jury(*args: str | Path) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``fairjudge jury ARGS`` (tables 200 columns wide)."""
    result = CliRunner().invoke(app, ["jury", *map(str, args)], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def test_jury_stops_when_the_panel_has_decided(tmp_path: Path) -> None:
    path = _file(tmp_path, _rows(200, losses=30))
    panel = ("--judge", LONGER, "--judge", LONGER, "--judge", FACTS)
    code, out, _ = _jury(path, *panel, "--stop-when", "decided")
    assert code == 0, out
    text = _flat(out)
    assert "items judged │ 24 of 24 drawn (200 in the file)" in text
    assert "(fixed-sample CI, not valid after the adaptive stop)" in text
    assert (
        "adaptive stop: decided: the anytime-valid interval excludes 0.5 (--stop-when decided); "
        "24 of 200 questions and 24 of 200 items judged" in text
    )
    assert "calls: 144 used of 1200 for the whole file (144 new, 0 from the store); 1056 saved" in (
        text
    )
    assert "Model 1 is better: the whole anytime-valid interval lies above 0.5." in text
    code, out, _ = _jury(path, *panel, "--stop-when", "decided", "--json")
    assert code == 0, out
    doc = json.loads(out)
    block = doc["adaptive"]
    assert (block["reason"], block["stopped_early"], block["winner"]) == ("decided", True, "1")
    assert block["questions"] == {"judged": 24, "total": 200}
    assert block["calls"] == {
        "used": 144, "new": 144, "not_run": 0, "saved": 1056, "not_made": 0, "full": 1200,
    }  # fmt: skip
    assert doc["n_items"] == 24
    assert doc["aggregation"] == "majority"
    # Without --stop-when, the panel's --json is as it always was: no adaptive block.
    code, out, _ = _jury(path, *panel, "--json")
    assert code == 0, out
    assert "adaptive" not in json.loads(out)
    assert json.loads(out)["n_items"] == 200


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--stop-when", "bogus"], "--stop-when has an unknown condition 'bogus'"),
        (["--batch", "4"], "--batch applies with --stop-when only"),
    ],
)
def test_jury_stop_usage_errors_exit_2_before_any_call(
    tmp_path: Path, args: list[str], says: str
) -> None:
    path = _file(tmp_path, _rows(20))
    code, _, err = _jury(path, "--judge", LONGER, "--judge", LONGER, *args)
    assert code == 2
    assert says in _flat(err)


def test_jury_budget_stop_exits_5_and_a_rerun_reuses_every_stored_call(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")
    path = _file(tmp_path, _rows(40))
    panel = _server_args(tmp_path, openai_env, "--judge", LONGER, "--stop-when", "decided")
    more = ("--batch", "8", "--max-calls", "8", "--concurrency", "1")
    code, out, err = _jury(path, *panel, *more)
    assert code == 5, out
    block = json.loads(out)["adaptive"]
    assert (block["reason"], block["stopped_early"]) == ("budget", True)
    # --max-calls is one budget for the whole panel, the Python member's calls included
    # (a team's own judge is held to it as an HTTP judge is): the HTTP member spent all 8
    # on the first batch, so the Python member made none and no question is judged yet.
    assert block["questions"] == {"judged": 0, "total": 40}
    assert block["calls"] == {
        "used": 8, "new": 8, "not_run": 24, "saved": 0, "not_made": 152, "full": 160,
    }  # fmt: skip
    assert "--max-calls" in err
    assert openai_env.count("requests") == 8
    # A larger budget goes on from the store: no call is paid twice.
    code, out, _ = _jury(path, *panel, "--batch", "8")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["adaptive"]["reason"] == "decided"
    assert doc["adaptive"]["questions"] == {"judged": 16, "total": 40}
    # the HTTP member's 24 calls left, and the Python member's 32 (it declares no name
    # and version, so none of its calls is stored): the panel's calls, as its budget counts
    assert (doc["calls"]["cached"], doc["calls"]["made"]) == (8, 24 + 32)
    assert openai_env.count("requests") == 32


# --- compare --via-scores -----------------------------------------------------------------------

SCORER = "python:fairjudge.examples.judges:scorer"


def _facts(n: int, *, losses: int) -> list[dict[str, str]]:
    """``n`` items; model 1 states the fact the example scorer knows but in ``losses``."""
    lost = set(range(0, n, n // losses)[:losses])
    good, bad = "Canberra is the capital.", "I think it is Sydney."
    return [
        {"id": f"q{i}", "question": f"Capital of Australia ({i})?",
         "answer_1": bad if i in lost else good, "answer_2": good if i in lost else bad}
        for i in range(n)
    ]  # fmt: skip


def test_via_scores_stops_when_decided(tmp_path: Path) -> None:
    path = _file(tmp_path, _facts(80, losses=10))
    code, out, _ = _compare(path, "--via-scores", "--judge", SCORER, "--stop-when", "decided")
    assert code == 0, out
    text = _flat(out)
    assert "0.812 [0.625, 1.000] │ 13/0/3 │ 16 │" in text
    assert "(fixed-sample CI, not valid after the" in text  # the cell wraps
    assert "16 of 80 questions and 16 of 80 items judged" in text
    assert "calls: 32 used of 160 for the whole file (32 new, 0 from the store); 128 saved" in text
    assert "Model 1 is better: the whole anytime-valid interval lies above 0.5." in text
    code, out, _ = _compare(
        path, "--via-scores", "--judge", SCORER, "--stop-when", "decided", "--json"
    )
    assert code == 0, out
    doc = json.loads(out)
    assert (doc["adaptive"]["reason"], doc["adaptive"]["winner"]) == ("decided", "1")
    assert doc["adaptive"]["calls"] == {
        "used": 32, "new": 32, "not_run": 0, "saved": 128, "not_made": 0, "full": 160,
    }  # fmt: skip
    assert doc["via_scores"]["n_items"] == 16
    # Without --stop-when the JSON has no adaptive block, and every item.
    code, out, _ = _compare(path, "--via-scores", "--judge", SCORER, "--json")
    assert code == 0, out
    assert "adaptive" not in json.loads(out)
    assert json.loads(out)["via_scores"]["n_items"] == 80
