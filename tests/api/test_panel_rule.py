"""A panel's ``aggregate`` is checked as the panel is built, and named as the parameter.

The evaluation's own check names its ``aggregation`` parameter, which a caller of
``fairjudge.compare``/``score`` never passed; it came up after every member was
seated. The rule is checked first, naming ``aggregate`` (``--aggregate`` on the
command line), or the jury file whose key set it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fairjudge
from fairjudge import ConfigError
from fairjudge.audit import check_threshold

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
PAIRS, ANSWERS = EXAMPLES / "demo_pairs.jsonl", EXAMPLES / "score_answers.jsonl"


def _never(*args: object) -> str:
    raise AssertionError("a member was called before the rule was checked")


@pytest.mark.parametrize(
    ("run", "rules"),
    [
        (lambda: fairjudge.compare(PAIRS, judges=[_never, _never], aggregate="median"),
         "majority, mean"),
        (lambda: fairjudge.score(ANSWERS, judges=[_never, _never], aggregate="majority"),
         "mean, median"),
    ],
)  # fmt: skip
def test_a_bad_rule_names_aggregate(run: object, rules: str) -> None:
    with pytest.raises(ConfigError) as exc:
        run()  # type: ignore[operator]
    assert exc.value.params == ("aggregate",)
    assert str(exc.value).startswith(f"aggregate must be one of {rules}; got ")


def test_a_bad_rule_from_a_jury_file_names_the_file(tmp_path: Path) -> None:
    jury = tmp_path / "panel.toml"
    member = '[[member]]\njudge = "python:fairjudge.examples.judges:scorer"\n'
    jury.write_text('aggregate = "majority"\n' + member * 2, encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        fairjudge.score(ANSWERS, judges=jury)
    assert str(exc.value) == f"{jury}: aggregate must be one of mean, median; got 'majority'"
    assert exc.value.params == ()  # a key in the file: no parameter to reword
    # Given as the parameter, the rule is the caller's, and the file's is not used.
    with pytest.raises(ConfigError, match=r"^aggregate must be one of mean, median"):
        fairjudge.score(ANSWERS, judges=jury, aggregate="mode")


def test_a_gate_threshold_names_its_parameter() -> None:
    for name in ("min_kappa", "min_spearman"):
        with pytest.raises(ConfigError) as exc:
            check_threshold(name, 1.5)
        assert exc.value.params == (name,)
        assert str(exc.value) == f"{name} must be a number in [-1, 1]; got 1.5"
    with pytest.raises(ConfigError) as exc:
        fairjudge.calibrate(PAIRS, _never, min_kappa=True)
    assert exc.value.params == ("min_kappa",)
