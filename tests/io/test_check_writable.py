"""Where a result file may go, checked by the library: a notebook's ``save`` too.

``fairjudge.io.check_writable`` refuses a file that writing would destroy (an input,
a store), a folder, and what is not a regular file (a device, which the atomic
rename would replace); its messages name the parameter, which the command line
words as the flag. ``Result.save`` runs it, so a notebook cannot overwrite its store.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

import fairjudge
from fairjudge._errors import ConfigError
from fairjudge.examples.judges import longer
from fairjudge.io import check_writable

EXAMPLES = Path(fairjudge.__file__).parent / "examples"


def _store(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("create table t (x)")
    return path


def test_each_refusal_names_the_parameter_and_why(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("{}\n", encoding="utf-8")
    cases = [
        (source, "is the input file"),
        (tmp_path, "is a folder"),
        (_store(tmp_path / "runs.db"), "is a SQLite database"),
    ]
    if os.path.exists("/dev/null"):
        cases.append((Path("/dev/null"), "is not a regular file"))
    for path, why in cases:
        with pytest.raises(ConfigError) as caught:
            check_writable(path, "html", inputs=(source, None, "-"))
        assert str(caught.value).startswith(f"html {path}: {why}")
        assert caught.value.params == ("html",)


def test_a_writable_file_passes_and_its_folder_is_made(tmp_path: Path) -> None:
    target = tmp_path / "new" / "out.jsonl"
    check_writable(target)
    assert target.parent.is_dir()
    assert list(target.parent.iterdir()) == []  # the probe is gone


def test_a_notebooks_save_never_overwrites_a_store(tmp_path: Path) -> None:
    store = _store(tmp_path / "runs.db")
    before = store.read_bytes()
    result = fairjudge.compare(str(EXAMPLES / "demo_pairs.jsonl"), longer,
                               options={"progress": "quiet"})  # fmt: skip
    with pytest.raises(ConfigError, match=r"^path .*runs\.db: is a SQLite database"):
        result.save(store)
    assert store.read_bytes() == before
