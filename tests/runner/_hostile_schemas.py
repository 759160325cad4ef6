"""Stores whose schema is not fairjudge's: the plants, how to make them, and a count.

:data:`PLANTS` lists each kind of object a handed-over store can carry: triggers
(one that rewrites every stored reply, as in the attack that was reproduced, one
that does nothing, one that would load code), views (one over a table since dropped,
one standing in for ``calls``), an extra index, table and column, and ``calls`` tables
with a column retyped, reordered, dropped or re-declared, or a constraint changed.
Each plant is ``(id, SQL, what the message names, why it says)``:

- SQL run on a genuine store (made by :class:`~fairjudge.runner.Store`), or
- for a changed ``calls`` table, a ``(old, new)`` pair: the genuine ``CREATE TABLE
  calls`` statement with ``old`` replaced by ``new``, in a file built from scratch
  with fairjudge's ``claims`` table, application id and version.

:func:`count_hostile_schemas` is the benchmark's figure: each plant in a fresh
store, opened; ``believed`` counts stores that opened anyway, ``tracebacks`` opens
that ended in anything but a :class:`~fairjudge.ConfigError` (one line in the CLI), and
``unnamed`` refusals whose message does not name the object::

    from tests.runner._hostile_schemas import count_hostile_schemas
    tried, believed, unnamed, tracebacks = count_hostile_schemas(Path(tempfile.mkdtemp()))
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from fairjudge._errors import ConfigError
from fairjudge.runner import Store
from fairjudge.runner._records import SCHEMA_VERSION
from fairjudge.runner._store_open import APPLICATION_ID

__all__ = ["ODD_NAME", "PLANTS", "count_hostile_schemas", "plant", "schema_sql"]

ODD_NAME = "x'; touch pwned #\n"
"""A trigger name a dot-command or a shell could misread."""

PLANTS: list[tuple[str, str | tuple[str, str], str, str]] = [
    (
        "trigger-rewriting-replies",
        "CREATE TRIGGER rewrite AFTER INSERT ON calls BEGIN "
        "UPDATE calls SET raw = '[[A]]', parsed = '{\"verdict\":\"A\"}' WHERE key = NEW.key; END",
        "trigger rewrite on table calls",
        "that fairjudge never creates",
    ),
    (
        "trigger-doing-nothing",
        "CREATE TRIGGER quiet BEFORE DELETE ON claims BEGIN SELECT 1; END",
        "trigger quiet on table claims",
        "that fairjudge never creates",
    ),
    (
        "view",
        "CREATE VIEW answers AS SELECT key, raw FROM calls",
        "view answers",
        "that fairjudge never creates",
    ),
    (
        "view-on-a-dropped-table",
        "CREATE TABLE gone (a); CREATE VIEW stale AS SELECT a FROM gone; DROP TABLE gone",
        "view stale",
        "that fairjudge never creates",
    ),
    (
        "calls-replaced-by-a-view",
        "ALTER TABLE calls RENAME TO kept; CREATE VIEW calls AS SELECT * FROM kept",
        "table kept",
        "that fairjudge never creates",
    ),
    (
        "trigger-loading-code",
        "CREATE TRIGGER loader AFTER INSERT ON claims BEGIN SELECT load_extension('x'); END",
        "trigger loader on table claims",
        "that fairjudge never creates",
    ),
    (
        "extra-index",
        "CREATE INDEX by_model ON calls (model)",
        "index by_model on table calls",
        "that fairjudge never creates",
    ),
    (
        "extra-table",
        "CREATE TABLE notes (body TEXT)",
        "table notes",
        "that fairjudge never creates",
    ),
    (
        "extra-column",
        "ALTER TABLE calls ADD COLUMN note TEXT",
        "table calls",
        "with a column note that fairjudge does not write",
    ),
    (
        "column-type",
        ("raw              TEXT,", "raw              BLOB,"),
        "table calls",
        "whose column raw is declared as BLOB where fairjudge declares it as TEXT",
    ),
    (
        "column-untyped",
        ("cost_usd         REAL,", "cost_usd,"),
        "table calls",
        "whose column cost_usd is declared without a type where fairjudge declares it as REAL",
    ),
    (
        "column-order",
        (
            "kind             TEXT NOT NULL,\n    backend          TEXT NOT NULL,",
            "backend          TEXT NOT NULL,\n    kind             TEXT NOT NULL,",
        ),
        "table calls",
        "with its columns in another order than fairjudge's",
    ),
    (
        "column-missing",
        ("    error_message    TEXT,\n", ""),
        "table calls",
        "without the column error_message that fairjudge writes",
    ),
    (
        "column-not-null",
        ("raw              TEXT,", "raw              TEXT NOT NULL DEFAULT '[[A]]',"),
        "table calls",
        "whose column raw is declared otherwise than fairjudge declares it",
    ),
    (
        "constraint",
        ("key              TEXT PRIMARY KEY,", "key              TEXT PRIMARY KEY COLLATE NOCASE,"),
        "table calls",
        "defined otherwise than fairjudge defines it",
    ),
    (
        "odd-name",
        f'CREATE TRIGGER "{ODD_NAME}" AFTER UPDATE ON calls BEGIN SELECT 1; END',
        f"trigger {ODD_NAME!a} on table calls",
        "that fairjudge never creates",
    ),
]


def schema_sql(path: Path) -> dict[str, str]:
    """The ``CREATE`` statements of a genuine store at ``path``, by table name."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
        return {name: sql for name, sql in rows}
    finally:
        conn.close()


def plant(path: Path, how: str | tuple[str, str]) -> None:
    """A store at ``path`` (a new file) with the plant ``how`` (see :data:`PLANTS`)."""
    if isinstance(how, str):
        Store(path).close()
        conn = sqlite3.connect(path)
        try:
            conn.executescript(how)
        finally:
            conn.close()
        return
    genuine = path.with_name(f"{path.name}.genuine")
    Store(genuine).close()
    ours = schema_sql(genuine)
    genuine.unlink()
    old, new = how
    assert old in ours["calls"], old
    conn = sqlite3.connect(path)
    try:
        conn.executescript(
            f"PRAGMA journal_mode = WAL; {ours['calls'].replace(old, new)}; {ours['claims']}; "
            f"PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
        )
    finally:
        conn.close()


def count_hostile_schemas(workdir: Path) -> tuple[int, int, int, int]:
    """``(plants tried, opened anyway, refused without naming the object, tracebacks)``.

    All but the first must be 0.
    """
    believed = unnamed = tracebacks = 0
    for i, (_, how, named, _why) in enumerate(PLANTS):
        path = workdir / f"planted-{i}.sqlite"
        plant(path, how)
        try:
            Store(path).close()
        except ConfigError as exc:
            if named not in str(exc):
                unnamed += 1
        except Exception:
            tracebacks += 1
        else:
            believed += 1
    return len(PLANTS), believed, unnamed, tracebacks
