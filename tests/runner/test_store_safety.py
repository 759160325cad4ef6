"""The store is checked before any call and refuses files that are not its own.

Why: a store that cannot be written was found out only after calls were paid.
And the store accepted files that were not its own (another program's
database, an empty file, a damaged file).

What is real and what is simulated: the read-only file and folder tests use real
permissions (as root, where permissions do not stop writes, the check runs in a
child process as the unprivileged uid 65534); the parent-is-a-file, foreign-file,
empty-file and damaged-file tests use real files; the full-disk-at-open test fakes
``shutil.disk_usage``; one mid-run test wraps the store's connection to raise
SQLite's ``database or disk is full``, and the other makes writes really fail with
a file-size limit (``RLIMIT_FSIZE``) in a child process.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairjudge import ConfigError
from fairjudge.runner import RunOptions, Store, _store_errors, run_calls
from fairjudge.runner._records import SCHEMA_VERSION
from fairjudge.runner._store_errors import StoreWriteError
from fairjudge.runner._store_open import APPLICATION_ID
from tests.runner._fakes import FakeBackend, make_spec
from tests.runner.test_store import record

NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]

# The calls table as fairjudge wrote it before the store had an application id.
LEGACY_SCHEMA = """
CREATE TABLE calls (
    key TEXT PRIMARY KEY, kind TEXT NOT NULL, backend TEXT NOT NULL, model TEXT NOT NULL,
    base_url TEXT, template TEXT NOT NULL, template_version TEXT NOT NULL,
    sample INTEGER NOT NULL, spec TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error')), raw TEXT, parsed TEXT,
    top_logprobs TEXT, response_model TEXT, input_tokens INTEGER, output_tokens INTEGER,
    latency_s REAL, cost_usd REAL, attempts INTEGER NOT NULL, error_kind TEXT,
    error_message TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    schema_version INTEGER NOT NULL
);
"""


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def open_error(path: Path) -> str:
    """Open a store at ``path`` and return the ConfigError's message."""
    with pytest.raises(ConfigError) as info:
        Store(path)
    return str(info.value)


