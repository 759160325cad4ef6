"""A path flag is judged by the value that counts, as it was typed (session 42, H1).

``out/`` names a folder and is refused, although Typer makes it ``Path("out")``. The
separator used to be found by reading the command line again, which took the first
``--html`` typed: ``--html a --html a/`` (Click keeps ``a/``) wrote a file named ``a``,
and ``--out b/ --out b`` (Click keeps ``b``) was refused. Each path option now keeps
the value it was given, so the last one counts, however it was written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from tests.cli._invoke import invoke

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
COUNTING = "python:tests.judge_fixtures:counting"


def _compare(tmp_path: Path, *flags: str) -> tuple[Any, Path]:
    calls = tmp_path / "calls"
    done = invoke("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", COUNTING, *flags,
                  env={"FAIRJUDGE_TEST_CALLS": str(calls)})  # fmt: skip
    return done, calls


@pytest.mark.parametrize("last", [["--html", "{}"], ["--html={}"]])
def test_a_folder_typed_last_is_refused(tmp_path: Path, last: list[str]) -> None:
    page = tmp_path / "a"
    folder = f"{page}{os.sep}"
    done, calls = _compare(tmp_path, "--html", str(page), *(w.format(folder) for w in last))
    assert done.exit_code == 2, done.output
    assert f"--html {folder} names a folder; give a file name, e.g. {page / 'report.html'}" in (
        done.output
    )
    assert not page.exists()
    assert not calls.exists()


def test_a_file_typed_last_is_written(tmp_path: Path) -> None:
    out = tmp_path / "b"
    done, calls = _compare(tmp_path, "--out", f"{out}{os.sep}", "--out", str(out))
    assert done.exit_code == 0, done.output
    assert out.is_file()
    lines = out.read_text().splitlines()
    assert lines[0].startswith('{"fairjudge": {"kind": "compare"')
    assert len(lines) == 21  # the header, then one record for each of the demo's 20 pairs
    assert calls.exists()


def test_report_output_typed_last_counts(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    made = invoke("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge",
                  "python:fairjudge.examples.judges:longer", "--out", str(results))  # fmt: skip
    assert made.exit_code == 0, made.output
    page = tmp_path / "page"
    done = invoke("report", str(results), "-o", f"{page}{os.sep}", "--output", str(page))
    assert done.exit_code == 0, done.output
    assert page.is_file()
    refused = invoke("report", str(results), "--output", str(page), f"-o{page}{os.sep}")
    assert refused.exit_code == 2, refused.output
    assert f"--output {page}{os.sep} names a folder" in refused.output


@pytest.mark.parametrize(
    "flags", [["--out", "{f}{sep}", "--html", "{f}"], ["--html", "{f}", "--out={f}{sep}"]]
)
def test_the_same_path_given_to_two_flags_is_judged_per_flag(
    tmp_path: Path, flags: list[str]
) -> None:
    name = str(tmp_path / "c")
    done, calls = _compare(tmp_path, *(w.format(f=name, sep=os.sep) for w in flags))
    assert done.exit_code == 2, done.output
    assert f"--out {name}{os.sep} names a folder" in done.output
    assert "--html" not in done.output
    assert not (tmp_path / "c").exists()
    assert not calls.exists()


def test_a_config_files_path_keeps_its_separator(tmp_path: Path) -> None:
    config = tmp_path / "eval.toml"
    config.write_text(
        'schema_version = 1\ncommand = "compare"\n'
        f'file = "{EXAMPLES / "demo_pairs.jsonl"}"\njudge = "{COUNTING}"\n'
        'html = "res"\nout = "res/"\n'
    )
    done = invoke("run", str(config), "--allow-python-judges",
                  env={"FAIRJUDGE_TEST_CALLS": str(tmp_path / "calls")})  # fmt: skip
    assert done.exit_code == 2, done.output
    folder, example = f"{tmp_path / 'res'}{os.sep}", tmp_path / "res" / "results.jsonl"
    said = f"eval.toml:6: out: out {folder} names a folder; give a file name, e.g. {example}"
    assert said in done.output
    assert not (tmp_path / "res").exists()
    assert not (tmp_path / "calls").exists()
