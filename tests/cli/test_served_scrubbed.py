"""What a store or a results file serves is scrubbed like a fresh reply, and believed only
when its verdicts are what its replies say (QA39 #9, #13, #13b).

A store handed over, or written by an older fairjudge or another tool, may hold the
user's key in a reply; a results file may too, or carry verdicts its replies
contradict. Every output of a run served from them (the terminal, ``--json``,
``--out``, ``--html``, and ``fairjudge report``'s page, ``--json`` and ``--markdown``)
must mask the key, and an edited verdict must be refused with the file and line.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.out_file import out_records
from tests.server import JudgeServer

SHAPED = "sk-proj-AbCdEfGh0123456789"  # a key-shaped token: masked like the key itself


def _items(path: Path) -> Path:
    rows = [
        {"id": f"q{i}", "question": f"q{i}?", "answer_1": "short", "answer_2": f"longer {i}"}
        for i in range(4)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _compare(tmp_path: Path, server: JudgeServer, *extra: str):  # type: ignore[no-untyped-def]
    args = [
        "compare", str(_items(tmp_path / "items.jsonl")), "--judge", "openai/m",
        "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
        "--max-unresolved", "1", *extra,
    ]  # fmt: skip
    return CliRunner().invoke(app, args)


def _report(results: Path, page: Path, markdown: Path):  # type: ignore[no-untyped-def]
    args = ["report", str(results), "-o", str(page), "--markdown", str(markdown), "--json"]
    return CliRunner().invoke(app, args)


def _leaks(key: str, text: str) -> list[str]:
    return [secret for secret in (key, SHAPED, SHAPED[8:]) if secret in text]


def test_a_key_in_a_stored_reply_reaches_no_output(tmp_path: Path, openai_env: JudgeServer) -> None:
    key = openai_env.api_key
    assert key is not None
    first = _compare(tmp_path, openai_env, "-q")
    assert first.exit_code == 0, first.output
    store = tmp_path / "s.sqlite"
    with sqlite3.connect(store) as conn:  # a row another tool (or an older fairjudge) wrote
        conn.execute("UPDATE calls SET raw = ? WHERE rowid = 1", (f"Neither: {SHAPED} {key}",))
    assert key.encode() in store.read_bytes() + Path(f"{store}-wal").read_bytes()

    out, html = tmp_path / "o.jsonl", tmp_path / "o.html"
    terminal = _compare(tmp_path, openai_env)  # the table and the failure list
    as_json = _compare(tmp_path, openai_env, "--json", "--out", str(out), "--html", str(html))
    assert terminal.exit_code == as_json.exit_code == 0, terminal.output + as_json.output
    assert "the reply is not a verdict: 'Neither: ***" in terminal.output  # served, masked
    failures = json.loads(as_json.stdout)["failures"]
    assert "***" in json.dumps(failures)
    assert any("***" in (c["raw"] or "") for r in out_records(out) for c in r["calls"])
    page, markdown = tmp_path / "r.html", tmp_path / "r.md"
    report = _report(out, page, markdown)
    assert report.exit_code == 0, report.output
    for text in (terminal.output, as_json.output, report.output):
        assert _leaks(key, text) == []
    for path in (out, html, page, markdown):
        assert _leaks(key, path.read_text(encoding="utf-8")) == [], path


def _flip(out: Path, edited: Path, change) -> None:  # type: ignore[no-untyped-def]
    lines = out.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    change(record["calls"][0])
    lines[2] = json.dumps(record)
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_key_in_a_results_file_reaches_no_page_and_no_replay(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    key = openai_env.api_key
    assert key is not None
    out = tmp_path / "o.jsonl"
    assert _compare(tmp_path, openai_env, "-q", "--out", str(out)).exit_code == 0
    edited = tmp_path / "handed.jsonl"

    def leak(call: dict[str, object]) -> None:  # a parse failure quoting a key, as recorded
        call.update(raw=f"{key} {SHAPED}", verdict=None, preferred=None, failure={
            "type": "parse_failure", "reason": f"no verdict slot: {key} {SHAPED}"})  # fmt: skip

    _flip(out, edited, leak)
    page, markdown = tmp_path / "r.html", tmp_path / "r.md"
    report = _report(edited, page, markdown)
    assert report.exit_code == 0, report.output
    assert _leaks(key, report.output) == []
    for path in (page, markdown):
        assert _leaks(key, path.read_text(encoding="utf-8")) == [], path

    replay_out, replay_html = tmp_path / "replay.jsonl", tmp_path / "replay.html"
    replayed = CliRunner().invoke(app, [
        "compare", str(tmp_path / "items.jsonl"), "--judge", f"replay:{edited}", "--json",
        "--max-unresolved", "1", "--out", str(replay_out), "--html", str(replay_html)])  # fmt: skip
    assert replayed.exit_code == 0, replayed.output
    assert "parse failure" in replayed.output or "parse_failure" in replayed.output
    assert _leaks(key, replayed.output) == []
    for path in (replay_out, replay_html):
        assert _leaks(key, path.read_text(encoding="utf-8")) == [], path


def _swap(call: dict[str, object]) -> None:
    """Swap the verdict (and its translation), leaving the recorded reply as it was."""
    call["verdict"] = {"A": "B", "B": "A"}[str(call["verdict"])]
    call["preferred"] = {"1": "2", "2": "1"}[str(call["preferred"])]


def test_a_verdict_its_reply_contradicts_is_refused_by_report_and_replay(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    out = tmp_path / "o.jsonl"
    assert _compare(tmp_path, openai_env, "-q", "--out", str(out)).exit_code == 0
    edited = tmp_path / "flipped.jsonl"
    _flip(out, edited, _swap)
    report = _report(edited, tmp_path / "r.html", tmp_path / "r.md")
    assert report.exit_code == 2, report.output
    assert f"{edited}:3: call 1 (original, sample 0): its verdict is " in report.output
    assert not (tmp_path / "r.html").exists()
    replayed = CliRunner().invoke(
        app, ["compare", str(tmp_path / "items.jsonl"), "--judge", f"replay:{edited}", "-q"]
    )
    assert replayed.exit_code == 2, replayed.output
    assert f"{edited}:3: call 1 (original, sample 0)" in replayed.output


def test_a_python_judges_probabilities_still_load(tmp_path: Path) -> None:
    """A reply no verdict format reads (a Python judge's probabilities) keeps its verdict."""
    out = tmp_path / "o.jsonl"
    run = CliRunner().invoke(app, [
        "compare", str(_items(tmp_path / "items.jsonl")), "--judge",
        "python:tests.judge_fixtures:longer", "-q", "--out", str(out)])  # fmt: skip
    assert run.exit_code == 0, run.output
    edited = tmp_path / "probs.jsonl"

    def probabilities(call: dict[str, object]) -> None:
        call.update(raw=json.dumps({"A": 0.2, "B": 0.7, "tie": 0.1}), verdict="B",
                    probabilities={"A": 0.2, "B": 0.7, "tie": 0.1})  # fmt: skip
        call["preferred"] = "2" if call["order"] == "original" else "1"

    _flip(out, edited, probabilities)
    assert _report(edited, tmp_path / "r.html", tmp_path / "r.md").exit_code == 0
    replayed = CliRunner().invoke(
        app, ["compare", str(tmp_path / "items.jsonl"), "--judge", f"replay:{edited}", "-q"]
    )
    assert replayed.exit_code == 0, replayed.output


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
@pytest.mark.parametrize("flag", ["--out", "--html"])
def test_a_sibling_of_the_store_is_refused(
    tmp_path: Path, openai_env: JudgeServer, suffix: str, flag: str
) -> None:
    store = tmp_path / "s.sqlite"
    sibling = Path(f"{store}{suffix}")
    for _ in range(2):  # the store new (refused as it is written), then existing (at once)
        sibling.unlink(missing_ok=True)
        result = _compare(tmp_path, openai_env, "-q", flag, str(sibling))
        assert result.exit_code == 2, result.output
        assert f"is the {suffix} file of the SQLite database {store}" in result.output
        assert not sibling.exists() or b"<html" not in sibling.read_bytes()
        assert not sibling.exists() or b'"fairjudge"' not in sibling.read_bytes()
    assert openai_env.count("requests") == 8  # the second run was refused before any call


def test_the_store_serves_every_record_scrubbed(tmp_path: Path, openai_env: JudgeServer) -> None:
    from fairjudge.runner import Store

    key = openai_env.api_key
    assert key is not None
    assert _compare(tmp_path, openai_env, "-q").exit_code == 0
    store = tmp_path / "s.sqlite"
    with sqlite3.connect(store) as conn:
        conn.execute(
            "UPDATE calls SET raw = ?, parsed = ?, response_model = ? WHERE rowid = 1",
            (f"A {key}", json.dumps({"parser_error": SHAPED}), f"m@{key}"),
        )
        (first,) = conn.execute("SELECT key FROM calls WHERE rowid = 1").fetchone()
    with Store(store) as opened:
        record = opened.get(first)
        records = list(opened.records())
        served = opened.get_many([first])[first]
    assert record is not None
    assert (record.raw, record.parsed, record.response_model) == (
        "A ***", {"parser_error": "***"}, "m@***")  # fmt: skip
    assert _leaks(key, "".join(r.model_dump_json() for r in records)) == []
    assert (served.text, served.model) == ("A ***", "m@***")


def test_a_recorded_jury_member_whose_verdict_its_reply_contradicts_is_refused(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    items, out = _items(tmp_path / "items.jsonl"), tmp_path / "jury.jsonl"
    args = ["jury", str(items), "--judge", "openai/m", "--judge", "openai/n", "--base-url",
            openai_env.base_url, "--store", str(tmp_path / "s.sqlite"), "-q",
            "--max-unresolved", "1"]  # fmt: skip
    assert CliRunner().invoke(app, [*args, "--out", str(out)]).exit_code == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    member = next(iter(record["members"].values()))
    _swap(member["calls"][1])
    lines[1] = json.dumps(record)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    again = CliRunner().invoke(app, ["jury", str(items), "--jury", str(edited), "-q"])
    assert again.exit_code == 2, again.output
    assert f"{edited}, line 2: call 2 (swapped, sample 0): its verdict is " in again.output
    assert "but its reply reads as" in again.output
