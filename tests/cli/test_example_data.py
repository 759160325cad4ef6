"""The README's offline examples ship in the package.

``fairjudge example-data DIR`` writes them out (never over a file without
``--force``), the example judges import from any folder as
``python:fairjudge.examples.judges:NAME``, and every file the README's commands name
is package data that the wheel carries. ``tests/test_packaging.py`` runs them from a
wheel installed outside the checkout.
"""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
import tomllib
from importlib.resources import files
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.cli._shipped import example_files

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = files("fairjudge.examples")
runner = CliRunner()


def _readme_examples() -> tuple[set[str], set[str]]:
    """The example files and the example judges that README.md's commands name."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(?<![\w.])examples/([\w.-]+\.\w+)", readme))
    judges = set(re.findall(r"python:(?:fairjudge\.)?examples\.judges:(\w+)", readme))
    return named, judges


def test_every_file_and_judge_the_readme_names_is_shipped() -> None:
    named, judges = _readme_examples()
    assert {"demo_pairs.jsonl", "score_answers.jsonl", "rank_answers.jsonl"} <= named
    assert {"scorer", "knows_facts", "longer"} <= judges
    shipped = {f.name for f in example_files()}
    assert named <= shipped
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = package_data["tool"]["setuptools"]["package-data"]["fairjudge"]
    for name in named - {"judges.py"}:  # judges.py is a module: setuptools packs it anyway
        assert any(fnmatch.fnmatch(f"examples/{name}", p) for p in patterns), name
    from fairjudge.examples import judges as example_judges

    assert all(callable(getattr(example_judges, j, None)) for j in judges)


def test_the_checkout_examples_folder_is_the_shipped_one() -> None:
    # One copy: the repository's examples/ (make demo, the tests, the README in a
    # clone) is the package's own folder, so the two cannot drift apart.
    assert (ROOT / "examples").resolve() == Path(str(SHIPPED)).resolve()


def test_example_data_writes_every_file_and_lists_it(tmp_path: Path) -> None:
    out = tmp_path / "new" / "ex"
    result = runner.invoke(app, ["example-data", str(out)])
    assert result.exit_code == 0, result.output
    names = ["battles.jsonl", "calibration.jsonl", "demo_pairs.jsonl", "judges.py",
             "rank_answers.jsonl", "replay_reviews.jsonl", "score_answers.jsonl"]  # fmt: skip
    assert result.stdout.splitlines() == [str(out / n) for n in names]
    assert "wrote 7 example files" in result.stderr
    for name in names:
        assert (out / name).read_bytes() == SHIPPED.joinpath(name).read_bytes(), name


def test_example_data_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "judges.py").write_text("mine\n")
    result = runner.invoke(app, ["example-data", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "1 of the example files already exist" in result.stderr
    assert "(judges.py); nothing was written. Pass --force" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["judges.py"]
    assert (tmp_path / "judges.py").read_text() == "mine\n"

    forced = runner.invoke(app, ["example-data", str(tmp_path), "--force"])
    assert forced.exit_code == 0, forced.output
    assert "wrote 7 example files, 1 replaced" in forced.stderr
    assert (tmp_path / "judges.py").read_bytes() == SHIPPED.joinpath("judges.py").read_bytes()


def test_force_replaces_a_link_not_the_file_it_points_to(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    out = tmp_path / "ex"
    out.mkdir()
    (out / "battles.jsonl").symlink_to(precious)
    assert runner.invoke(app, ["example-data", str(out)]).exit_code == 2
    assert runner.invoke(app, ["example-data", str(out), "--force"]).exit_code == 0
    assert precious.read_text() == "keep me\n"
    assert not (out / "battles.jsonl").is_symlink()


def test_example_data_json_lists_the_files_and_errors_as_json(tmp_path: Path) -> None:
    result = runner.invoke(app, ["example-data", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["directory"] == str(tmp_path)
    assert body["wrote"] == [str(tmp_path / f.name) for f in example_files()]
    assert body["replaced"] == []
    refused = runner.invoke(app, ["example-data", str(tmp_path), "--json"])
    assert refused.exit_code == 2
    error = json.loads(refused.stdout)["error"]
    assert error["exit_code"] == 2
    assert error["message"].startswith("7 of the example files already exist in ")


@pytest.mark.parametrize("kind", ["file", "folder in the way"])
def test_example_data_refuses_what_it_cannot_write(tmp_path: Path, kind: str) -> None:
    if kind == "file":
        target = tmp_path / "afile"
        target.write_text("x")
        expected = "exists and is not a folder"
    else:
        target = tmp_path
        (tmp_path / "demo_pairs.jsonl").mkdir()
        expected = "a folder where a file would go"
    result = runner.invoke(app, ["example-data", str(target), "--force"])
    assert result.exit_code == 2
    assert expected in result.stderr


def test_example_data_where_no_file_can_be_written_is_refused_as_the_writers_do(
    tmp_path: Path,
) -> None:
    # A folder under a file (as a read-only mount, which root would write through a chmod)
    # could not be made: a raw OSError with exit 1 before; now exit 2, the writers' words.
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    target = blocker / "examples"
    result = runner.invoke(app, ["example-data", str(target)])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.strip() == (
        f"error: DIR {target}: cannot write there (Not a directory); nothing was written. "
        "Choose another DIR"
    )
    refused = runner.invoke(app, ["example-data", str(target), "--json"])
    assert json.loads(refused.stdout)["error"]["type"] == "ConfigError"
    assert refused.exit_code == 2


def test_the_shipped_examples_run_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no examples/ here: the judge comes from the package
    assert runner.invoke(app, ["example-data", "ex"]).exit_code == 0
    scorer = "python:fairjudge.examples.judges:scorer"
    scored = runner.invoke(app, ["score", "ex/score_answers.jsonl", "--judge", scorer, "--json"])
    assert scored.exit_code == 0, scored.output
    ranked = runner.invoke(app, ["rank", "ex/battles.jsonl", "--json"])
    assert ranked.exit_code == 0, ranked.output
    assert "96 judged battles" in ranked.stderr


def test_the_checkout_spelling_still_works_inside_the_checkout() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare",
         "examples/demo_pairs.jsonl",
         "--judge", "python:examples.judges:knows_facts", "-q"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "The debiased result found it." in done.stdout
