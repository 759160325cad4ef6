"""The store's schema, checked on every open: what fairjudge writes, and nothing else.

A store is an audit log only if no trigger or view can rewrite what runs store, so
the only store opened is one whose schema is exactly the one fairjudge's own DDL
builds; anything else is refused before any call, naming the object.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from fairjudge._errors import ConfigError

__all__ = ["SchemaObject", "check_schema", "expected_schema", "schema_of"]

_SHOWN = 5  # objects named in one message; the rest are counted
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Whitespace outside SQL's quoted tokens ('text', "name", `name`, [name]); a quoted
# token is matched first and kept as it is, so only whitespace between tokens folds.
_TOKEN_OR_SPACE = re.compile(r"""('(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\])|\s+""")


@dataclass(frozen=True, slots=True)
class SchemaObject:
    """One entry of ``sqlite_master``, with what SQLite reports about its columns.

    Attributes:
        type: ``table``, ``index``, ``trigger`` or ``view``.
        name: The object's name.
        table: The table it belongs to (its own name for a table or view).
        sql: Its ``CREATE`` statement with whitespace folded; ``None`` for the indexes
            SQLite makes itself for a ``PRIMARY KEY`` or ``UNIQUE`` constraint.
        columns: ``PRAGMA table_xinfo`` rows (a table) or ``index_xinfo`` rows (an
            index) without their position: (name, type, not null, default, key,
            hidden) or (column, name, descending, collation, key); none for the rest.
    """

    type: str
    name: str
    table: str
    sql: str | None
    columns: tuple[tuple[object, ...], ...]


def _folded(sql: str | None) -> str | None:
    if sql is None:
        return None
    return _TOKEN_OR_SPACE.sub(lambda m: m.group(1) or " ", sql).strip()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def schema_of(conn: sqlite3.Connection) -> dict[tuple[str, str], SchemaObject]:
    """Every object in the database of ``conn``, keyed by ``(type, name)``.

    Reads ``sqlite_master`` and the column pragmas only: nothing in the schema runs.
    """
    found: dict[tuple[str, str], SchemaObject] = {}
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    for kind, name, table, sql in rows:
        # Not a view's columns: reading them runs the view's query, which can fail (a
        # table it names is gone) or call functions; its CREATE statement says it all.
        pragma = {"table": "table_xinfo", "index": "index_xinfo"}
        columns: tuple[tuple[object, ...], ...] = ()
        if kind in pragma:
            listed = conn.execute(f"PRAGMA {pragma[kind]}({_quoted(name)})").fetchall()
            columns = tuple(tuple(row[1:]) for row in listed)
        found[(kind, name)] = SchemaObject(kind, name, table, _folded(sql), columns)
    return found


def expected_schema(
    write: Callable[[sqlite3.Connection], None],
) -> dict[tuple[str, str], SchemaObject]:
    """The schema that ``write`` (the store's own DDL) makes in an empty database."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        write(conn)
        return schema_of(conn)
    finally:
        conn.close()


def check_schema(
    conn: sqlite3.Connection,
    path: str,
    expected: dict[tuple[str, str], SchemaObject],
) -> bool:
    """Refuse a store whose schema holds anything fairjudge does not write.

    Returns:
        Whether an object of ``expected`` is missing (an older store): the caller
        writes the schema, which adds it.

    Raises:
        ConfigError: An object that is not fairjudge's, or one of fairjudge's that
            was changed; the message names each (up to five) and the ``sqlite3``
            command that shows it.
    """
    found = schema_of(conn)
    problems = [
        (obj, why)
        for key, obj in sorted(found.items())
        if (why := _what_is_wrong(obj, expected.get(key))) is not None
    ]
    # An index SQLite made for a refused table's key is that table's, not news.
    refused = {obj.name for obj, _ in problems if obj.type == "table"}
    problems = [
        (obj, why)
        for obj, why in problems
        if not (obj.type == "index" and obj.sql is None and obj.table in refused)
    ]
    if problems:
        raise _foreign(path, problems)
    return any(key not in found for key in expected)


def _shown(name: str) -> str:
    """A name as a message shows it: as is when plain, else escaped (it is the file's text)."""
    return name if _PLAIN_NAME.fullmatch(name) else ascii(name)


def _what_is_wrong(obj: SchemaObject, ours: SchemaObject | None) -> str | None:
    if ours is None:
        return "that fairjudge never creates"
    if obj.type == "table" and obj.columns != ours.columns:
        return _column_change(obj.columns, ours.columns)
    if obj.columns != ours.columns or obj.sql != ours.sql or obj.table != ours.table:
        return "defined otherwise than fairjudge defines it (a constraint, collation or option)"
    return None


def _column_change(
    found: tuple[tuple[object, ...], ...], ours: tuple[tuple[object, ...], ...]
) -> str:
    names, our_names = [str(c[0]) for c in found], [str(c[0]) for c in ours]
    extra = [n for n in names if n not in our_names]
    if extra:
        return f"with a column {_shown(extra[0])} that fairjudge does not write"
    missing = [n for n in our_names if n not in names]
    if missing:
        return f"without the column {_shown(missing[0])} that fairjudge writes"
    if names != our_names:
        return "with its columns in another order than fairjudge's"
    for column, our_column in zip(found, ours, strict=True):
        if column[1] != our_column[1]:
            declared = f"as {_shown(str(column[1]))}" if column[1] else "without a type"
            return (
                f"whose column {_shown(str(column[0]))} is declared {declared} where "
                f"fairjudge declares it as {our_column[1]}"
            )
    changed = next(n for n, c, o in zip(names, found, ours, strict=True) if c != o)
    return (
        f"whose column {_shown(changed)} is declared otherwise than fairjudge declares it "
        "(NOT NULL, default, key or generated)"
    )


def _foreign(path: str, problems: list[tuple[SchemaObject, str]]) -> ConfigError:
    shown = "; ".join(_described(path, obj, why) for obj, why in problems[:_SHOWN])
    more = len(problems) - _SHOWN
    if more > 0:
        shown += f"; and {more} more (`sqlite3 {shlex.quote(path)} .schema` shows them all)"
    return ConfigError(
        f"the store {path!r} has a schema that fairjudge does not write: {shown}. "
        "A trigger or view in a store can rewrite what a run stores or reads back, and "
        "a changed table can change what is kept, so fairjudge did not open it and no "
        "call was made. Its rows may already have been rewritten: do not reuse them; "
        "pass another path with store",
        params="store",
    )


def _described(path: str, obj: SchemaObject, why: str) -> str:
    on = f" on table {_shown(obj.table)}" if obj.type in ("index", "trigger") else ""
    # ``.schema NAME`` selects by table name: for an index or trigger it is the
    # table's name, which shows the table with its indexes and triggers.
    if _PLAIN_NAME.fullmatch(obj.name) and _PLAIN_NAME.fullmatch(obj.table):
        command = f"sqlite3 {shlex.quote(path)} '.schema {obj.table}'"
    else:  # a name a dot-command could misread: show the whole schema
        command = f"sqlite3 {shlex.quote(path)} .schema"
    return f"{obj.type} {_shown(obj.name)}{on} {why} (see it with `{command}`)"
