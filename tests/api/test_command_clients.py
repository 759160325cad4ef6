"""What the commands need from ``fairjudge.rank``, ``audit_judge`` and ``calibrate``.

The ``rank``, ``audit`` and ``calibrate`` commands are clients of these functions:
they hand over items they read already, a :class:`fairjudge.JudgeSetup`, their
input's name and a ``notify`` callback for the line that says what will be judged,
and they write ``--out`` from the result's ``calls`` and ``sent_by``. Each of those
is checked here through the library itself, as a notebook would use it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge.audit import AuditSettings
from fairjudge.evaluation import Battles, LongAnswers, load_ranking_input
from fairjudge.io import load_items
from fairjudge.judges import LLMJudge
from fairjudge.runner import RunOptions, RunSummary
from tests.audit.conftest import audit_server, plant
from tests.audit.planted import Planted
from tests.server import JudgeServer

__all__ = ["audit_server"]  # the scripted audit server, a fixture of tests/audit

EXAMPLES = Path(fairjudge.__file__).resolve().parent / "examples"
LONGER = "python:fairjudge.examples.judges:longer"


def test_rank_takes_answers_read_already_names_them_and_says_what_it_judges() -> None:
    data = load_ranking_input(EXAMPLES / "rank_answers.jsonl")
    assert isinstance(data, LongAnswers)
    said: list[str] = []
    quiet = fairjudge.JudgeSetup(options=RunOptions.build(quiet=True))
    ranked = fairjudge.rank(data, LONGER, setup=quiet, source="answers.jsonl",
                            n_resamples=20, notify=said.append)  # fmt: skip
    n_pairs = len(data.answers) * 6  # four models: six pairs a question
    assert said == [
        f"answers.jsonl: 4 models, {len(data.answers)} questions, {n_pairs} pairs; "
        "each judged in both orders"
    ]
    assert ranked.result.settings.source == "answers.jsonl"
    assert ranked.result.settings.judge == LONGER
    assert isinstance(ranked.calls, RunSummary)
    assert ranked.calls.made + ranked.calls.cached == 2 * n_pairs
    assert ranked.sent_by is not None  # the judge whose requests the --out header records
    from_file = fairjudge.rank(EXAMPLES / "rank_answers.jsonl", LONGER, setup=quiet,
                               n_resamples=20)  # fmt: skip
    assert ranked.to_dict() == from_file.to_dict()


def test_rank_refuses_setup_fields_for_judged_battles_by_name(tmp_path: Path) -> None:
    battles = tmp_path / "battles.jsonl"
    rows = [{"model_a": "x", "model_b": "y", "winner": w} for w in ("model_a", "tie")]
    battles.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    data = load_ranking_input(battles)
    assert isinstance(data, Battles)
    setup = fairjudge.JudgeSetup(store=tmp_path / "s.db", options=RunOptions.build(quiet=True))
    with pytest.raises(fairjudge.ConfigError, match=r"^options, store: the items are judged") as e:
        fairjudge.rank(data, setup=setup)
    assert e.value.params == ("options", "store")
    said: list[str] = []
    ranked = fairjudge.rank(data, n_resamples=20, notify=said.append)
    assert said == []  # nothing is judged, so nothing is said
    assert (ranked.result, ranked.calls, ranked.sent_by) == (None, None, None)


def test_rank_names_the_anchor_by_its_parameter() -> None:
    with pytest.raises(fairjudge.ConfigError, match="anchor_rating must be a finite") as e:
        fairjudge.rank(EXAMPLES / "battles.jsonl", anchor_rating=float("inf"))
    assert e.value.params == ("anchor_rating",)
    with pytest.raises(fairjudge.ConfigError, match="anchor 'omega' is not a model") as e:
        fairjudge.rank(EXAMPLES / "battles.jsonl", anchor="omega")
    assert e.value.params == ("anchor",)


def test_audit_refuses_a_setup_template_and_checks_its_prompts_before_reading(
    tmp_path: Path,
) -> None:
    with pytest.raises(fairjudge.ConfigError, match="template does not apply") as e:
        fairjudge.audit_judge(setup=fairjudge.JudgeSetup(template="concise"))
    assert e.value.params == ("template",)
    missing = tmp_path / "no-such-items.jsonl"  # never read: the rubric is checked first
    with pytest.raises(fairjudge.ConfigError, match="nonexistent-rubric"):
        fairjudge.audit_judge(items=missing, settings=AuditSettings(rubric="nonexistent-rubric"))
    with pytest.raises(fairjudge.ConfigError, match="limit must be >= 1") as e:
        fairjudge.audit_judge(limit=0)
    assert e.value.params == ("limit",)


def test_audit_says_what_it_runs_and_keeps_its_calls_and_judges(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    plant(audit_server, Planted(first_share=0.5))
    said: list[str] = []
    setup = fairjudge.JudgeSetup(
        backend={"base_url": audit_server.base_url}, store=tmp_path / "store.sqlite",
        options=RunOptions.build(quiet=True),
    )  # fmt: skip
    audited = fairjudge.audit_judge(
        "openai/scripted-judge", limit=4, experiments="position", setup=setup,
        settings=AuditSettings(n_resamples=200), notify=said.append,
    )  # fmt: skip
    assert said == ["auditing openai/scripted-judge on the built-in suite: position"]
    assert isinstance(audited.calls, RunSummary)
    assert audited.calls.made == audit_server.count("requests") > 0
    assert audited.to_dict()["calls_made"] == audited.calls.made
    judges = audited.sent_by
    assert list(judges) == ["openai/scripted-judge"]
    assert isinstance(judges["openai/scripted-judge"], LLMJudge)
    # A skipped experiment's reason names parameters in a notebook (flags only under the CLI).
    skipped = {e["bias"]: e["skipped"] for e in audited.to_dict()["experiments"]}
    assert skipped["verbosity"] == "not requested"


def test_calibrate_takes_rows_read_already_with_their_skipped_rows_and_label_column(
    tmp_path: Path,
) -> None:
    from fairjudge.examples.judges import knows_facts

    rows = [json.loads(line) for line in (EXAMPLES / "calibration.jsonl").read_text().splitlines()]
    labelled = [{**{k: v for k, v in r.items() if not k.startswith("human")},
                 "verdict": r["human"]} for r in rows]  # fmt: skip
    path = tmp_path / "labelled.jsonl"
    lines = [json.dumps(r) for r in labelled] + [json.dumps({"question": "no answers"})]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    from fairjudge.io import Columns

    loaded = load_items(path, columns=Columns(human="verdict"), skip_invalid=True)
    assert len(loaded.skipped) == 1
    calibrated = fairjudge.calibrate(loaded, knows_facts, columns={"verdict": "human"},
                                     source="labelled.jsonl")  # fmt: skip
    payload = calibrated.to_dict()
    assert [r["line"] for r in payload["skipped_rows"]] == [len(labelled) + 1]
    assert payload["gate"]["outcome"] == "passed"
    assert calibrated.result.settings.source == "labelled.jsonl"
    assert calibrated.report.page.title == "labelled.jsonl: calibration"
    unlabelled = load_items(path, skip_invalid=True)  # read without its label column
    with pytest.raises(fairjudge.InputError, match="neither 'nothere'") as e:
        fairjudge.calibrate(unlabelled, knows_facts, columns={"nothere": "human"})
    assert e.value.params == ("columns.human",)
    with pytest.raises(fairjudge.InputError, match="'nothere' names no column of the file"):
        load_items(path, columns=Columns(human="nothere"), skip_invalid=True)


def test_rank_runs_your_own_function_on_the_engine_as_compare_does() -> None:
    from fairjudge.examples.judges import longer

    quiet = RunOptions.build(quiet=True, concurrency=4)
    ranked = fairjudge.rank(EXAMPLES / "rank_answers.jsonl", longer, n_resamples=20,
                            options=quiet)  # fmt: skip
    assert isinstance(ranked.calls, RunSummary)  # the engine's run: a plain call keeps none
    assert ranked.calls.made == 2 * len(ranked.result.judgments)
    pair = [{"question": "q", "answer_1": "a longer answer", "answer_2": "short"}]
    compared = fairjudge.compare(pair, longer, options=quiet)
    assert ranked.result.settings.judge == compared.result.settings.judge
