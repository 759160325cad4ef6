"""``fairjudge run CONFIG`` finds a ``python:`` judge module beside CONFIG (QA40 F8).

Paths are read from the config file's folder, and with ``--allow-python-judges`` so
is a judge module: ``configs/eval.toml`` + ``configs/my_judges.py`` runs from anywhere.
A module found nowhere says where it was looked for and how to fix that.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli._invoke import invoke


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's imports add folders to a copy of ``sys.path``, not the session's."""
    monkeypatch.setattr(sys, "path", list(sys.path))


JUDGE = 'def pick(question, answer_1, answer_2):\n    return "A"\n'


def _project(root: Path, module: str) -> Path:
    """``root/configs``: the example pairs, ``module``.py and eval.toml naming its judge."""
    folder = root / "configs"
    assert invoke("example-data", str(folder)).exit_code == 0
    (folder / f"{module}.py").write_text(JUDGE, encoding="utf-8")
    config = folder / "eval.toml"
    config.write_text(
        f'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "python:{module}:pick"\n',
        encoding="utf-8",
    )
    return config


def test_a_judge_module_beside_the_config_is_found_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _project(tmp_path, "f8_beside_judges")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    done = invoke("run", str(config), "--allow-python-judges", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["n_items"] == 20
    assert str(config.parent) not in sys.path  # searched only while the run runs
    sys.modules.pop("f8_beside_judges", None)


def test_a_module_found_nowhere_says_where_it_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _project(tmp_path, "f8_elsewhere_judges")
    (config.parent / "f8_elsewhere_judges.py").unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    done = invoke("run", str(config), "--allow-python-judges")
    assert done.exit_code == 2
    message = " ".join(done.stderr.split())
    assert "No module named 'f8_elsewhere_judges'" in message
    assert f"the working directory {elsewhere}" in message
    assert f"the installed packages and the config file's folder {config.parent}:" in message
    assert "add that folder to $PYTHONPATH" in message


def test_a_typed_command_names_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("example-data", str(tmp_path)).exit_code == 0
    monkeypatch.chdir(tmp_path)
    done = invoke("compare", "demo_pairs.jsonl", "--judge", "python:f8_nowhere:pick")
    assert done.exit_code == 2
    message = " ".join(done.stderr.split())
    assert f"looked in the working directory {tmp_path}, $PYTHONPATH" in message
    assert "config file" not in message


def test_a_missing_dependency_of_the_module_gets_no_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("example-data", str(tmp_path)).exit_code == 0
    (tmp_path / "f8_needs_dep.py").write_text("import f8_no_such_dependency\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    done = invoke("compare", "demo_pairs.jsonl", "--judge", "python:f8_needs_dep:pick")
    assert done.exit_code == 2
    message = " ".join(done.stderr.split())
    assert "No module named 'f8_no_such_dependency'" in message
    assert "looked in" not in message
