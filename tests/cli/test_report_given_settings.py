"""``fairjudge report``'s --seed, --level and --bootstrap: checked first, worded as flags.

A value out of range is refused before ``report`` says it redraws anything, and a
header's damaged setting is refused in the library's words (the parameter), which
the command line shows as the flag that overrides it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge._errors import InputError
from fairjudge.report import out_file_page
from tests.cli._invoke import invoke

EX = Path(fairjudge.__file__).parent / "examples"
J = "python:fairjudge.examples.judges:"


def _compare_out(tmp_path: Path) -> Path:
    out = tmp_path / "c.jsonl"
    done = invoke("compare", str(EX / "demo_pairs.jsonl"), "--judge", J + "longer",
                  "--level", "0.9", "--out", str(out), "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    return out


def _damaged(out: Path, name: str, value: object) -> Path:
    lines = out.read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["fairjudge"]["settings"][name] = value
    bad = out.with_name("bad.jsonl")
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    return bad


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [("--level", "1.5", "--level must be in (0, 1); got 1.5"),
     ("--bootstrap", "0", "--bootstrap must be >= 1; got 0"),
     ("--seed", "-1", "--seed must be >= 0; got -1")],
)  # fmt: skip
def test_a_bad_value_given_is_refused_before_any_note(
    flag: str, value: str, said: str, tmp_path: Path
) -> None:
    out = _compare_out(tmp_path)
    done = invoke("report", str(out), "-o", str(tmp_path / "p.html"), flag, value)
    assert done.exit_code == 2
    assert said in done.stderr
    assert "note:" not in done.stderr
    assert "redrawn" not in done.stderr
    assert not (tmp_path / "p.html").exists()


def test_a_damaged_resample_count_names_the_parameter_in_the_library(tmp_path: Path) -> None:
    bad = _damaged(_compare_out(tmp_path), "n_resamples", 0)
    with pytest.raises(InputError) as caught:
        out_file_page(bad, "compare")
    message = str(caught.value)
    assert "settings.n_resamples is not a resample count a run could have used" in message
    assert "give n_resamples to draw the file anyway" in message
    assert "--" not in message
    assert caught.value.params == ("n_resamples",)


def test_a_damaged_resample_count_is_shown_as_the_bootstrap_flag(tmp_path: Path) -> None:
    bad = _damaged(_compare_out(tmp_path), "n_resamples", "many")
    done = invoke("report", str(bad), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    assert "give --bootstrap to draw the file anyway" in done.stderr
    assert "is not a n_resamples" not in done.stderr
    done = invoke("report", str(bad), "-o", str(tmp_path / "p.html"), "--bootstrap", "200")
    assert done.exit_code == 0, done.output


def test_a_damaged_seed_names_the_seed(tmp_path: Path) -> None:
    bad = _damaged(_compare_out(tmp_path), "seed", -3)
    with pytest.raises(InputError, match=r"give seed to draw the file anyway") as caught:
        out_file_page(bad, "compare")
    assert caught.value.params == ("seed",)
