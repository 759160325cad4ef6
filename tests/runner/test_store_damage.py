"""A store row with malformed or ill-typed data is damaged, not a traceback.

The decision (see :class:`fairjudge.runner.StoreRowDamaged`): a cached call is served
from its ``raw`` reply, which judges parse again, so a damaged ``parsed`` column never
stops a run: the reply is read again from ``raw``. A ``spec`` that does not hash to
its row's key (test_store_spec.py) and a damaged column that the reply itself needs
(``raw``, ``top_logprobs``, tokens, latency, the response model) cannot be rebuilt
from ``raw``. Such a row is reported before any
call is made, with its key, the column and what is wrong, and the command that
deletes it; it is never re-made behind the user's back (that would cost money, and an
``ok`` row is final, so the new reply could not replace it anyway).

Everything here is real: real SQLite files spoiled with ``UPDATE`` from a second
connection, the engine with an in-process backend, and the CLI as a child process
against the scripted HTTP judge on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.cli._flags import to_flags
from fairjudge.runner import RunOptions, Store, run_calls
from fairjudge.runner._records import COLUMNS
from fairjudge.runner._store_errors import StoreRowDamaged
from tests.runner._fakes import FakeBackend, make_spec
from tests.runner._hostile_rows import HOSTILE_ROWS, delete_sql_of, fill, spoil

REPO = Path(__file__).resolve().parents[2]
QUIET = RunOptions(concurrency=4, progress="quiet")


def rerun(path: Path, n: int = 4) -> tuple[FakeBackend, object]:
    """Run calls 0..n-1 on the store at ``path``; returns the backend and the result."""
    backend = FakeBackend()
    with Store(path) as store:
        specs = [make_spec(i) for i in range(n)]
        result = asyncio.run(run_calls(backend, specs, store=store, options=QUIET))
    return backend, result


@pytest.mark.parametrize(("column", "value", "why"), HOSTILE_ROWS, ids=[r[2] for r in HOSTILE_ROWS])
def test_a_damaged_column_the_reply_needs_is_reported_before_any_call(
    tmp_path: Path, column: str, value: object, why: str
) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 4)
    spoil(path, keys[2], column, value)
    backend = FakeBackend()
    with Store(path) as store, pytest.raises(StoreRowDamaged) as info:
        asyncio.run(
            run_calls(backend, [make_spec(i) for i in range(4)], store=store, options=QUIET)
        )
    err = info.value
    assert isinstance(err, ConfigError)  # exit 2 in the CLI, before any call
    assert backend.calls == 0
    assert err.path == str(path)
    assert list(err.damage) == [keys[2]]
    assert err.damage[keys[2]].startswith(f"{column} ")
    message = str(err)
    assert "\n" not in message
    assert message.startswith(
        f"the store {str(path)!r} has 1 damaged row: call {keys[2]}: {column} "
    )
    assert why in message
    assert message.endswith(
        f"""sqlite3 {shlex.quote(str(path))} "DELETE FROM calls WHERE key IN ('{keys[2]}')\""""
    )
    assert "the next run makes those calls again" in message


@pytest.mark.parametrize(("column", "value", "why"), HOSTILE_ROWS, ids=[r[2] for r in HOSTILE_ROWS])
def test_the_command_in_the_message_repairs_the_store(
    tmp_path: Path, column: str, value: object, why: str
) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 4)
    spoil(path, keys[1], column, value)
    with Store(path) as store, pytest.raises(StoreRowDamaged) as info:
        asyncio.run(run_calls(FakeBackend(), [make_spec(1)], store=store, options=QUIET))
    conn = sqlite3.connect(path)
    conn.execute(delete_sql_of(str(info.value)))
    conn.commit()
    conn.close()
    backend, _ = rerun(path)
    assert backend.calls == 1  # exactly the deleted call is made again
    assert backend.attempts[keys[1]] == 1


