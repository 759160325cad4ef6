"""A result flag given a folder (``--html DIR/``) is refused before any call (QA41 #10).

Typer turns ``outdir/`` into ``Path("outdir")``, so ``--html outdir/`` wrote a file
named ``outdir``. A path that ends in a separator names a folder: it is refused, exit
2, naming the flag as typed and a file to give instead; nothing is written and no
judge is called. An existing folder is refused as before, now with a file to give.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from tests.cli._invoke import invoke

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
COUNTING = "python:tests.judge_fixtures:counting"
EXAMPLE_FILE = {"--out": "results.jsonl", "--html": "report.html", "--markdown": "summary.md"}


def _compare(tmp_path: Path, *flags: str) -> tuple[Any, Path]:
    calls = tmp_path / "calls"
    done = invoke("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", COUNTING, *flags,
                  env={"FAIRJUDGE_TEST_CALLS": str(calls)})  # fmt: skip
    return done, calls


@pytest.mark.parametrize("flag", sorted(EXAMPLE_FILE))
@pytest.mark.parametrize("form", ["two words", "flag=value"])
def test_a_flag_ending_in_a_separator_names_a_folder(flag: str, form: str, tmp_path: Path) -> None:
    folder = f"{tmp_path / 'outdir'}{os.sep}"
    given = [flag, folder] if form == "two words" else [f"{flag}={folder}"]
    done, calls = _compare(tmp_path, *given)
    assert done.exit_code == 2, done.output
    example = tmp_path / "outdir" / EXAMPLE_FILE[flag]
    said = f"{flag} {folder} names a folder; give a file name, e.g. {example}"
    assert said in done.output
    assert not (tmp_path / "outdir").exists()
    assert not calls.exists()


def test_json_reports_it_as_a_config_error(tmp_path: Path) -> None:
    folder = f"{tmp_path / 'pages'}{os.sep}"
    done, calls = _compare(tmp_path, "--html", folder, "--json")
    assert done.exit_code == 2
    error = json.loads(done.stdout)["error"]
    assert error["type"] == "ConfigError"
    assert error["message"].startswith(f"--html {folder} names a folder; give a file name")
    assert not calls.exists()


def test_score_rank_and_jury_refuse_it_too(tmp_path: Path) -> None:
    folder = f"{tmp_path / 'outdir'}{os.sep}"
    scorer = "python:fairjudge.examples.judges:scorer"
    runs = [
        ("score", str(EXAMPLES / "score_answers.jsonl"), "--judge", scorer, "--html", folder),
        ("rank", str(EXAMPLES / "rank_answers.jsonl"), "--judge", COUNTING, "--out", folder),
        ("jury", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", COUNTING, "--judge", COUNTING,
         "--out", folder),
    ]  # fmt: skip
    for args in runs:
        done = invoke(*args, env={"FAIRJUDGE_TEST_CALLS": str(tmp_path / "calls")})
        assert done.exit_code == 2, (args[0], done.output)
        assert f"{args[-2]} {folder} names a folder" in done.output, done.output
    assert not (tmp_path / "outdir").exists()
    assert not (tmp_path / "calls").exists()


@pytest.mark.parametrize("given", [["-o", "{}"], ["-o{}"], ["--output", "{}"], ["--output={}"]])
def test_report_output_ending_in_a_separator(given: list[str], tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    made = invoke("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge",
                  "python:fairjudge.examples.judges:longer", "--out", str(out))  # fmt: skip
    assert made.exit_code == 0, made.output
    folder = f"{tmp_path / 'pages'}{os.sep}"
    done = invoke("report", str(out), *(g.format(folder) for g in given))
    assert done.exit_code == 2, done.output
    assert f"--output {folder} names a folder" in done.output
    assert f"e.g. {tmp_path / 'pages' / 'report.html'}" in done.output
    assert not (tmp_path / "pages").exists()


def test_save_config_ending_in_a_separator(tmp_path: Path) -> None:
    folder = f"{tmp_path / 'configs'}{os.sep}"
    done, _ = _compare(tmp_path, "--save-config", folder)
    assert done.exit_code == 2, done.output
    said = f"--save-config {folder} names a folder; give a file name, e.g. "
    assert said + str(tmp_path / "configs" / "run.toml") in done.output
    assert not (tmp_path / "configs").exists()


def test_a_config_files_out_ending_in_a_separator(tmp_path: Path) -> None:
    config = tmp_path / "eval.toml"
    config.write_text(
        'schema_version = 1\ncommand = "compare"\n'
        f'file = "{EXAMPLES / "demo_pairs.jsonl"}"\njudge = "{COUNTING}"\nout = "results/"\n'
    )
    done = invoke("run", str(config), "--allow-python-judges",
                  env={"FAIRJUDGE_TEST_CALLS": str(tmp_path / "calls")})  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "out:" in done.output
    assert "names a folder; give a file name, e.g. " in done.output
    assert not (tmp_path / "results").exists()
    assert not (tmp_path / "calls").exists()


def test_an_existing_folder_names_a_file_to_give(tmp_path: Path) -> None:
    done, calls = _compare(tmp_path, "--html", str(tmp_path))
    assert done.exit_code == 2
    said = f"--html {tmp_path}: is a folder; give a file name, e.g. {tmp_path / 'report.html'}"
    assert said in done.output
    assert not calls.exists()


def test_a_file_name_is_still_written(tmp_path: Path) -> None:
    page = tmp_path / "outdir" / "report.html"
    done, _ = _compare(tmp_path, "--html", str(page))
    assert done.exit_code == 0, done.output
    assert page.is_file()
