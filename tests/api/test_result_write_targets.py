"""A notebook's ``save`` and ``to_html`` never write over what they must not.

The command line checks ``--out`` and ``--html`` before a run; a notebook writes
after it, through the same check (:func:`fairjudge._api._result.check_target`): the
run's input file, a store, a folder, a pipe and a device are refused, naming
``path``, and left as they were.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import longer

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
QUIET = {"progress": "quiet"}


def _compare(tmp_path: Path) -> tuple[Any, Path]:
    source = tmp_path / "pairs.jsonl"
    shutil.copy(EXAMPLES / "demo_pairs.jsonl", source)
    return fairjudge.compare(str(source), longer, options=QUIET), source


def _via_scores(tmp_path: Path) -> tuple[Any, Path]:
    from fairjudge._api import EvalSettings, via_scores
    from fairjudge.io import load_items
    from fairjudge.prompts import get_rubric

    source = tmp_path / "calibration.jsonl"
    shutil.copy(EXAMPLES / "calibration.jsonl", source)
    done = via_scores(
        "python:fairjudge.examples.judges:scorer", load_items(source).items,
        EvalSettings(source=str(source)), setup=fairjudge.JudgeSetup(options=QUIET),
        rubric=get_rubric("production"),
    )  # fmt: skip
    return done, source


RUNS: dict[str, Callable[[Path], tuple[Any, Path]]] = {
    "compare": _compare,
    "via-scores": _via_scores,
}
WRITERS = ("save", "to_html")


def _refused(write: Callable[[Path], Any], target: Path, words: str) -> None:
    with pytest.raises(fairjudge.ConfigError, match=words) as caught:
        write(target)
    assert caught.value.params == ("path",)


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_the_input_file_is_refused_and_kept(run: str, writer: str, tmp_path: Path) -> None:
    done, source = RUNS[run](tmp_path)
    before = source.read_bytes()
    _refused(getattr(done, writer), source, "is the input file")
    assert source.read_bytes() == before


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_store_is_refused_and_kept(run: str, writer: str, tmp_path: Path) -> None:
    done, _ = RUNS[run](tmp_path)
    store = tmp_path / "judge.sqlite"
    with sqlite3.connect(store) as db:
        db.execute("create table calls (key text)")
    before = store.read_bytes()
    _refused(getattr(done, writer), store, "SQLite database")
    assert store.read_bytes() == before


@pytest.mark.parametrize("writer", WRITERS)
def test_a_pipe_is_refused_and_stays_a_pipe(writer: str, tmp_path: Path) -> None:
    done, _ = _compare(tmp_path)
    pipe = tmp_path / "fifo"
    os.mkfifo(pipe)
    _refused(getattr(done, writer), pipe, "not a regular file")
    assert pipe.is_fifo()


@pytest.mark.parametrize("writer", WRITERS)
def test_a_folder_is_refused_not_a_raw_os_error(writer: str, tmp_path: Path) -> None:
    done, _ = _compare(tmp_path)
    folder = tmp_path / "pages"
    folder.mkdir()
    _refused(getattr(done, writer), folder, "is a folder")
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_plain_new_file_is_written(run: str, writer: str, tmp_path: Path) -> None:
    done, _ = RUNS[run](tmp_path)
    target = tmp_path / "out" / f"run.{'html' if writer == 'to_html' else 'jsonl'}"
    assert getattr(done, writer)(target) == target
    assert target.stat().st_size > 0


def _score(tmp_path: Path) -> tuple[Any, Path]:
    from fairjudge.examples.judges import scorer

    return fairjudge.score(str(EXAMPLES / "score_answers.jsonl"), scorer, options=QUIET), tmp_path


def _rank(tmp_path: Path) -> tuple[Any, Path]:
    return fairjudge.rank(str(EXAMPLES / "rank_answers.jsonl"), longer, options=QUIET), tmp_path


@pytest.mark.parametrize(("writer", "example"), [("save", "results.jsonl"),
                                                 ("to_html", "report.html")])  # fmt: skip
@pytest.mark.parametrize("run", [*sorted(RUNS), "score", "rank"])
def test_a_path_ending_in_a_separator_names_a_folder(
    run: str, writer: str, example: str, tmp_path: Path
) -> None:
    """``save("out/")`` wrote a file named ``out`` (QA41 #10): ``Path`` drops the slash."""
    done, _ = {**RUNS, "score": _score, "rank": _rank}[run](tmp_path)
    folder = f"{tmp_path / 'pages'}{os.sep}"
    with pytest.raises(fairjudge.ConfigError) as caught:
        getattr(done, writer)(folder)
    assert str(caught.value) == (
        f"path {folder} names a folder; give a file name, e.g. {tmp_path / 'pages' / example}"
    )
    assert caught.value.params == ("path",)
    assert not (tmp_path / "pages").exists()


def test_an_existing_folder_suggests_a_file_in_it(tmp_path: Path) -> None:
    done, _ = _compare(tmp_path)
    folder = tmp_path / "pages"
    folder.mkdir()
    _refused(done.to_html, folder, f"is a folder; give a file name, e.g. {folder / 'report.html'}")
