"""Inputs a run cannot use are refused by the library before any call, as on the command line.

A template that needs references the items lack, and a label column the input lacks,
stop ``compare``, ``calibrate`` and ``jury``'s ``compare(judges=...)`` before a judge
is called, with the message the commands print (there, with the flags' names).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge import ConfigError, InputError
from fairjudge._api import via_scores
from fairjudge.evaluation import EvalSettings
from fairjudge.io import Columns, load_items
from fairjudge.judges import BackendOptions, Jury, MemberSpec, resolve_judge
from fairjudge.prompts import get_rubric
from tests.cli.test_calibrate_human_col import calibration_csv

ROOT = Path(__file__).resolve().parents[2]
CALIBRATION = ROOT / "src" / "fairjudge" / "examples" / "calibration.jsonl"
LONGER = "python:fairjudge.examples.judges:longer"
ROWS = [{"id": i, "question": f"q{i}", "answer_1": "a longer answer", "answer_2": "short"}
        for i in ("a", "b", "c")]  # fmt: skip
LACKING = "template 'reference' needs a reference, but 3 item(s) lack one (first: id 'a')"
COLUMNS = "'id', 'question', 'answer_1', 'answer_2', 'human', 'model_1', 'model_2', 'human_score'"


class Counting:
    """A Python judge that counts its calls: the longer answer wins."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, question: str, answer_a: str, answer_b: str) -> str:
        self.calls += 1
        return "A" if len(answer_a) >= len(answer_b) else "B"


def _at(server: Any) -> BackendOptions:
    return BackendOptions(base_url=server.base_url)


def test_a_spec_whose_template_needs_references_is_refused_before_any_call(
    openai_env: Any,
) -> None:
    with pytest.raises(ConfigError) as caught:
        fairjudge.compare(ROWS, "openai/m", template="reference", backend=_at(openai_env))
    assert str(caught.value) == f"{LACKING}; add a 'reference' column or pick another template"
    assert caught.value.params == ("template",)
    with pytest.raises(ConfigError, match=re.escape(LACKING)):
        fairjudge.calibrate([{**r, "human": "1"} for r in ROWS], "openai/m",
                            template="reference", backend=_at(openai_env))  # fmt: skip
    assert openai_env.count("requests") == 0


def test_a_model_judge_object_is_checked_by_its_own_template(openai_env: Any) -> None:
    judge = resolve_judge("openai/m", template="reference", backend_options=_at(openai_env))
    try:
        with pytest.raises(ConfigError, match=re.escape(LACKING)):
            fairjudge.compare(ROWS, judge)
    finally:
        judge.close()
    assert openai_env.count("requests") == 0


def test_a_panels_model_member_is_named_and_nothing_is_sent(openai_env: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        fairjudge.compare(ROWS, judges=["openai/m", LONGER], template="reference",
                          backend=_at(openai_env))  # fmt: skip
    assert str(caught.value) == (
        f"member 'openai/m': {LACKING}; add a 'reference' column or give that member "
        "another template"
    )
    assert caught.value.params == ("template",)
    assert openai_env.count("requests") == 0


def test_the_swap_protocols_template_is_checked_before_the_scorer_opens(openai_env: Any) -> None:
    items = [fairjudge.Item(**row) for row in ROWS]
    setup = fairjudge.JudgeSetup(template="reference", backend=_at(openai_env))
    with pytest.raises(ConfigError, match=re.escape(LACKING)):
        via_scores("openai/m", items, EvalSettings(), rubric=get_rubric("basic"),
                   with_swap=True, setup=setup)  # fmt: skip
    assert openai_env.count("requests") == 0


def test_a_python_judge_or_a_replay_needs_no_reference() -> None:
    judge = Counting()
    done = fairjudge.compare(ROWS, judge, template=None)
    assert done.result.win_rate.estimate == 1.0
    assert judge.calls == 6
    panel = fairjudge.compare(ROWS, judges=[LONGER, LONGER])
    assert panel.result.n_items == 3


def test_a_label_column_the_file_lacks_is_refused_before_any_call(tmp_path: Path) -> None:
    judge = Counting()
    for path in (CALIBRATION, calibration_csv(tmp_path)):
        with pytest.raises(InputError) as caught:
            fairjudge.calibrate(path, judge, columns={"nope": "human"})
        assert str(caught.value) == (
            f"{path}: columns.human 'nope' names no column of the file; its columns: "
            f"{COLUMNS}; pass columns.human with the one holding the labels (1/2/tie)"
        )
        assert caught.value.params == ("columns.human",)
        with pytest.raises(InputError, match=r"columns\.human 'nope' names no column of the file"):
            load_items(path, columns=Columns(human="nope"))  # the command's reader, too
    assert judge.calls == 0


def test_a_label_column_the_rows_lack_is_refused_naming_their_keys() -> None:
    rows = [{k: v for k, v in json.loads(line).items() if k != "human"}
            for line in CALIBRATION.read_text(encoding="utf-8").splitlines()]  # fmt: skip
    judge = Counting()
    with pytest.raises(InputError) as caught:
        fairjudge.calibrate(rows, judge, columns={"nope": "human"})
    assert "columns.human 'nope' names no column of the rows; their keys: 'id'," in str(
        caught.value
    )
    assert judge.calls == 0


def test_a_label_column_the_file_has_is_read(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(CALIBRATION.read_text(encoding="utf-8").replace('"human":', '"lab":'))
    done = fairjudge.calibrate(path, LONGER, columns={"lab": "human"})
    assert done.to_dict()["agreement"]["n"] == 24


def test_a_built_panel_refuses_the_setup_and_weights_it_would_drop(tmp_path: Path) -> None:
    jury = Jury.from_specs([MemberSpec(LONGER), MemberSpec(LONGER, weight=2.0)])
    try:
        given: list[tuple[dict[str, Any], str]] = [
            ({"store": tmp_path / "runs.db"}, "store"),
            ({"template": "reference", "options": {"max_calls": 3}}, "template, options"),
            ({"weights": [1.0, 1.0]}, "weights"),
        ]
        for extra, named in given:
            with pytest.raises(ConfigError, match=f"^{named}: a built Jury keeps its members'"):
                fairjudge.compare(ROWS, judges=jury, **extra)
        fairjudge.compare(ROWS, judges=jury, backend=BackendOptions())  # nothing set: no effect
        assert fairjudge.compare(ROWS, judges=jury).result.n_items == 3
    finally:
        jury.close()
