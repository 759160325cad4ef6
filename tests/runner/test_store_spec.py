"""A store row is served only for the call it records: its spec must hash to its key.

The key of a row is the SHA-256 of its call's canonical JSON, and the row keeps that
JSON in ``spec``. A store may be handed over by someone else: a row whose spec was
edited, or a row copied under another call's key, would otherwise be served as the
reply to a call it never answered. Such a row is damaged (:class:`StoreRowDamaged`,
exit 2 in the CLI), like a row with a malformed column (test_store_damage.py).

Rows written before the spec column held the hashed text itself (the same JSON in
:meth:`CallSpec.canonical`'s order) still verify, numbers-for-keys parameters included.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.runner import RunOptions, Store, run_calls
from fairjudge.runner._records import COLUMNS, NOT_ITS_KEY, dumps, matches_key
from fairjudge.runner._store_errors import StoreRowDamaged
from tests.runner._fakes import FakeBackend, make_spec
from tests.runner._hostile_rows import delete_sql_of, fill, spoil

REPO = Path(__file__).resolve().parents[2]
QUIET = RunOptions(concurrency=4, progress="quiet")
BIAS = {"logit_bias": {50256: -100, 9: 5, 10: 1}, "temperature": 0.0}
"""Parameters with numbers for keys: sorted as numbers into the key, kept as text."""


def _run(path: Path, n: int = 3) -> tuple[FakeBackend, object]:
    backend = FakeBackend()
    with Store(path) as store:
        specs = [make_spec(i) for i in range(n)]
        result = asyncio.run(run_calls(backend, specs, store=store, options=QUIET))
    return backend, result


def _refused(path: Path, n: int = 3) -> tuple[FakeBackend, StoreRowDamaged]:
    backend = FakeBackend()
    with Store(path) as store, pytest.raises(StoreRowDamaged) as info:
        asyncio.run(
            run_calls(backend, [make_spec(i) for i in range(n)], store=store, options=QUIET)
        )
    assert isinstance(info.value, ConfigError)  # exit 2 in the CLI
    assert backend.calls == 0  # refused before any call
    return backend, info.value


def _spec_of(path: Path, key: str) -> str:
    conn = sqlite3.connect(path)
    try:
        (spec,) = conn.execute("SELECT spec FROM calls WHERE key = ?", (key,)).fetchone()
    finally:
        conn.close()
    return str(spec)


def test_a_row_writes_the_text_its_key_hashes() -> None:
    spec = make_spec(1, params=BIAS)
    with Store(":memory:") as store:
        asyncio.run(run_calls(FakeBackend(), [spec], store=store, options=QUIET))
        text = store._conn.execute("SELECT spec FROM calls").fetchone()[0]
        assert hashlib.sha256(text.encode()).hexdigest() == spec.key
        assert json.loads(text) == json.loads(dumps(spec.canonical()))


def test_an_edited_spec_is_refused_before_any_call(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 3)
    edited = _spec_of(path, keys[1]).replace("question 1", "question 1, edited")
    spoil(path, keys[1], "spec", edited)
    _, err = _refused(path)
    assert err.damage == {keys[1]: f"spec {NOT_ITS_KEY}"}
    message = str(err)
    assert message.startswith(f"the store {str(path)!r} has 1 damaged row: call {keys[1]}: spec ")
    assert "Use another store, or delete it and the next run makes those calls again" in message
    # get() and records() refuse it too, and serve the rows left whole.
    with Store(path) as store:
        with pytest.raises(StoreRowDamaged, match=f"call {keys[1]}: spec does not hash"):
            store.get(keys[1])
        with pytest.raises(StoreRowDamaged, match=f"call {keys[1]}: spec does not hash"):
            list(store.records())
        assert store.get(keys[0]) is not None
        assert set(store.get_many([keys[0], keys[2]])) == {keys[0], keys[2]}


def test_a_row_copied_under_another_calls_key_is_refused(tmp_path: Path) -> None:
    # Call 2's row (its spec and its reply) put where call 0's row was.
    path = tmp_path / "s.sqlite"
    keys = fill(path, 3)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM calls WHERE key = ?", (keys[0],))
        others = ", ".join(c for c in COLUMNS if c != "key")
        conn.execute(
            f"INSERT INTO calls (key, {others}) SELECT ?, {others} FROM calls WHERE key = ?",
            (keys[0], keys[2]),
        )
    conn.close()
    _, err = _refused(path)
    assert list(err.damage) == [keys[0]]


def test_two_swapped_keys_are_both_refused_and_the_command_repairs_the_store(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 3)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE calls SET key = 'swap' WHERE key = ?", (keys[0],))
        conn.execute("UPDATE calls SET key = ? WHERE key = ?", (keys[0], keys[1]))
        conn.execute("UPDATE calls SET key = ? WHERE key = 'swap'", (keys[1],))
    conn.close()
    _, err = _refused(path)
    assert sorted(err.damage) == sorted(keys[:2])
    conn = sqlite3.connect(path)
    conn.execute(delete_sql_of(str(err)))
    conn.commit()
    conn.close()
    backend, _ = _run(path)
    assert backend.calls == 2  # exactly the two deleted calls are made again


def test_a_column_that_contradicts_the_spec_is_refused_by_the_audit_reader(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 2)
    spoil(path, keys[0], "model", "another-model")
    with Store(path) as store:
        with pytest.raises(StoreRowDamaged, match="model does not match the row's spec"):
            store.get(keys[0])
        assert store.get(keys[1]) is not None


@pytest.mark.parametrize(
    ("field", "value", "column"),
    [
        ("template_version", 2, "2"),  # TEXT keeps a number as its text
        ("template_version", 1.5, "1.5"),
        ("sample", True, 1),  # INTEGER keeps a bool as the integer
    ],
    ids=["int-version", "float-version", "bool-sample"],
)
def test_a_call_made_with_a_number_for_a_text_field_reads_back(
    tmp_path: Path, field: str, value: object, column: object
) -> None:
    # The dataclasses take what they are given (PairwiseTemplate(version=2)); the row
    # holds it as SQLite stores it, the spec as JSON, and both say the same call.
    path = tmp_path / "s.sqlite"
    specs = [replace(make_spec(i), **{field: value}) for i in range(2)]
    with Store(path) as store:
        asyncio.run(run_calls(FakeBackend(), specs, store=store, options=QUIET))
        record = store.get(specs[0].key)
        assert record is not None
        assert getattr(record, field) == column
        assert sorted(r.key for r in store.records()) == sorted(s.key for s in specs)
    spoil(path, specs[0].key, field, "3")  # a real contradiction is still refused
    with Store(path) as store:
        with pytest.raises(StoreRowDamaged, match=f"{field} does not match the row's spec"):
            store.get(specs[0].key)
        assert store.get(specs[1].key) is not None


@pytest.mark.parametrize(
    "params",
    [{}, {"response_format": {"type": "json_schema", "strict": True}}, BIAS],
    ids=["plain", "nested-object", "numbers-for-keys"],
)
def test_rows_written_before_the_spec_held_the_hashed_text_still_verify(
    tmp_path: Path, params: dict[str, object]
) -> None:
    # Until now the spec column held json.dumps(spec.canonical()): the same JSON, in
    # canonical()'s order, with the numbers-for-keys of logit_bias as text.
    path = tmp_path / "s.sqlite"
    specs = [make_spec(i, params=params) for i in range(3)]
    with Store(path) as store:
        asyncio.run(run_calls(FakeBackend(), specs, store=store, options=QUIET))
    for spec in specs:
        old = dumps(spec.canonical())
        assert old is not None
        assert hashlib.sha256(old.encode()).hexdigest() != spec.key
        spoil(path, spec.key, "spec", old)
    backend = FakeBackend()
    with Store(path) as store:
        result = asyncio.run(run_calls(backend, specs, store=store, options=QUIET))
        assert backend.calls == 0
        assert result.summary.cached == 3  # type: ignore[attr-defined]
        assert [r.key for r in store.records()] != []
        assert store.get(specs[0].key) is not None


def test_matches_key_reads_every_form_and_refuses_the_rest() -> None:
    spec = make_spec(4, params=BIAS)
    assert matches_key(spec.key, spec.canonical_json())
    assert matches_key(spec.key, str(dumps(spec.canonical())))
    assert matches_key(spec.key, json.dumps(spec.canonical(), indent=1))  # reformatted
    assert not matches_key(spec.key, spec.canonical_json().replace("question 4", "question 5"))
    assert not matches_key(spec.key, str(dumps(spec.canonical())).replace("4", "5"))
    assert not matches_key(spec.key, str(dumps(spec.canonical()))[:-1])  # cut short
    assert not matches_key(spec.key, "{")
    assert not matches_key(spec.key, "[" * 100_000)
    assert not matches_key(make_spec(5).key, spec.canonical_json())


# -- the CLI, as a user runs it --------------------------------------------------------


def _cli(tmp_path: Path, base_url: str, key: str) -> subprocess.CompletedProcess[str]:
    items = tmp_path / "items.jsonl"
    rows = [
        {"id": str(i), "question": f"q{i}?", "answer_1": "a", "answer_2": "b"} for i in range(3)
    ]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = [
        sys.executable, "-c", "from fairjudge.cli import main; main()",
        "compare", str(items), "--judge", "openai/m", "--base-url", base_url,
        "--store", str(tmp_path / "s.sqlite"), "-q", "--json",
    ]  # fmt: skip
    env = {**os.environ, "OPENAI_API_KEY": key, "PYTHONPATH": str(REPO)}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, check=False)


def _result(done: subprocess.CompletedProcess[str]) -> object:
    data = json.loads(done.stdout)
    data.pop("calls")  # counts made and cached calls
    return data


def test_cli_refuses_an_edited_prompt_with_exit_2(tmp_path: Path, judge_server) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("fairjudge.backends._openai")
    key = judge_server.api_key
    first = _cli(tmp_path, judge_server.base_url, key)
    assert first.returncode == 0, first.stderr
    path = tmp_path / "s.sqlite"
    conn = sqlite3.connect(path)
    with conn:  # a recorded verdict that contradicts its reply is never served
        conn.execute("""UPDATE calls SET parsed = '{"verdict":"B"}'""")
    (victim, spec) = conn.execute("SELECT key, spec FROM calls ORDER BY key LIMIT 1").fetchone()
    conn.close()
    judge_server.reset()
    again = _cli(tmp_path, judge_server.base_url, key)
    assert again.returncode == 0, again.stderr
    assert _result(again) == _result(first)

    edited = spec.replace("?", "? Answer B.", 1)  # the question, in the prompt
    assert edited != spec
    spoil(path, victim, "spec", edited)
    third = _cli(tmp_path, judge_server.base_url, key)
    assert third.returncode == 2, third.stderr
    assert "Traceback" not in third.stderr
    (line,) = third.stderr.strip().splitlines()
    assert line.startswith(f"error: the store {str(path)!r} has 1 damaged row: call {victim}: ")
    assert "spec does not hash to the row's key" in line
    assert "Use another store, or delete it" in line
    assert judge_server.count("requests") == 0  # nothing paid for
