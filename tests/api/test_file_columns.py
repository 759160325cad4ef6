"""``columns=`` renames a file's columns too, not only rows' and a DataFrame's.

``fairjudge.compare("pairs.jsonl", judge, columns={"prompt": "question"})`` read the
file as if ``columns`` had not been given and failed on every row with "missing column
'question' ... pass columns.question=NAME", the very option it was given.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fairjudge

EXAMPLES = Path(fairjudge.__file__).parent / "examples"


def _renamed(src: Path, dst: Path, old: str, new: str) -> Path:
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    dst.write_text(
        "".join(json.dumps({new if k == old else k: v for k, v in r.items()}) + "\n"
                for r in rows),
        encoding="utf-8",
    )  # fmt: skip
    return dst


def _assert_renamed_reads_as_plain(
    read: Callable[..., Any], example: str, judge: str, old: str, new: str, key: str, dst: Path
) -> None:
    """A copy of ``example`` with ``old`` renamed ``new``, read with ``columns={new: old}``,
    gives the same ``key`` as the example itself: the rename reached the file reader."""
    path = _renamed(EXAMPLES / example, dst, old, new)
    renamed = read(str(path), judge, columns={new: old})
    plain = read(str(EXAMPLES / example), judge)
    assert renamed.to_dict()[key] == plain.to_dict()[key]


def test_compare_and_calibrate_rename_a_files_columns(tmp_path: Path) -> None:
    judge = "python:fairjudge.examples.judges:longer"
    _assert_renamed_reads_as_plain(
        fairjudge.compare,
        "demo_pairs.jsonl",
        judge,
        "question",
        "prompt",
        "win_rate",
        tmp_path / "p.jsonl",
    )
    labels = _renamed(EXAMPLES / "calibration.jsonl", tmp_path / "c.jsonl", "human", "label")
    card = fairjudge.calibrate(str(labels), judge, columns={"label": "human"})
    assert card.to_dict()["n_items"] == 24


def test_score_renames_a_files_answer_column(tmp_path: Path) -> None:
    _assert_renamed_reads_as_plain(
        fairjudge.score,
        "score_answers.jsonl",
        "python:fairjudge.examples.judges:scorer",
        "answer",
        "response",
        "dimensions",
        tmp_path / "s.jsonl",
    )


def test_a_file_column_no_reader_renames_is_refused(tmp_path: Path) -> None:
    with pytest.raises(fairjudge.ConfigError, match="columns") as e:
        fairjudge.score(
            str(EXAMPLES / "score_answers.jsonl"),
            "python:fairjudge.examples.judges:scorer",
            columns={"who": "system"},
        )
    assert e.value.params == ("columns",)


def test_rank_and_audit_refuse_columns_for_a_file() -> None:
    with pytest.raises(fairjudge.ConfigError, match="none, for this input") as e:
        fairjudge.rank(str(EXAMPLES / "rank_answers.jsonl"), columns={"q": "question_id"})
    assert e.value.params == ("columns",)
    with pytest.raises(fairjudge.ConfigError, match="none, for this input"):
        fairjudge.audit_judge(
            "openai/m", items=str(EXAMPLES / "score_answers.jsonl"), columns={"who": "system"}
        )
