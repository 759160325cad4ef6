"""A jury file's ``python:`` member is found beside the file, from any working directory.

A team keeps ``jury.toml`` and ``my_judge.py`` side by side: the file's relative paths
are read from its folder, and so is its members' module (searched last, after the
working directory, ``$PYTHONPATH`` and the installed packages, as ``fairjudge run``
searches its config's folder). The folder is off ``sys.path`` again once the file is
read. A module found nowhere names both places looked: the working directory and the
jury file's folder.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import fairjudge
from fairjudge import InputError
from fairjudge.judges import Jury, PairwiseRequest, load_jury_file
from tests.cli._invoke import invoke

JUDGE = 'def pick(question, answer_a, answer_b):\n    return "A"\n'
SCORER = "def scorer(question, answer):\n    return {d: 4 for d in DIMS}\n"
ROWS = [{"id": str(i), "question": f"Q{i}?", "answer_1": "yes", "answer_2": "no"} for i in (1, 2)]


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test's imports add folders to a copy of ``sys.path``; its modules are forgotten."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    for name in [name for name in sys.modules if name.startswith("beside_")]:
        del sys.modules[name]


def _team(root: Path, module: str, *, body: str = JUDGE, function: str = "pick") -> Path:
    """``root/team``: ``module``.py and jury.toml seating it twice; the working dir elsewhere."""
    folder = root / "team"
    folder.mkdir()
    (folder / f"{module}.py").write_text(body, encoding="utf-8")
    member = f'[[member]]\njudge = "python:{module}:{function}"\n'
    (folder / "jury.toml").write_text(member + member, encoding="utf-8")
    return folder / "jury.toml"


def _items(folder: Path) -> str:
    items = folder / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return str(items)


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Another folder, the working directory."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_the_library_seats_a_member_beside_the_file(tmp_path: Path, elsewhere: Path) -> None:
    jury = _team(tmp_path, "beside_lib_judge")
    members = load_jury_file(jury, allow_python=True).members
    assert str(jury.parent) not in sys.path  # searched while the file was read, not after
    with Jury.from_specs(members) as panel:
        first, second = panel.member_readings([PairwiseRequest("q", "a", "b")])
    assert first[0].verdict == second[0].verdict == "A"


def test_compare_with_a_jury_file_runs_from_another_folder(tmp_path: Path, elsewhere: Path) -> None:
    jury = _team(tmp_path, "beside_compare_judge")
    done = fairjudge.compare(ROWS, judges=str(jury), options={"progress": "quiet"})
    assert done.kind == "jury"
    assert str(jury.parent) not in sys.path


def test_the_command_line_runs_a_jury_beside_its_module(tmp_path: Path, elsewhere: Path) -> None:
    jury = _team(tmp_path, "beside_cli_judge")
    done = invoke("jury", _items(tmp_path), "--jury", str(jury), "--allow-python-judges", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["n_items"] == 2
    assert str(jury.parent) not in sys.path


def test_score_jury_seats_a_scorer_beside_the_file(tmp_path: Path, elsewhere: Path) -> None:
    body = 'DIMS = ("accuracy", "relevance", "usefulness")\n' + SCORER
    jury = _team(tmp_path, "beside_scorer", body=body, function="scorer")
    items = tmp_path / "answers.jsonl"
    items.write_text('{"question": "Q?", "answer": "yes"}\n', encoding="utf-8")
    done = invoke("score-jury", str(items), "--jury", str(jury), "--allow-python-judges",
                  "--json", "--bootstrap", "50")  # fmt: skip
    assert done.exit_code == 0, done.output


def test_a_module_found_nowhere_names_both_places_looked(tmp_path: Path, elsewhere: Path) -> None:
    jury = _team(tmp_path, "beside_gone_judge")
    (jury.parent / "beside_gone_judge.py").unlink()
    with pytest.raises(InputError) as caught:
        load_jury_file(jury, allow_python=True)
    message = str(caught.value)
    assert message.startswith(f"{jury}:2: member.0.judge: cannot import module")
    assert "No module named 'beside_gone_judge'" in message
    assert f"the working directory {elsewhere}, $PYTHONPATH" in message
    assert f"the installed packages and the jury file's folder {jury.parent}:" in message
    assert str(jury.parent) not in sys.path
    done = invoke("jury", _items(tmp_path), "--jury", str(jury), "--allow-python-judges")
    assert done.exit_code == 2
    said = " ".join(done.stderr.split())
    assert f"--jury {jury}:2: member.0.judge:" in said
    assert f"the jury file's folder {jury.parent}:" in said


def test_the_working_directory_comes_first(tmp_path: Path, elsewhere: Path) -> None:
    jury = _team(tmp_path, "beside_both_judge")
    (elsewhere / "beside_both_judge.py").write_text(JUDGE.replace('"A"', '"B"'), "utf-8")
    with Jury.from_specs(load_jury_file(jury, allow_python=True).members) as panel:
        first, _ = panel.member_readings([PairwiseRequest("q", "a", "b")])
    assert first[0].verdict == "B"  # as Python finds a module: the working directory first


def test_a_missing_dependency_of_a_module_beside_gets_no_hint(
    tmp_path: Path, elsewhere: Path
) -> None:
    jury = _team(tmp_path, "beside_needs_dep", body="import beside_no_such_dependency\n")
    with pytest.raises(InputError) as caught:
        load_jury_file(jury, allow_python=True)
    assert "No module named 'beside_no_such_dependency'" in str(caught.value)
    assert "looked in" not in str(caught.value)
    assert str(jury.parent) not in sys.path
