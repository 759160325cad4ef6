"""A hostile file gives one line and exit 2, never a traceback or a hang.

Each bullet of the issue has its test here, run as a ``fairjudge`` process where the
issue speaks of exit codes; :mod:`tests.untrusted_files` holds the cases, and
:func:`test_every_hostile_file_against_every_reader` runs all of them.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest
from typer.testing import CliRunner

from fairjudge import ConfigError, InputError
from fairjudge.backends import OpenAIBackend
from fairjudge.cli import app
from fairjudge.judges import BackendOptions, ReplayJudge, load_jury_file
from fairjudge.prompts import get_rubric, get_template, load_rubric, load_template
from tests.forked_cli import LIBRARY, CliForks
from tests.server import JudgeServer
from tests.untrusted_files import Case, Outcome, environment, run_case, try_hostile_files

PAIRWISE = "python:tests.untrusted_files:first"
POINTWISE = "python:tests.untrusted_files:middling"
ROWS = [{"id": str(i), "question": f"Q{i}?", "answer_1": "yes", "answer_2": "no"} for i in (1, 2)]
SCORED = [{"id": str(i), "question": f"Q{i}?", "answer": "yes"} for i in (1, 2)]
RUBRIC = 'name = "r"\nversion = "1"\n[[dimensions]]\nname = "accuracy"\ndescription = "d"\n'
TEMPLATE = (
    'name = "t"\nversion = "1"\n'
    'user = "{question} <answer_a>{answer_a}</answer_a> <answer_b>{answer_b}</answer_b>"\n'
)
DEEP_JSON = "[" * 1000 + "]" * 1000  # 2 KB of brackets
DEEP_TOML = "a = " + DEEP_JSON


def _jsonl(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    return _jsonl(tmp_path / "pairs.jsonl", ROWS)


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    return _jsonl(tmp_path / "scored.jsonl", SCORED)


class Fairjudge(Protocol):
    def __call__(self, *argv: str, timeout: float = 60) -> Outcome: ...


@pytest.fixture(scope="module")
def forks() -> Iterator[list[CliForks]]:
    """Two fork servers: each run is still a process of its own, less the imports."""
    env = environment()
    with CliForks(env, preload=LIBRARY) as one, CliForks(env, preload=LIBRARY) as two:
        yield [one, two]


@pytest.fixture
def fairjudge(forks: list[CliForks]) -> Fairjudge:
    """``fairjudge ARGV`` as its own process (code None for a run past ``timeout``)."""

    def run(*argv: str, timeout: float = 60) -> Outcome:
        return run_case(Case("cli", "", tuple(argv), ()), timeout=timeout, forks=forks[0])

    return run


def assert_refused(outcome: Outcome, *named: str) -> None:
    """Exit 2, one line on stderr naming each of ``named``, no traceback."""
    assert outcome.code == 2, f"exit {outcome.code}: {outcome.stderr[-2000:]}"
    assert not outcome.traceback, outcome.stderr[-2000:]
    assert outcome.one_line, outcome.stderr
    for name in named:
        assert name in outcome.stderr, outcome.stderr


def reading(reader: str, path: Path, pairs: Path, scored: Path) -> list[str]:
    """The arguments that make ``fairjudge`` read ``path`` as ``reader``."""
    return {
        "replay": ["compare", str(pairs), "--judge", f"replay:{path}"],
        "report": ["report", str(path), "-o", str(path.with_suffix(".html"))],
        "recorded jury": ["jury", str(pairs), "--jury", str(path)],
        "baseline": ["score", str(scored), "--judge", POINTWISE, "--baseline", str(path)],
        "jury file": ["jury", str(pairs), "--jury", str(path)],
        "rubric": ["score", str(scored), "--judge", POINTWISE, "--rubric", str(path)],
        "template": ["compare", str(pairs), "--judge", "openai/m", "--base-url",
                     "http://127.0.0.1:9/v1", "--template", str(path)],
    }[reader]  # fmt: skip


JSON_READERS = ["replay", "report", "recorded jury"]
TOML_READERS = ["jury file", "rubric", "template"]


# -- JSON or TOML nested 1,000 deep ---------------------------------------------------


@pytest.mark.parametrize("reader", JSON_READERS)
def test_json_nested_1000_deep_is_one_line_exit_2(
    tmp_path: Path, pairs: Path, scored: Path, reader: str, fairjudge: Fairjudge
) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(DEEP_JSON + "\n", encoding="utf-8")
    outcome = fairjudge(*reading(reader, path, pairs, scored))
    assert_refused(outcome, "deep.jsonl", "line 1" if reader == "recorded jury" else "deep.jsonl:1")
    assert "nested too deeply" in outcome.stderr


@pytest.mark.parametrize("reader", TOML_READERS)
def test_toml_nested_1000_deep_is_one_line_exit_2(
    tmp_path: Path, pairs: Path, scored: Path, reader: str, fairjudge: Fairjudge
) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(DEEP_TOML + "\n", encoding="utf-8")
    outcome = fairjudge(*reading(reader, path, pairs, scored))
    assert_refused(outcome, "deep.toml", "nested too deeply")


def test_a_value_nested_deeper_than_any_file_needs_is_refused(tmp_path: Path) -> None:
    # 100 levels parse, but code that walks the value (repr, validation) would recurse:
    # every reader of a handed file stops at MAX_DEPTH.
    deep = "[" * 100 + "]" * 100
    row = f'{{"question": "Q", "answer_a": "a", "answer_b": "b", "verdict": {deep}}}\n'
    with pytest.raises(InputError, match=r"rec\.jsonl:1: not JSON \(nested more than 64"):
        ReplayJudge.from_file(_write(tmp_path / "rec.jsonl", row))
    with pytest.raises(ConfigError, match=r"rubric .*r\.toml: .*nested more than 64"):
        get_rubric(str(_write(tmp_path / "r.toml", f"{RUBRIC}x = {deep}\n")))


# -- a TOML file that is not UTF-8 ----------------------------------------------------


@pytest.mark.parametrize("reader", TOML_READERS)
def test_a_toml_file_not_utf8_is_one_line_exit_2(
    tmp_path: Path, pairs: Path, scored: Path, reader: str, fairjudge: Fairjudge
) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'# caf\xe9\nname = "caf\xe9"\n')
    outcome = fairjudge(*reading(reader, path, pairs, scored))
    assert_refused(outcome, "latin1.toml", "not UTF-8", "byte offset 5, line 1")


# -- special files ----------------------------------------------------------------------


def test_replay_of_dev_zero_is_refused_unread(pairs: Path, fairjudge: Fairjudge) -> None:
    outcome = fairjudge("compare", str(pairs), "--judge", "replay:/dev/zero", timeout=30)
    assert_refused(outcome, "/dev/zero", "it is a device, not a regular file")


def test_replay_of_a_named_pipe_is_refused_without_waiting(
    tmp_path: Path, pairs: Path, fairjudge: Fairjudge
) -> None:
    fifo = tmp_path / "recorded.jsonl"
    os.mkfifo(fifo)  # nobody ever writes to it
    outcome = fairjudge("compare", str(pairs), "--judge", f"replay:{fifo}", timeout=30)
    assert outcome.code is not None, "the replay waited for a writer"
    assert_refused(outcome, "recorded.jsonl", "it is a named pipe, not a regular file")


@pytest.mark.parametrize("kind", ["named pipe", "device", "directory"])
@pytest.mark.parametrize("reader", [*JSON_READERS, "baseline", *TOML_READERS])
def test_every_reader_refuses_what_is_not_a_regular_file(
    tmp_path: Path, pairs: Path, scored: Path, reader: str, kind: str, fairjudge: Fairjudge
) -> None:
    suffix = ".toml" if reader in TOML_READERS else ".jsonl"
    path = tmp_path / f"special{suffix}"
    if kind == "named pipe":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    outcome = fairjudge(*reading(reader, path, pairs, scored), timeout=30)
    assert outcome.code is not None, f"{reader} waited on a {kind}"
    assert_refused(outcome, path.name, "not a regular file")


@pytest.mark.parametrize("path", ["/dev/zero", "/tmp"])
def test_a_model_path_that_is_not_a_regular_file_is_refused(path: str) -> None:
    # Hashing /dev/zero as weights would never end.
    with pytest.raises(ConfigError, match=f"model_path={path}: not a regular file"):
        BackendOptions(model_path=Path(path))


def test_standard_input_and_pipes_still_feed_the_comparison_inputs(pairs: Path) -> None:
    # The inputs are streamed by design ("-", or a pipe such as <(jq ...)).
    result = CliRunner().invoke(
        app, ["compare", "-", "--judge", PAIRWISE, "--json", "--bootstrap", "50"],
        input=pairs.read_text(encoding="utf-8"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["n_items"] == 2


# -- --base-url -----------------------------------------------------------------------

BAD_URLS = ["http://[::1", "file:///etc/passwd", "ftp://127.0.0.1/v1", "127.0.0.1:8000/v1",
            "localhost:8000/v1"]  # fmt: skip


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_base_url_no_call_can_use_is_one_line_exit_2(
    tmp_path: Path, pairs: Path, url: str, fairjudge: Fairjudge
) -> None:
    store = tmp_path / "store.sqlite"
    outcome = fairjudge(
        "compare", str(pairs), "--judge", "openai/m", "--base-url", url, "--store", str(store)
    )
    assert_refused(outcome, "--base-url")
    assert not store.exists()  # refused before anything was opened, let alone called


def test_a_bad_base_url_names_the_flag_before_the_jury_file(
    tmp_path: Path, pairs: Path, fairjudge: Fairjudge
) -> None:
    jury = tmp_path / "panel.toml"
    jury.write_text('[[member]]\njudge = "openai/a"\n[[member]]\njudge = "openai/b"\n')
    outcome = fairjudge("jury", str(pairs), "--jury", str(jury), "--base-url", "ftp://h/v1")
    assert_refused(outcome, "--base-url", "scheme 'ftp'")


@pytest.mark.parametrize("url", BAD_URLS)
def test_the_library_names_base_url(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match=r"^base_url "):
        OpenAIBackend("m", base_url=url)
    with pytest.raises(ConfigError, match=r"^base_url "):
        BackendOptions(base_url=url)
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    with pytest.raises(ConfigError, match=r"^\$OPENAI_BASE_URL "):
        OpenAIBackend("m")


def test_a_jury_files_base_url_is_checked_with_the_file(tmp_path: Path) -> None:
    jury = tmp_path / "panel.toml"
    jury.write_text('[[member]]\njudge = "openai/a"\n[[member]]\njudge = "openai/b"\n'
                    'base_url = "file:///etc/passwd"\n')  # fmt: skip
    with pytest.raises(InputError, match=r"panel\.toml:5: member\.1\.base_url must be an http"):
        load_jury_file(jury)


def test_good_base_urls_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for url in ("http://127.0.0.1:8000/v1", "https://api.example.com", "http://[::1]:8000/v1",
                "HTTP://Host/v1/", "http://127.0.0.1:9/v1?api-version=2024"):  # fmt: skip
        # One spelling for the call keys: scheme and host lowered (trimmed).
        expected = "http://host/v1" if url.startswith("HTTP://") else url.rstrip("/")
        assert OpenAIBackend("m", base_url=url).base_url == expected
        assert BackendOptions(base_url=url).base_url == url


# -- jury file paths --------------------------------------------------------------------


def _recording(path: Path, winner: str) -> Path:
    """Recorded calls in which the answer ``winner`` wins in both orders."""
    rows = []
    for row in ROWS:
        one, two = row["answer_1"], row["answer_2"]
        for a, b in ((one, two), (two, one)):
            verdict = "A" if a == winner else "B"
            rows.append({"question": row["question"], "answer_a": a, "answer_b": b,
                         "verdict": verdict})  # fmt: skip
    return _jsonl(path, rows)


def test_a_jury_files_replay_paths_are_read_from_its_folder(
    tmp_path: Path, pairs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    _recording(folder / "first.jsonl", "yes")  # model 1 always wins
    _recording(folder / "second.jsonl", "no")
    jury = folder / "panel.toml"
    jury.write_text('[[member]]\njudge = "replay:first.jsonl"\n'
                    '[[member]]\njudge = "replay:second.jsonl"\n')  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _recording(elsewhere / "first.jsonl", "no")  # what the working directory would give
    monkeypatch.chdir(elsewhere)
    result = CliRunner().invoke(app, ["jury", str(pairs), "--jury", str(jury), "--json"])
    assert result.exit_code == 0, result.output
    members = json.loads(result.stdout)["members"]
    assert [m["name"] for m in members] == ["replay:first.jsonl", "replay:second.jsonl"]
    # first.jsonl in the jury's folder, not the working directory's.
    assert members[0]["win_rate"]["estimate"] == pytest.approx(1.0)
    specs = load_jury_file(jury).members
    assert specs[0].judge == f"replay:{folder / 'first.jsonl'}"


def test_a_jury_files_template_path_is_read_from_its_folder(
    tmp_path: Path, pairs: Path, openai_env: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "mine.toml").write_text(TEMPLATE.replace('"t"', '"mine"').replace('"1"', '"7"'))
    jury = folder / "panel.toml"
    jury.write_text(f'[[member]]\njudge = "openai/a"\ntemplate = "mine.toml"\n'
                    f'[[member]]\njudge = "{PAIRWISE}"\n')  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = CliRunner().invoke(
        app, ["jury", str(pairs), "--jury", str(jury), "--allow-python-judges", "--json",
              "--base-url", openai_env.base_url, "--store", str(tmp_path / "s.sqlite")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        used = set(db.execute("SELECT DISTINCT template, template_version FROM calls"))
    assert used == {("mine", "7")}
    assert load_jury_file(jury, allow_python=True).members[0].template == str(folder / "mine.toml")


# -- rubric and template types -------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_rubric_version_that_is_a_table_is_one_line_exit_2(
    tmp_path: Path, scored: Path, fairjudge: Fairjudge
) -> None:
    path = _write(tmp_path / "rubric.toml", RUBRIC.replace('version = "1"', "version = {a = 1}"))
    outcome = fairjudge("score", str(scored), "--judge", POINTWISE, "--rubric", str(path))
    assert_refused(outcome, "rubric.toml", "'version' must be a string")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('version = {a = 1}', "'version' must be a string"),
        ("version = [1]", "'version' must be a string"),
        ("version = 1.5", "'version' must be a string"),
        ("version = true", "'version' must be a string"),
        ('version = ""', "'version' must be a string"),
        ("name = 3", "'name' must be a string"),
        ("description = []", "'description' must be a string"),
        ("system = {x = 1}", "'system' must be a string"),
        ("instructions = 2", "'instructions' must be a string"),
        ("reason = false", "'reason' must be a string"),
        ("needs_reference = 1", "'needs_reference' must be true or false"),
        ("scale = {low = 1}", "scale must be"),
    ],
)  # fmt: skip
def test_every_rubric_field_has_its_type(change: str, message: str) -> None:
    key = change.split(" =")[0]
    head, dims = RUBRIC.split("[[dimensions]]")
    kept = [line for line in head.splitlines() if not line.startswith(f"{key} =")]
    text = "\n".join([*kept, change, "[[dimensions]]"]) + dims
    with pytest.raises(ConfigError, match=message):
        load_rubric(text, source="x.toml")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('version = {a = 1}', "'version' must be a string"),
        ("version = [1]", "'version' must be a string"),
        ("name = 3", "'name' must be a string"),
        ("user = 3", "'user' must be a string"),
        ("system = []", "'system' must be a string"),
        ("description = 1", "'description' must be a string"),
        ('needs_reference = "yes"', "'needs_reference' must be true or false"),
        ('verdict_only = "no"', "'verdict_only' must be true or false"),
        ("verdict_format = 1", "verdict_format must be one of"),
        ('colour = "red"', "unknown field"),
    ],
)  # fmt: skip
def test_every_template_field_has_its_type(change: str, message: str) -> None:
    key = change.split(" =")[0]
    kept = [line for line in TEMPLATE.splitlines() if not line.startswith(f"{key} =")]
    with pytest.raises(ConfigError, match=message):
        load_template("\n".join([*kept, change]) + "\n", source="x.toml")


def test_a_whole_number_version_still_reads_as_text() -> None:
    assert load_rubric(RUBRIC.replace('"1"', "2", 1)).version == "2"
    assert load_template(TEMPLATE.replace('"1"', "3", 1)).version == "3"


def test_template_and_rubric_files_are_read_as_untrusted(tmp_path: Path) -> None:
    (tmp_path / "zero.toml").symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match=r"template .*zero\.toml: cannot read it: it is a device"):
        get_template(str(tmp_path / "zero.toml"))
    with pytest.raises(ConfigError, match=r"rubric .*nowhere\.toml: cannot read it: no such file"):
        get_rubric(str(tmp_path / "nowhere.toml"))


# -- all of it ---------------------------------------------------------------------------


@pytest.mark.slow
def test_every_hostile_file_against_every_reader(tmp_path: Path, forks: list[CliForks]) -> None:
    failed: list[Outcome] = []
    tally = try_hostile_files(
        tmp_path / "hostile",
        timeout=60,
        on_case=lambda o: None if o.ok else failed.append(o),
        forks=forks,
    )
    shown = [f"{o.case.reader} / {o.case.file}: exit {o.code}: {o.stderr[-300:]}" for o in failed]
    assert tally.tried > 150
    assert (tally.tracebacks, tally.hangs, tally.not_exit_2) == (0, 0, 0), shown
    assert failed == [], shown
