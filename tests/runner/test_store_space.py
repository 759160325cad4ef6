"""A disk refused for low space leaves nothing behind.

Opening a store checks the free space before it creates a folder or a file, and an
open that refuses after it created the store removes it again (with ``-wal`` and
``-shm``) and the folders it made; the message says nothing was created, or, for a
store that was there, that it was not changed.

What is simulated: the low space (``shutil.disk_usage`` reports 1 MiB free) and a
write probe failing like a full disk; the files and folders are real.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.runner import Store, _store_errors, _store_open


@pytest.fixture
def low_space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk reports 1 MiB free (simulated)."""
    usage = shutil.disk_usage(tmp_path)._replace(free=2**20)
    monkeypatch.setattr(_store_errors.shutil, "disk_usage", lambda _: usage)


@pytest.mark.usefixtures("low_space")
def test_low_space_leaves_no_store_file_behind(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "s.sqlite"
    with pytest.raises(ConfigError) as info:
        Store(path)
    message = str(info.value)
    assert f"the disk holding {tmp_path} is full (1.0 MiB free)" in message
    assert "No call was made and nothing was created" in message
    assert list(tmp_path.iterdir()) == []  # no store, no -wal/-shm, no folders, no temp file


@pytest.mark.usefixtures("low_space")
def test_low_space_leaves_an_existing_store_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite"
    monkeypatch.undo()
    Store(path).close()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    usage = shutil.disk_usage(tmp_path)._replace(free=2**20)
    monkeypatch.setattr(_store_errors.shutil, "disk_usage", lambda _: usage)
    with pytest.raises(ConfigError) as info:
        Store(path)
    assert "No call was made and the store was not changed" in str(info.value)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_store_refused_after_it_was_created_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The disk fills between the free-space check and the write probe: the store
    # this open created is removed again, with its -wal and -shm.
    def probe(conn: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(_store_open, "_probe", probe)
    path = tmp_path / "sub" / "s.sqlite"
    with pytest.raises(ConfigError) as info:
        Store(path)
    assert "No call was made and nothing was created" in str(info.value)
    assert list(tmp_path.iterdir()) == []
