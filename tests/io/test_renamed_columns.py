"""An optional column renamed to a name no row has is refused, not silently ignored.

Before: ``--human-col humna`` dropped the Known truth line, ``--id-col idd`` made the
ids line numbers and ``--reference-col reff`` was ignored, each with exit 0; a rename
of in-memory rows' key that none has was ignored too. The default names stay optional,
and a label sheet may lack the label column it writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge import InputError
from fairjudge.io import Columns, LabelSheet, load_items
from tests.cli_process import fairjudge as run_cli
from tests.cli_process import flat

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "src" / "fairjudge" / "examples" / "demo_pairs.jsonl"
LONGER = "python:fairjudge.examples.judges:longer"
FOUND = "'id', 'question', 'answer_1', 'answer_2', 'human', 'model_1', 'model_2'"
ROW = {"id": "a", "question": "q", "answer_1": "a longer one", "answer_2": "short", "label": "1"}


def _pairs(tmp_path: Path, suffix: str = ".jsonl") -> Path:
    path = tmp_path / f"pairs{suffix}"
    if suffix == ".csv":
        path.write_text("id,question,answer_1,answer_2,label\na,q,a longer one,short,1\n")
    else:
        path.write_text(json.dumps(ROW) + "\n")
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_renamed_optional_column_no_row_has_is_refused(tmp_path: Path, suffix: str) -> None:
    path = _pairs(tmp_path, suffix)
    with pytest.raises(InputError) as caught:
        load_items(path, columns=Columns(human="lable"))
    assert str(caught.value) == (
        f"{path}: columns.human 'lable' names no column of the file; its columns: 'id', "
        "'question', 'answer_1', 'answer_2', 'label'; pass columns.human with the one holding "
        "the labels (1/2/tie)"
    )
    assert caught.value.params == ("columns.human",)
    with pytest.raises(InputError, match=r"columns\.id 'idd' names no column") as caught:
        load_items(path, columns=Columns(id="idd", reference="reff"))
    assert caught.value.params == ("columns.id",)


def test_default_names_stay_optional_and_a_present_rename_reads(tmp_path: Path) -> None:
    path = _pairs(tmp_path)
    assert load_items(path).items[0].human is None  # no 'human' column: no labels, no error
    assert load_items(path, columns=Columns(human="label")).items[0].human is not None


def test_a_label_sheet_may_lack_the_label_column_it_writes(tmp_path: Path) -> None:
    path = _pairs(tmp_path)
    assert len(LabelSheet.read_items(path, columns=Columns(human="verdict"))) == 1


def test_a_rows_rename_no_row_has_is_refused_before_any_call() -> None:
    calls: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        calls.append(question)
        return "A"

    with pytest.raises(InputError) as caught:
        fairjudge.compare([ROW], judge, columns={"lable": "human"})
    assert str(caught.value) == (  # a file's wording: one check (io.check_renamed)
        "columns.human 'lable' names no column of the rows; their keys: 'id', 'question', "
        "'answer_1', 'answer_2', 'label'; pass columns.human with the one holding the labels "
        "(1/2/tie)"
    )
    assert caught.value.params == ("columns.human",)
    assert calls == []
    assert fairjudge.compare([ROW], judge, columns={"label": "human"}).result.n_items == 1


def test_a_dataframe_rename_no_column_has_is_refused_naming_its_columns() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([{**ROW, "prompt": ROW["id"]}])
    with pytest.raises(InputError) as caught:
        fairjudge.compare(frame, LONGER, columns={"promt": "question"})
    assert str(caught.value) == (
        "columns.question 'promt' names no column of the DataFrame; its columns: 'id', "
        "'question', 'answer_1', 'answer_2', 'label', 'prompt'; pass columns.question with "
        "the one holding the questions"
    )
    assert caught.value.params == ("columns.question",)


@pytest.mark.parametrize(
    ("flags", "named", "holds"),
    [
        (("--human-col", "humna"), "--human-col 'humna'", "the labels (1/2/tie)"),
        (("--id-col", "idd"), "--id-col 'idd'", "the ids"),
        (("--reference-col", "reff", "--template", "reference"), "--reference-col 'reff'",
         "the references"),
    ],
    ids=["human", "id", "reference"],
)  # fmt: skip
@pytest.mark.parametrize("command", ["compare", "jury", "calibrate"])
def test_a_column_flag_naming_no_column_exits_2(
    command: str, flags: tuple[str, ...], named: str, holds: str
) -> None:
    judges = ("--judge", LONGER) * (2 if command == "jury" else 1)
    done = run_cli(command, DEMO, *judges, *flags)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    flag = named.split()[0]
    assert (f"{named} names no column of the file; its columns: {FOUND}; pass {flag} with the "
            f"one holding {holds}") in flat(done.stderr)  # fmt: skip
    assert "calls" not in done.stderr
