"""A jury file is data, and names no code unless the user says so.

A ``--jury`` TOML member ``judge = "python:os:execlp"`` used to be imported and
called: a jury file someone shared could run any program. Now a ``python:`` member
of a jury file is refused (exit 2, one line that says why and how to allow it)
unless the command line says ``--allow-python-judges`` (``allow_python=True`` in the
library). ``--judge python:...`` typed on the command line needs no flag; a recorded
jury replays its members and imports nothing; rubric and template files have no
field that names code, and refuse fields they do not know.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import ConfigError, InputError
from fairjudge.cli import app
from fairjudge.judges import load_jury_file
from fairjudge.prompts import load_rubric, load_template
from tests.untrusted_files import Case, Outcome, run_case

PLANTED = "python:tests.judges.planted_code:judge"
SCORER = "python:tests.judges.planted_code:scorer"
ALWAYS_A = "python:tests.judge_fixtures:always_a"
ROWS = [{"id": str(i), "question": f"Q{i}?", "answer_1": "yes", "answer_2": "no"} for i in (1, 2)]
SCORED = [{"id": str(i), "question": f"Q{i}?", "answer": "yes"} for i in (1, 2)]


def _jsonl(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _jury(path: Path, *judges: str) -> Path:
    path.write_text("".join(f'[[member]]\njudge = "{j}"\n' for j in judges), encoding="utf-8")
    return path


@pytest.fixture
def marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file the planted code writes when a ``fairjudge`` process imports it."""
    path = tmp_path / "planted-code-ran"
    monkeypatch.setenv("FAIRJUDGE_PLANTED_MARKER", str(path))
    return path


def fairjudge(marker: Path, *argv: str) -> tuple[Outcome, bool]:
    """Run ``fairjudge ARGV`` as a process; the outcome, and whether the planted code ran."""
    marker.unlink(missing_ok=True)
    outcome = run_case(Case("cli", "", tuple(argv), ()), timeout=60)
    return outcome, marker.exists()


@pytest.mark.parametrize("command", ["jury", "score-jury"])
def test_a_jury_file_naming_python_code_is_refused_and_nothing_runs(
    tmp_path: Path, marker: Path, command: str
) -> None:
    member = PLANTED if command == "jury" else SCORER
    jury = _jury(tmp_path / "shared.toml", member, member)
    items = _jsonl(tmp_path / "items.jsonl", ROWS if command == "jury" else SCORED)
    outcome, ran = fairjudge(marker, command, str(items), "--jury", str(jury))
    assert outcome.code == 2, outcome.stderr
    assert outcome.one_line, outcome.stderr
    assert not outcome.traceback
    assert str(jury) in outcome.stderr
    assert "member.0.judge" in outcome.stderr
    assert "would import and run Python code" in outcome.stderr  # why
    assert "--allow-python-judges" in outcome.stderr  # and how to allow it
    assert not ran


def test_os_execlp_in_a_jury_file_is_refused(tmp_path: Path, marker: Path) -> None:
    jury = _jury(tmp_path / "shared.toml", "python:os:execlp", ALWAYS_A)
    items = _jsonl(tmp_path / "items.jsonl", ROWS)
    outcome, _ = fairjudge(marker, "jury", str(items), "--jury", str(jury), "--json")
    assert outcome.code == 2, outcome.stderr
    assert "'python:os:execlp' would import and run Python code" in outcome.stderr


def test_allow_python_judges_seats_them(tmp_path: Path, marker: Path) -> None:
    jury = _jury(tmp_path / "mine.toml", PLANTED, ALWAYS_A)
    items = _jsonl(tmp_path / "items.jsonl", ROWS)
    outcome, ran = fairjudge(
        marker, "jury", str(items), "--jury", str(jury), "--allow-python-judges", "--json"
    )
    assert outcome.code == 0, outcome.stderr
    assert ran  # the user said so
    scored = _jury(tmp_path / "panel.toml", SCORER, SCORER)
    result = CliRunner().invoke(
        app, ["score-jury", str(_jsonl(tmp_path / "s.jsonl", SCORED)), "--jury", str(scored),
              "--allow-python-judges", "--json", "--bootstrap", "50"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_the_library_refuses_unless_allow_python(tmp_path: Path) -> None:
    jury = _jury(tmp_path / "shared.toml", "openai/m", PLANTED)
    with pytest.raises(InputError, match=r"member\.1\.judge .*\(allow_python=True\)") as caught:
        load_jury_file(jury)
    assert str(jury) in str(caught.value)
    specs = load_jury_file(jury, allow_python=True).members
    assert [s.judge for s in specs] == ["openai/m", PLANTED]


def test_python_judges_typed_on_the_command_line_need_no_flag(tmp_path: Path) -> None:
    items = _jsonl(tmp_path / "items.jsonl", ROWS)
    result = CliRunner().invoke(
        app, ["jury", str(items), "--judge", PLANTED, "--judge", ALWAYS_A, "--json"]
    )
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(
        app, ["compare", str(items), "--judge", PLANTED, "--json", "--bootstrap", "50"]
    )
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command", ["jury", "score-jury"])
def test_allow_python_judges_without_a_jury_file_is_a_usage_error(
    tmp_path: Path, command: str
) -> None:
    items = _jsonl(tmp_path / "items.jsonl", ROWS if command == "jury" else SCORED)
    member = PLANTED if command == "jury" else SCORER
    result = CliRunner().invoke(
        app, [command, str(items), "--judge", member, "--judge", member, "--allow-python-judges"]
    )
    assert result.exit_code == 2, result.output
    assert "--allow-python-judges applies with --jury FILE.toml only" in result.output


def test_a_recorded_jury_replays_its_members_and_imports_nothing(
    tmp_path: Path, marker: Path
) -> None:
    items = _jsonl(tmp_path / "items.jsonl", ROWS)
    recording = tmp_path / "recorded.jsonl"
    made = CliRunner().invoke(
        app, ["jury", str(items), "--judge", PLANTED, "--judge", ALWAYS_A, "--out", str(recording)]
    )
    assert made.exit_code == 0, made.output
    assert PLANTED in recording.read_text(encoding="utf-8")  # the member is named by its spec
    outcome, ran = fairjudge(marker, "jury", str(items), "--jury", str(recording), "--json")
    assert outcome.code == 0, outcome.stderr
    assert not ran
    outcome, _ = fairjudge(
        marker, "jury", str(items), "--jury", str(recording), "--allow-python-judges"
    )
    assert outcome.code == 2, outcome.stderr
    assert "runs no code" in outcome.stderr


RUBRIC = 'name = "r"\nversion = "1"\n[[dimensions]]\nname = "accuracy"\ndescription = "d"\n'
TEMPLATE = 'name = "t"\nversion = "1"\nuser = "{question} {answer_a} {answer_b}"\n'


@pytest.mark.parametrize("field", ['judge = "python:os:system"', 'parser = "python:m:f"'])
def test_rubric_and_template_files_name_no_code(field: str) -> None:
    # Neither format has a field that names code, and a field neither knows is refused,
    # so a file cannot slip one in for a later version to honour.
    head, dims = RUBRIC.split("[[dimensions]]")
    with pytest.raises(ConfigError, match="unknown field"):
        load_rubric(f"{head}{field}\n[[dimensions]]{dims}", source="shared.toml")
    with pytest.raises(ConfigError, match=r"template shared\.toml: unknown field"):
        load_template(TEMPLATE + field + "\n", source="shared.toml")