def test_a_fully_cached_rerun_reports_the_damage_too(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 3)
    spoil(path, keys[0], "top_logprobs", "[1,2")
    spoil(path, keys[2], "raw", None)
    with Store(path) as store, pytest.raises(StoreRowDamaged) as info:
        asyncio.run(run_calls(FakeBackend(), [make_spec(i) for i in range(3)], store=store))
    assert sorted(info.value.damage) == sorted([keys[0], keys[2]])
    message = str(info.value)
    assert "has 2 damaged rows: call " in message
    assert "top_logprobs is not valid JSON" in message
    assert "raw is missing (NULL)" in message


def test_a_damaged_column_rebuilt_from_raw_does_not_stop_a_run(tmp_path: Path) -> None:
    column = "parsed"
    path = tmp_path / "s.sqlite"
    keys = fill(path, 4)
    spoil(path, keys[3], column, '{"verdict": ')
    backend, result = rerun(path)
    assert backend.calls == 0
    outcome = result.outcomes[keys[3]]  # type: ignore[attr-defined]
    assert outcome.cached
    assert outcome.completion.text == "A 3"  # read again from raw
    assert outcome.completion.top_logprobs == {"A": -0.1, "B": -2.5}
    # The audit reader names the row instead of raising json's error.
    with Store(path) as store:
        with pytest.raises(StoreRowDamaged, match=f"call {keys[3]}: {column} is not valid JSON"):
            store.get(keys[3])
        with pytest.raises(StoreRowDamaged, match=f"call {keys[3]}: {column} is not valid JSON"):
            list(store.records())
        assert store.get(keys[0]) is not None


def test_a_hostile_key_cannot_turn_the_repair_command_into_another(tmp_path: Path) -> None:
    # A row whose key was planted with quotes, a newline and shell syntax: the message
    # stays one line, and the command it gives, run by a shell, deletes that row only.
    path = tmp_path / "s.sqlite"
    keys = fill(path, 2)
    evil = "x'); DROP TABLE calls; --\n\"$(touch pwned)`touch pwned`"
    conn = sqlite3.connect(path)
    with conn:
        others = ", ".join(c for c in COLUMNS if c != "key")
        conn.execute(
            f"INSERT INTO calls (key, {others}) SELECT ?, {others} FROM calls WHERE key = ?",
            (evil, keys[0]),
        )
    conn.close()
    spoil(path, evil, "parsed", "{")
    with Store(path) as store, pytest.raises(StoreRowDamaged) as info:
        list(store.records())
    message = str(info.value)
    assert "\n" not in message
    assert list(info.value.damage) == [evil]
    if shutil.which("sqlite3") is None:
        pytest.skip("no sqlite3 command here to run the message's command with")
    command = message.split("(at their cost): ", 1)[1]
    subprocess.run(["sh", "-c", command], cwd=tmp_path, check=True, timeout=30)
    assert not (tmp_path / "pwned").exists()
    with Store(path) as store:
        assert sorted(r.key for r in store.records()) == sorted(keys)


def test_usage_rows_report_damage(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 2)
    spoil(path, keys[0], "cost_usd", "a lot")
    with Store(path) as store, pytest.raises(StoreRowDamaged, match="cost_usd is not a number"):
        store.usage_rows(keys)


# -- the CLI, as a child process ------------------------------------------------------


