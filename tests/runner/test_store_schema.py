"""A store whose schema is not fairjudge's is refused before any call.

The attack this guards against was reproduced as a process: a store handed over
with a trigger on ``calls`` rewrote every fresh reply the victim's run stored, and
the rerun served the rewritten verdicts as cached truth. Here each kind of object is
planted in a real SQLite file (``tests/runner/_hostile_schemas.py``), opened by the
library and, for the attack itself, by ``fairjudge compare`` as a process against
the scripted judge on 127.0.0.1. Stores written by earlier fairjudge versions, built
from the DDL those versions ran, still open.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.cli._flags import to_flags
from fairjudge.runner import Store
from fairjudge.runner._records import SCHEMA_VERSION
from fairjudge.runner._store_open import APPLICATION_ID
from fairjudge.runner._store_schema import check_schema, expected_schema, schema_of
from tests.cli_process import fairjudge
from tests.runner._fakes import make_spec
from tests.runner._hostile_schemas import ODD_NAME, PLANTS, plant
from tests.runner.test_store import record
from tests.server import JudgeServer

# The calls table exactly as fairjudge has written it since the store began: first
# alone, with application id 0 (the oldest stores), then with the claims table and
# the application id. Kept as text here, so a change to the DDL that older stores
# would fail is caught.
CALLS_AS_WRITTEN = """
CREATE TABLE IF NOT EXISTS calls (
    key              TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    backend          TEXT NOT NULL,
    model            TEXT NOT NULL,
    base_url         TEXT,
    template         TEXT NOT NULL,
    template_version TEXT NOT NULL,
    sample           INTEGER NOT NULL,
    spec             TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    raw              TEXT,
    parsed           TEXT,
    top_logprobs     TEXT,
    response_model   TEXT,
    input_tokens     INTEGER,
    output_tokens    INTEGER,
    latency_s        REAL,
    cost_usd         REAL,
    attempts         INTEGER NOT NULL,
    error_kind       TEXT,
    error_message    TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    schema_version   INTEGER NOT NULL
);
"""
CLAIMS_AS_WRITTEN = """
CREATE TABLE IF NOT EXISTS claims (
    key        TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
"""
SQL = {name: how for name, how, _, _ in PLANTS}

EARLIER_VERSIONS = {
    "calls-only": f"PRAGMA journal_mode = WAL; {CALLS_AS_WRITTEN} PRAGMA user_version = 1;",
    "calls-and-claims": (
        f"PRAGMA journal_mode = WAL; {CALLS_AS_WRITTEN} {CLAIMS_AS_WRITTEN} "
        f"PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1;"
    ),
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refusal(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        Store(path)
    return info.value


def genuine_schema(tmp_path: Path) -> dict[tuple[str, str], object]:
    path = tmp_path / "genuine.sqlite"
    Store(path).close()
    conn = sqlite3.connect(path)
    try:
        return dict(schema_of(conn))
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("how", "named", "why"), [p[1:] for p in PLANTS], ids=[p[0] for p in PLANTS]
)
def test_each_planted_object_is_refused_by_name_and_the_file_is_left_alone(
    tmp_path: Path, how: str | tuple[str, str], named: str, why: str
) -> None:
    path = tmp_path / "s.sqlite"
    plant(path, how)
    before = digest(path)
    err = refusal(path)
    message = str(err)
    assert "\n" not in message
    assert message.startswith(
        f"the store {str(path)!r} has a schema that fairjudge does not write: {named} {why}"
    )
    # ``.schema`` selects by table: an index or trigger is shown with its table.
    table = named.rsplit(" ", 1)[1] if " on table " in named else named.split(" ")[1]
    quoted = shlex.quote(str(path))
    odd = named.split(" ")[1].startswith('"')
    command = f"sqlite3 {quoted} .schema" if odd else f"sqlite3 {quoted} '.schema {table}'"
    assert f"(see it with `{command}`)" in message
    assert "no call was made" in message
    assert err.params == ("store",)
    assert to_flags(message, err.params).endswith(
        "do not reuse them; pass another path with --store"
    )
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="no sqlite3 command here")
@pytest.mark.parametrize(
    ("sql", "shown"),
    [
        (SQL["trigger-rewriting-replies"], "CREATE TRIGGER rewrite AFTER INSERT ON calls"),
        (SQL["view"], "CREATE VIEW answers AS SELECT key, raw FROM calls"),
        (SQL["odd-name"], "CREATE TRIGGER"),
    ],
    ids=["trigger", "view", "odd-name"],
)
def test_the_command_in_the_message_shows_the_object(tmp_path: Path, sql: str, shown: str) -> None:
    path = tmp_path / "s.sqlite"
    plant(path, sql)
    command = str(refusal(path)).split("(see it with `", 1)[1].split("`)", 1)[0]
    done = subprocess.run(
        ["sh", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=30, check=True
    )
    assert shown in done.stdout
    assert not (tmp_path / "pwned").exists()  # the odd name ran nothing


def test_a_handed_over_store_with_a_rewriting_trigger_stops_compare_before_any_call(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    # The victim's store came from someone else: a fairjudge store plus a trigger that
    # turns every reply it stores into "[[A]]". Before the check, compare stored the
    # judge's replies rewritten and the rerun served them as cached truth.
    openai_env.configure(judge="longer")
    store = tmp_path / "shared.sqlite"
    plant(store, SQL["trigger-rewriting-replies"])
    items = tmp_path / "items.jsonl"
    rows = [
        {"id": str(i), "question": f"q{i}?", "answer_1": "a" * (1 + i % 3), "answer_2": "bb"}
        for i in range(8)
    ]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = [
        "compare", items, "--judge", "openai/m", "--base-url", openai_env.base_url,
        "--store", store, "--max-unresolved", "1",
    ]  # fmt: skip

    done = fairjudge(*args, "-q")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(
        f"error: the store {str(store)!r} has a schema that fairjudge does not write: "
        "trigger rewrite on table calls that fairjudge never creates (see it with "
        f"`sqlite3 {shlex.quote(str(store))} '.schema calls'`)"
    )
    assert lines[0].endswith("pass another path with --store")
    assert openai_env.count("requests") == 0
    assert openai_env.count("connections") == 0

    as_json = fairjudge(*args, "--json")
    assert as_json.returncode == 2
    error = json.loads(as_json.stdout)["error"]
    assert error["exit_code"] == 2
    assert "trigger rewrite on table calls" in error["message"]
    assert openai_env.count("requests") == 0
    conn = sqlite3.connect(store)
    assert conn.execute("SELECT COUNT(*) FROM calls").fetchone() == (0,)
    conn.close()


def test_a_clean_store_opens_again_with_trusted_schema_off(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.write([record(1, raw="kept")])
    with Store(path) as store:
        assert store._conn.execute("PRAGMA trusted_schema").fetchone() == (0,)
        got = store.get(make_spec(1).key)
        assert got is not None
        assert got.raw == "kept"


@pytest.mark.parametrize("version", sorted(EARLIER_VERSIONS))
def test_a_store_from_an_earlier_version_opens_and_gets_todays_schema(
    tmp_path: Path, version: str
) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(EARLIER_VERSIONS[version])
    with Store(":memory:") as scratch:  # the row as fairjudge writes it
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
    assert dict(schema_of(conn)) == genuine_schema(tmp_path)  # claims added where missing
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    Store(path).close()  # and it opens again as it is now


def test_the_expected_schema_follows_the_ddl(tmp_path: Path) -> None:
    # A table added to the DDL is expected from then on; a store without it is an
    # older store (the opener adds it), one with it changed is refused.
    def write(conn: sqlite3.Connection) -> None:
        conn.executescript(
            f"{CALLS_AS_WRITTEN} CREATE TABLE IF NOT EXISTS batches (id TEXT PRIMARY KEY);"
        )

    expected = expected_schema(write)
    assert {name for kind, name in expected if kind == "table"} == {"calls", "batches"}
    conn = sqlite3.connect(tmp_path / "s.sqlite")
    conn.executescript(CALLS_AS_WRITTEN)
    assert check_schema(conn, "s.sqlite", expected) is True  # batches missing
    write(conn)
    assert check_schema(conn, "s.sqlite", expected) is False
    conn.executescript("DROP TABLE batches; CREATE TABLE batches (id INTEGER PRIMARY KEY);")
    with pytest.raises(ConfigError, match="table batches whose column id is declared as INTEGER"):
        check_schema(conn, "s.sqlite", expected)
    conn.close()


def test_many_objects_are_named_five_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    plant(path, "; ".join(f"CREATE VIEW v{i} AS SELECT {i}" for i in range(8)))
    message = str(refusal(path))
    assert message.count("view v") == 5
    assert f"; and 3 more (`sqlite3 {shlex.quote(str(path))} .schema` shows them all)" in message


def test_an_odd_name_is_shown_escaped_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    plant(path, SQL["odd-name"])
    message = str(refusal(path))
    assert "\n" not in message
    assert ascii(ODD_NAME) in message


def test_a_view_standing_in_for_calls_is_named_with_the_table_behind_it(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    plant(path, SQL["calls-replaced-by-a-view"])
    message = str(refusal(path))
    assert "table kept that fairjudge never creates" in message
    assert "view calls that fairjudge never creates" in message