# -- defect 4: a store that cannot be written is refused before any call -----------------


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder the unprivileged uid can reach (pytest's tmp_path is root-only)."""
    path = Path(tempfile.mkdtemp(prefix="fj-perm-"))
    path.chmod(0o777)
    yield path
    path.chmod(0o755)
    shutil.rmtree(path)


def open_as_unprivileged(path: Path) -> tuple[str, str]:
    """Open ``Store(path)`` where permissions apply; returns (error class, message).

    As root, a forked child drops to uid 65534 first (a fresh interpreter cannot
    run as that user here: the Python install lives under /root).
    """
    if os.geteuid() != 0:
        try:
            Store(path).close()
        except Exception as exc:
            return type(exc).__name__, str(exc)
        return "opened", ""
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:  # the child: report on the pipe, never return into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            try:
                Store(path).close()
                out = "opened\n"
            except Exception as exc:
                out = f"{type(exc).__name__}\n{exc}"
            os.write(write, out.encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        out = fh.read()
    os.waitpid(pid, 0)
    kind, _, message = out.partition("\n")
    return kind, message.strip()


def test_read_only_store_file_is_refused_before_any_call(shared_dir: Path) -> None:
    path = shared_dir / "s.sqlite"
    with Store(path) as store:
        store.write([record(1)])
    path.chmod(0o444)
    kind, message = open_as_unprivileged(path)
    assert kind == "ConfigError"
    assert str(path) in message
    assert "the file is read-only for this user" in message


def test_read_only_folder_is_refused_for_a_new_and_an_old_store(shared_dir: Path) -> None:
    folder = shared_dir / "ro"
    folder.mkdir()
    with Store(folder / "old.sqlite") as store:
        store.write([record(1)])
    (folder / "old.sqlite").chmod(0o666)
    folder.chmod(0o555)
    for name in ("new.sqlite", "old.sqlite"):
        kind, message = open_as_unprivileged(folder / name)
        assert kind == "ConfigError", message
        assert str(folder / name) in message
        assert f"the folder {folder} is read-only for this user" in message
    assert sorted(p.name for p in folder.iterdir()) == ["old.sqlite"]


def test_parent_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("a file, not a folder")
    for path in (tmp_path / "notes" / "s.sqlite", tmp_path / "notes" / "deeper" / "s.sqlite"):
        message = open_error(path)
        assert str(path) in message
        assert f"{tmp_path / 'notes'} is a file, not a folder" in message


def test_full_disk_is_refused_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Simulated: the disk reports 1 MiB free.
    usage = shutil.disk_usage(tmp_path)._replace(free=2**20)
    monkeypatch.setattr(_store_errors.shutil, "disk_usage", lambda _: usage)
    message = open_error(tmp_path / "s.sqlite")
    assert str(tmp_path / "s.sqlite") in message
    assert f"the disk holding {tmp_path} is full (1.0 MiB free)" in message


class FailingConnection:
    """The store's connection, made to fail like a full disk after ``ok_commits`` commits."""

    def __init__(self, conn: sqlite3.Connection, ok_commits: int) -> None:
        self._conn = conn
        self.commits_left = ok_commits

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql == "COMMIT":
            if self.commits_left <= 0:
                self._conn.execute("ROLLBACK")
                raise sqlite3.OperationalError("database or disk is full")
            self.commits_left -= 1
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def test_write_failure_mid_run_is_a_store_write_error(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    store._conn = FailingConnection(store._conn, ok_commits=3)  # type: ignore[assignment]
    backend = FakeBackend(latency=0.001)
    options = RunOptions(concurrency=4, progress="quiet")
    with pytest.raises(StoreWriteError) as info:
        asyncio.run(
            run_calls(backend, [make_spec(i) for i in range(40)], store=store, options=options)
        )
    err = info.value
    store._conn = store._conn._conn  # type: ignore[attr-defined]
    kept = store.count()
    assert 0 < kept < 40
    assert err.unsaved > 0
    # Every reply received is either in the store or counted as not stored.
    assert backend.calls - backend.cancelled == kept + err.unsaved
    message = str(err)
    assert message.startswith(f"cannot write to the store {store.path}: ")
    assert "database or disk is full" in message
    assert f"{err.unsaved} paid replies could not be stored" in message
    store.close()


def fill_with_size_limit(path: str, limit: int, n: int) -> None:
    """Child process: run ``n`` calls with files capped at ``limit`` bytes; print the result."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    backend = FakeBackend(latency=0.001)
    with Store(path) as store:
        try:
            asyncio.run(
                run_calls(
                    backend,
                    [make_spec(i, text="x" * 2000 + str(i)) for i in range(n)],
                    store=store,
                    options=RunOptions(concurrency=4, progress="quiet"),
                )
            )
        except StoreWriteError as exc:
            print(f"{backend.calls - backend.cancelled} {exc.unsaved}")
            print(exc)
        else:
            print("no error")


@pytest.mark.slow
def test_real_write_failure_mid_run_keeps_what_was_stored(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    code = (
        "import sys\nfrom tests.runner.test_store_safety import fill_with_size_limit\n"
        "fill_with_size_limit(sys.argv[1], 200_000, 300)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])},
    )
    assert done.returncode == 0, done.stderr
    counts, message = done.stdout.split("\n", 1)
    replies, unsaved = map(int, counts.split())
    assert "Traceback" not in done.stderr
    assert message.startswith(f"cannot write to the store {path}: ")
    with Store(path) as store:
        kept = store.count()
        assert 0 < kept < 300
        assert replies == kept + unsaved


# -- defect 5: a file that is not a fairjudge store is refused and left alone -------------


def make_db(path: Path, script: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(script)
    conn.close()


@pytest.mark.parametrize(
    ("script", "why"),
    [
        (
            "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); "
            "INSERT INTO users VALUES (1, 'ada');",
            "it holds tables users (user_version 0)",
        ),
        (
            "CREATE TABLE calls (id INTEGER PRIMARY KEY, phone TEXT); "
            "INSERT INTO calls VALUES (1, '555');",
            "its own 'calls' table has other columns",
        ),
        (f"{LEGACY_SCHEMA} PRAGMA application_id = 1234; PRAGMA user_version = 1;", "0x4d2"),
        ("PRAGMA user_version = 7; VACUUM;", "it is a SQLite database with no tables"),
    ],
    ids=["other-tables", "other-calls-table", "other-application-id", "no-tables"],
)
def test_another_programs_database_is_refused_and_left_alone(
    tmp_path: Path, script: str, why: str
) -> None:
    path = tmp_path / "theirs.db"
    make_db(path, script)
    before = digest(path)
    message = open_error(path)
    assert message.startswith(f"{str(path)!r} is not a usable fairjudge store: ")
    assert why in message
    assert "0x464a4447" in message
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.db"]


def test_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    path.touch()
    message = open_error(path)
    assert "the file is empty (0 bytes)" in message
    assert path.stat().st_size == 0


def test_not_a_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("dear diary\n" * 100)
    assert "it is not a SQLite database" in open_error(path)
    assert path.read_text() == "dear diary\n" * 100


def test_store_from_before_the_application_id_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    make_db(path, f"PRAGMA journal_mode = WAL; {LEGACY_SCHEMA} PRAGMA user_version = 1;")
    conn = sqlite3.connect(path)
    with Store(":memory:") as scratch:  # build the old row with today's row layout
        scratch.write([record(1, raw="kept")])
        row = scratch._conn.execute("SELECT * FROM calls").fetchone()
    conn.execute(f"INSERT INTO calls VALUES ({','.join('?' * len(row))})", row)
    conn.commit()
    conn.close()
    with Store(path) as store:
        got = store.get(make_spec(1).key)
        assert got is not None
        assert got.raw == "kept"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_new_store_is_created_whole(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite"):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]
    conn = sqlite3.connect(tmp_path / "s.sqlite")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"calls", "claims", "batches", "batch_calls", "call_usage"}
    conn.close()


def damaged_store(tmp_path: Path, page: int) -> Path:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.write([record(i, raw="r" * 3000) for i in range(300)])
    size = 4096  # SQLite's default page size
    assert path.stat().st_size > (page + 1) * size
    with path.open("r+b") as fh:
        fh.seek(page * size + (100 if page == 0 else 0) + 8)
        fh.write(bytes(range(7, 256)) * 8)
    return path


@pytest.mark.parametrize("page", [0, 1, 40])
def test_damaged_store_is_refused_and_never_written(tmp_path: Path, page: int) -> None:
    path = damaged_store(tmp_path, page)
    before = digest(path)
    message = open_error(path)
    assert message.startswith(f"the store {str(path)!r} is damaged: it fails SQLite's integrity")
    assert "fairjudge will not write to it" in message
    assert digest(path) == before


def test_cli_refuses_a_foreign_store_with_exit_2(tmp_path: Path) -> None:
    pytest.importorskip("fairjudge.backends._openai")
    from typer.testing import CliRunner

    from fairjudge.cli import app

    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "1", "question": "q", "answer_1": "a", "answer_2": "b"}\n')
    store = tmp_path / "theirs.db"
    make_db(store, "CREATE TABLE users (id INTEGER PRIMARY KEY);")
    before = digest(store)
    args = ["compare", str(items), "--judge", "openai/m", "--base-url", "http://127.0.0.1:9"]
    result = CliRunner().invoke(app, [*args, "--store", str(store)], env={"OPENAI_API_KEY": "x"})
    assert result.exit_code == 2, result.output
    assert "is not a usable fairjudge store" in result.output
    assert digest(store) == before