def _items(path: Path) -> Path:
    rows = [
        {"id": str(i), "question": f"q{i}?", "answer_1": "short", "answer_2": f"longer {i}"}
        for i in range(6)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _cli(tmp_path: Path, base_url: str, key: str) -> subprocess.CompletedProcess[str]:
    args = [
        sys.executable, "-c", "from fairjudge.cli import main; main()",
        "compare", str(_items(tmp_path / "items.jsonl")), "--judge", "openai/m",
        "--base-url", base_url, "--store", str(tmp_path / "s.sqlite"), "-q",
        "--max-unresolved", "1",
    ]  # fmt: skip
    env = {**os.environ, "OPENAI_API_KEY": key, "PYTHONPATH": str(REPO)}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_cli_reports_a_damaged_row_with_exit_2_and_one_line(tmp_path: Path, judge_server) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("fairjudge.backends._openai")
    key = judge_server.api_key
    first = _cli(tmp_path, judge_server.base_url, key)
    assert first.returncode == 0, first.stderr
    made = judge_server.count("requests")
    assert made > 0
    path = tmp_path / "s.sqlite"
    conn = sqlite3.connect(path)
    (victim,) = conn.execute("SELECT key FROM calls ORDER BY key LIMIT 1").fetchone()
    conn.close()
    spoil(path, victim, "top_logprobs", "[1,2")
    judge_server.reset()

    again = _cli(tmp_path, judge_server.base_url, key)
    assert again.returncode == 2, again.stderr
    assert "Traceback" not in again.stderr
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1, again.stderr
    assert lines[0].startswith(f"error: the store {str(path)!r} has 1 damaged row: call {victim}: ")
    assert "top_logprobs is not valid JSON" in lines[0]
    assert judge_server.count("requests") == 0  # nothing paid for

    # The command the line gives repairs the store: the next run makes that one call.
    conn = sqlite3.connect(path)
    conn.execute(delete_sql_of(lines[0]))
    conn.commit()
    conn.close()
    third = _cli(tmp_path, judge_server.base_url, key)
    assert third.returncode == 0, third.stderr
    assert judge_server.count("requests") == 1


def test_many_damaged_rows_are_summed_up_and_a_damaged_file_is_called_one() -> None:
    few = StoreRowDamaged("s.sqlite", {f"k{i}": "raw is missing (NULL)" for i in range(5)})
    message = str(few)
    assert message.startswith("the store 's.sqlite' has 5 damaged rows: call k0: raw is ")
    assert "; call k2: raw is missing (NULL); and 2 more. " in message
    assert message.endswith(
        """sqlite3 s.sqlite "DELETE FROM calls WHERE key IN ('k0', 'k1', 'k2', 'k3', 'k4')\""""
    )
    many = StoreRowDamaged("s.sqlite", {f"k{i}": "raw is missing (NULL)" for i in range(201)})
    assert "; and 198 more. " in str(many)
    assert "DELETE" not in str(many)
    assert str(many).endswith(
        "move it aside and pass another store (`sqlite3 STORE .recover` can save the readable rows)"
    )
    assert ". Use another store, or delete them and the next run makes those calls " in message
    assert (few.params, many.params) == ((), ("store",))  # the CLI shows it as --store
    assert "pass another --store (`sqlite3 STORE" in to_flags(str(many), many.params)


@pytest.mark.parametrize("column", ["raw", "top_logprobs", "response_model", "spec"])
def test_text_that_is_not_utf8_is_a_damaged_row_not_an_internal_error(
    tmp_path: Path, column: str
) -> None:
    # SQLite keeps any bytes as TEXT; Python's reader raised OperationalError on them.
    path = tmp_path / "s.sqlite"
    keys = fill(path, 3)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(f"UPDATE calls SET {column} = CAST(X'41ff' AS TEXT) WHERE key = ?", (keys[1],))
    conn.close()
    backend = FakeBackend()
    with Store(path) as store:
        with pytest.raises(StoreRowDamaged) as info:
            asyncio.run(
                run_calls(backend, [make_spec(i) for i in range(3)], store=store, options=QUIET)
            )
        assert info.value.damage == {keys[1]: f"{column} is not UTF-8 text"}
        assert backend.calls == 0
        with pytest.raises(StoreRowDamaged, match=f"{column} is not UTF-8 text"):
            list(store.records())
        with pytest.raises(StoreRowDamaged, match=f"{column} is not UTF-8 text"):
            store.get(keys[1])
        assert store.get(keys[0]) is not None  # the connection reads text as before
        assert store.usage_rows(keys)[keys[0]][0] == "ok"
