"""A fully cached rerun of ``compare``: the same output as the run that made the calls.

What may differ between the two ``--json`` documents is the ``calls`` block alone: it
describes this run's work (calls made and served from the store, requests, retries,
tokens, cost, ``wall_s``, ``backoff_s``), which is the point of a rerun. Every other
field and the exit code are the same, byte for byte. In the per-item ``--out`` file
only each call's ``cached`` flag differs (the audit trail says where a reply came
from).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.out_file import out_records
from tests.server import JudgeServer

RUN_FIELDS = {"calls"}
"""The top-level ``--json`` fields that describe the run rather than the result."""


def _items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    rows = [
        {
            "id": f"q{i}",
            "question": f"Question {i % 7}: why?",  # shared questions: clustered intervals
            "answer_1": "word " * (1 + i % 5),
            "answer_2": "word " * (1 + (i * 3) % 7),
        }
        for i in range(40)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _compare(tmp_path: Path, server: JudgeServer, out: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app,
        [
            "compare", str(_items(tmp_path)), "--judge", "openai/m", "--json", "-q",
            "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
            "--out", str(out), "--max-unresolved", "1", *extra,
        ],
    )  # fmt: skip
    return result.exit_code, result.stdout


def _without_run_fields(text: str) -> dict[str, object]:
    doc = json.loads(text)
    for key in RUN_FIELDS:
        doc.pop(key)
    return doc


def test_a_cached_rerun_prints_the_same_json_and_makes_no_request(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")  # verdicts that vary, with logprobs: a soft rule too
    code, fresh = _compare(tmp_path, openai_env, tmp_path / "fresh.jsonl")
    assert code == 0, fresh
    made = json.loads(fresh)["calls"]["made"]
    assert made == openai_env.count("requests") > 40  # equal items are one call
    openai_env.reset()

    code_again, cached = _compare(tmp_path, openai_env, tmp_path / "cached.jsonl")
    assert code_again == code
    assert openai_env.count("requests") == 0
    assert openai_env.count("connections") == 0  # not even a connection was opened

    # Byte for byte: the documents as printed, with the run's own fields left out.
    assert json.dumps(_without_run_fields(cached), indent=2) == json.dumps(
        _without_run_fields(fresh), indent=2
    )
    calls = json.loads(cached)["calls"]
    assert (calls["total"], calls["cached"], calls["made"], calls["requests"]) == (made, made, 0, 0)
    first_items, again_items = (
        _records(tmp_path / name) for name in ("fresh.jsonl", "cached.jsonl")
    )  # fmt: skip
    assert {c["cached"] for r in first_items for c in r["calls"]} == {False}
    assert {c["cached"] for r in again_items for c in r["calls"]} == {True}
    for records in (first_items, again_items):
        for record in records:
            for call in record["calls"]:
                del call["cached"]
    assert again_items == first_items


def _records(path: Path) -> list[dict[str, Any]]:
    return out_records(path, "compare")


def test_a_cached_rerun_under_another_rule_and_seed_matches_a_fresh_run(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")
    _compare(tmp_path, openai_env, tmp_path / "warm.jsonl")  # fills the store
    flags = ("--rule", "soft", "--seed", "7", "--bootstrap", "300")
    code, cached = _compare(tmp_path, openai_env, tmp_path / "a.jsonl", *flags)
    (tmp_path / "s.sqlite").unlink()  # the same command on an empty store
    openai_env.reset()
    code_fresh, fresh = _compare(tmp_path, openai_env, tmp_path / "b.jsonl", *flags)
    assert openai_env.count("requests") > 0
    assert code == code_fresh == 0
    assert _without_run_fields(cached) == _without_run_fields(fresh)


def test_a_cached_rerun_as_a_process_matches_and_loads_only_what_it_shows(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    """The whole command, as a user runs it: the same JSON, and no scipy, no pointwise
    judge, no progress bar (``-q``), no HTML model, no HTTP client, no event loop and no
    pydantic imported for it."""
    openai_env.configure(judge="longer")
    out = tmp_path / "fresh.jsonl"
    code, fresh = _compare(tmp_path, openai_env, out)
    assert code == 0, fresh
    openai_env.reset()
    watch = ["scipy", "fairjudge.judges._pointwise", "fairjudge.report._scores",
             "rich.progress", "fairjudge.report._page_compare", "fairjudge.backends._lean_http",
             "openai", "asyncio", "ssl", "pydantic"]  # fmt: skip
    args = [
        "compare", str(tmp_path / "items.jsonl"), "--judge", "openai/m", "--json", "-q",
        "--base-url", openai_env.base_url, "--store", str(tmp_path / "s.sqlite"),
        "--out", str(out), "--max-unresolved", "1",
    ]  # fmt: skip
    program = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print('LOADED', *[m for m in {watch!r} if m in sys.modules],"
        " file=sys.stderr))\n"
        f"sys.argv = ['fairjudge', *{args!r}]\n"
        "from fairjudge.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert openai_env.count("requests") == 0
    assert json.dumps(_without_run_fields(done.stdout), indent=2) == json.dumps(
        _without_run_fields(fresh), indent=2
    )
    loaded = next(line for line in done.stderr.splitlines() if line.startswith("LOADED"))
    assert loaded.split()[1:] == []
