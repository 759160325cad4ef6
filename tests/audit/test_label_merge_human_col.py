"""``label-merge --human-col`` naming a column neither file has is refused.

It was accepted: both files' labels read as none, and the merge reported 0 labelled
by both and kappa n/a, exit 0. One file without the column (a labeller who has not
started) is still merged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairjudge import InputError
from fairjudge.audit import merge_labels
from fairjudge.io import Columns
from tests.cli_process import fairjudge, flat


def _file(path: Path, label: str | None) -> Path:
    rows = [{"id": f"q{i}", "question": "q", "answer_1": "a", "answer_2": "b"} for i in range(4)]
    if label is not None:
        rows = [{**r, label: "1"} for r in rows]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_label_column_neither_file_has_is_refused(tmp_path: Path) -> None:
    a, b = _file(tmp_path / "alice.jsonl", "human"), _file(tmp_path / "bob.jsonl", "human")
    out = tmp_path / "merged.jsonl"
    with pytest.raises(InputError, match=r"no column 'nope' \(columns\.human\)") as caught:
        merge_labels(a, b, out, columns=Columns(human="nope"))
    assert "'id', 'question', 'answer_1', 'answer_2', 'human'" in str(caught.value)
    assert caught.value.params == ("columns.human",)
    assert not out.exists()
    done = fairjudge("label-merge", str(a), str(b), "--out", str(out), "--human-col", "nope")
    err = flat(done.stderr)
    assert done.returncode == 2, (done.stdout, err)
    assert "no column 'nope' (--human-col)" in err, err
    assert not out.exists()


def test_one_file_with_the_column_is_merged(tmp_path: Path) -> None:
    a, b = _file(tmp_path / "alice.jsonl", "lab"), _file(tmp_path / "bob.jsonl", None)
    merged = merge_labels(a, b, tmp_path / "merged.jsonl", columns=Columns(human="lab"))
    assert merged.both == 0
    assert merged.only_one == 4
