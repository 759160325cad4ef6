"""Hostile store rows: the values, helpers to plant them, and a count for benchmarks.

:data:`HOSTILE_ROWS` lists ``(column, value, words the report must contain)``: values
that a damaged file, a bad disk or a hand edit can leave in the ``calls`` table
(SQLite keeps whatever type it is given when the column's affinity cannot convert it).

:func:`count_hostile_rows` is the figure for a benchmark table: it plants each value
in turn (and the ones a run rebuilds from ``raw``) in a fresh store, runs the engine
over it, and counts the runs that ended in anything but a served result or a
:class:`~fairjudge.runner.StoreRowDamaged`: each of those would be a traceback in
the CLI, which prints :class:`~fairjudge.FairJudgeError` as one line::

    from tests.runner._hostile_rows import count_hostile_rows
    tried, tracebacks = count_hostile_rows(Path(tempfile.mkdtemp()))
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import FairJudgeError
from fairjudge.runner import RunOptions, Store, run_calls
from tests.runner._fakes import FakeBackend, make_spec

__all__ = ["HOSTILE_ROWS", "REBUILT_ROWS", "count_hostile_rows", "delete_sql_of", "fill", "spoil"]

HOSTILE_ROWS: list[tuple[str, object, str]] = [
    ("top_logprobs", "[1,2", "top_logprobs is not valid JSON"),
    ("top_logprobs", "[1,2]", "top_logprobs is not a JSON object of token log-probabilities"),
    ("top_logprobs", '{"A": "x"}', "top_logprobs is not a JSON object of token log-probabilities"),
    ("top_logprobs", '{"A": NaN}', "top_logprobs is not a JSON object of token log-probabilities"),
    ("top_logprobs", '{"A": true}', "top_logprobs is not a JSON object of token log-probabilities"),
    ("top_logprobs", "[" * 5000, "top_logprobs is nested too deep"),
    ("top_logprobs", b"\x00[1]", "top_logprobs is not text (a blob)"),
    ("raw", None, "raw is missing (NULL)"),
    ("raw", b"\xff\xfe", "raw is not text (a blob)"),
    ("input_tokens", "many", "input_tokens is not a whole number"),
    ("input_tokens", -3, "input_tokens is negative"),
    ("output_tokens", 1.5, "output_tokens is not a whole number"),
    ("latency_s", "slow", "latency_s is not a number"),
    ("latency_s", b"\x01", "latency_s is not a number"),
    ("response_model", b"\x00", "response_model is not text (a blob)"),
    ("latency_s", -1.0, "latency_s is negative"),
    ("cost_usd", -5, "cost_usd is negative"),
    ("cost_usd", "NaN", "cost_usd is not a number"),
    ("cost_usd", 1e999, "cost_usd is not a finite number"),
    ("schema_version", 99, "schema_version is 99, not a row layout fairjudge writes"),
    ("schema_version", 0, "schema_version is 0, not a row layout fairjudge writes"),
    ("spec", "{", "spec does not hash to the row's key"),
    ("spec", b"{}", "spec is not text (a blob)"),
]
"""Values in a column the cached reply needs: the run reports the row, exit 2."""

REBUILT_ROWS: list[tuple[str, object]] = [
    ("parsed", '{"verdict": '),
    ("parsed", "[" * 5000),
    ("parsed", '{"verdict": "B"}'),
]
"""Values in a column a run rebuilds from ``raw``: the run goes on."""


def _reply(spec: CallSpec, attempt: int) -> Completion:
    i = spec.messages[-1][1].rsplit(" ", 1)[-1]
    return Completion(
        text=f"A {i}", top_logprobs={"A": -0.1, "B": -2.5}, input_tokens=10, output_tokens=2
    )


def fill(path: Path, n: int) -> list[str]:
    """A store at ``path`` holding calls ``0..n-1`` (``make_spec(i)``); their keys."""
    specs = [make_spec(i) for i in range(n)]
    with Store(path) as store:
        asyncio.run(
            run_calls(
                FakeBackend(_reply),
                specs,
                store=store,
                options=RunOptions(concurrency=4, progress="quiet"),
            )
        )
    return [s.key for s in specs]


def spoil(path: Path, key: str, column: str, value: object) -> None:
    """Overwrite one column of one row from a second connection, as a bad disk might."""
    conn = sqlite3.connect(path)
    try:
        with conn:
            conn.execute(f"UPDATE calls SET {column} = ? WHERE key = ?", (value, key))
    finally:
        conn.close()


def delete_sql_of(message: str) -> str:
    """The ``DELETE`` statement a :class:`StoreRowDamaged` message tells the user to run."""
    found = re.search(r'"(DELETE FROM calls WHERE key IN \(.*\))"$', message)
    assert found is not None, message
    return found.group(1)


def count_hostile_rows(workdir: Path) -> tuple[int, int]:
    """``(hostile rows tried, tracebacks seen)``; the second must be 0.

    Each value of :data:`HOSTILE_ROWS` and :data:`REBUILT_ROWS` is planted in row 1
    of a fresh three-call store, which is then read three ways: a run over the same
    calls, :meth:`Store.records`, and :meth:`Store.usage_rows`. A traceback is any of
    those raising something other than a :class:`FairJudgeError` (the CLI prints a
    FairJudgeError as one line with exit 2, and anything else as a traceback).
    """
    cases = [(c, v) for c, v, _ in HOSTILE_ROWS] + REBUILT_ROWS
    tracebacks = 0
    for n, (column, value) in enumerate(cases):
        path = workdir / f"hostile-{n}.sqlite"
        keys = fill(path, 3)
        spoil(path, keys[1], column, value)
        with Store(path) as store:
            tracebacks += _tracebacks(store, keys)
    return len(cases), tracebacks


def _tracebacks(store: Store, keys: list[str]) -> int:
    """How many of the three ways of reading ``store`` raise a non-fairjudge error."""
    specs = [make_spec(i) for i in range(len(keys))]
    quiet = RunOptions(progress="quiet")
    reads = (
        lambda: asyncio.run(run_calls(FakeBackend(_reply), specs, store=store, options=quiet)),
        lambda: list(store.records()),
        lambda: store.usage_rows(keys),
    )
    seen = 0
    for read in reads:
        try:
            read()
        except FairJudgeError:
            pass
        except Exception:
            seen += 1
    return seen
