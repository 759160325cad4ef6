"""Exit 4's line says where the reasons are: above, or in ``--json``'s output (QA40 F4).

Under ``--json`` the grouped reasons are not printed on stderr; they are under
``failures`` on stdout, so "the reasons are listed above" pointed at nothing. Every
command composes the line once, from whether it prints JSON, before it prints:
``jury``'s line had no pointer at all, and ``calibrate --json`` had no ``failures``;
nor had ``rank --json``, whose reasons went to stderr beside it, and ``jury``'s text line
did not say its reasons are listed above.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairjudge.cli._out import unresolved_exit
from tests.cli._invoke import invoke
from tests.cli.test_unresolved_json import _swap_fails_on_high_firsts, _swap_pairs
from tests.score_server import script
from tests.server import JudgeServer

JUDGES = (
    "def pair(question, answer_1, answer_2):\n    return None\n\n\n"
    "def one(question, answer):\n    return None\n\n\n"
    "BAD = ('capital', 'spider', 'boil', 'Python')\n\n\n"
    "def flaky_pair(question, answer_1, answer_2):\n"
    "    if any(w in question for w in BAD):\n"
    "        raise RuntimeError('gateway down')\n"
    "    return 'A' if len(answer_1) < len(answer_2) else 'B'\n\n\n"
    "def flaky_one(question, answer):\n"
    "    if any(w in question for w in BAD):\n"
    "        raise RuntimeError('scorer crashed')\n"
    "    return {'accuracy': 4, 'relevance': 3, 'usefulness': 4}\n\n\n"
    "def flaky_rank(question, answer_1, answer_2):\n"
    "    if question.endswith(('1?', '2?', '3?')):\n"
    "        raise RuntimeError('gateway down')\n"
    "    return 'A' if len(answer_1) > len(answer_2) else 'B'\n"
)
WHERE = 'the reasons are under "failures" in the --json output'


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example data and a judge module that never answers, as the working directory."""
    assert invoke("example-data", str(tmp_path)).exit_code == 0
    (tmp_path / "f4_silent.py").write_text(JUDGES, encoding="utf-8")
    answers = (tmp_path / "score_answers.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in answers[:20]]
    human = [{"id": r["id"], "question": r["question"], "answer": r["answer"],
              "human_accuracy": 1 + i % 5, "human_relevance": 1 + i * 3 % 5,
              "human_usefulness": 1 + i * 2 % 5} for i, r in enumerate(rows)]  # fmt: skip
    text = "".join(json.dumps(r) + "\n" for r in human)
    (tmp_path / "human_scores.jsonl").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path
    sys.modules.pop("f4_silent", None)


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "demo_pairs.jsonl", "--judge", "python:f4_silent:pair"],
        ["score", "score_answers.jsonl", "--judge", "python:f4_silent:one"],
    ],
)
def test_under_json_the_line_points_at_the_json(here: Path, args: list[str]) -> None:
    done = invoke(*args, "--json")
    assert done.exit_code == 4
    assert json.loads(done.stdout)["failures"]
    line = " ".join(done.stderr.split())
    assert WHERE in line
    assert "above" not in line


def test_without_json_the_reasons_are_above(here: Path) -> None:
    done = invoke("compare", "demo_pairs.jsonl", "--judge", "python:f4_silent:pair")
    assert done.exit_code == 4
    assert "the reasons, most common first" in " ".join(done.stdout.split())
    assert " ".join(done.stderr.split()).endswith("the reasons are listed above")


def test_via_scores_points_at_its_own_part(here: Path) -> None:
    """``compare --via-scores --json`` keeps its reasons under ``via_scores.failures``."""
    done = invoke(
        "compare", "calibration.jsonl", "--via-scores", "--judge", "python:f4_silent:one", "--json"
    )
    assert done.exit_code == 4
    assert json.loads(done.stdout)["via_scores"]["failures"]
    line = " ".join(done.stderr.split())
    assert 'the reasons are under "via_scores.failures" in the --json output' in line
    assert "above" not in line


_PARTLY = {  # each exits 4 with a result that stands in part: 17% to 40% unresolved
    "compare": ["compare", "demo_pairs.jsonl", "--judge", "python:f4_silent:flaky_pair"],
    "score": ["score", "score_answers.jsonl", "--judge", "python:f4_silent:flaky_one"],
    "jury": ["jury", "demo_pairs.jsonl", "--judge", "python:f4_silent:flaky_pair",
             "--judge", "python:f4_silent:flaky_pair"],
    "score-jury": ["score-jury", "score_answers.jsonl", "--judge", "python:f4_silent:flaky_one",
                   "--judge", "python:f4_silent:flaky_one"],
    "calibrate": ["calibrate", "calibration.jsonl", "--judge", "python:f4_silent:flaky_pair"],
    "calibrate-scores": ["calibrate", "human_scores.jsonl", "--judge",
                         "python:f4_silent:flaky_one"],
    "rank": ["rank", "rank_answers.jsonl", "--judge", "python:f4_silent:flaky_rank"],
}  # fmt: skip


def _line(done: Any) -> str:
    """The exit line, whole: stderr wraps at the terminal's width."""
    return " ".join(done.stderr.split())


@pytest.mark.parametrize("name", list(_PARTLY))
def test_every_command_points_at_its_failures_the_same_way(here: Path, name: str) -> None:
    """jury said no pointer; calibrate's and rank's JSON had no failures (on stderr)."""
    done = invoke(*_PARTLY[name], "--max-unresolved", "0.1", "--bootstrap", "50", "--json")
    assert done.exit_code == 4, done.output
    failures = json.loads(done.stdout)["failures"]
    assert failures
    assert all(isinstance(n, int) for n in failures.values())
    line = _line(done)
    assert re.search(rf"(item|pair)s [^()]+ \(\d\d% > --max-unresolved 0.1\); {WHERE}$", line)
    assert "the reasons, most common first" not in line  # in the JSON, not on stderr too
    if name.endswith("jury"):  # each member's reasons, named by the member
        assert all(reason.startswith("python:f4_silent:") for reason in failures)


def test_calibrate_failures_have_compares_shape(here: Path) -> None:
    """``calibrate --json``'s ``failures`` is ``compare --json``'s: reason -> count."""
    pairs = ["demo_pairs.jsonl", "--judge", "python:f4_silent:flaky_pair", "--json"]
    compared = json.loads(invoke("compare", *pairs).stdout)["failures"]
    calibrated = json.loads(invoke("calibrate", *pairs).stdout)["failures"]
    assert calibrated == compared == {"RuntimeError: gateway down": 8}
    calm = invoke("calibrate", "calibration.jsonl", "--judge", "python:tests.judge_fixtures:longer",
                  "--json")  # fmt: skip
    assert "failures" not in json.loads(calm.stdout)  # as before, when no call failed


@pytest.mark.parametrize("name", ["jury", "calibrate", "calibrate-scores", "score-jury"])
def test_without_json_the_lines_are_as_they_were(here: Path, name: str) -> None:
    done = invoke(*_PARTLY[name], "--max-unresolved", "0.1", "--bootstrap", "50")
    assert done.exit_code == 4, done.output
    assert _line(done).endswith("the reasons are listed above")  # one wording for every command
    assert "the reasons, most common first" in " ".join(done.stdout.split())


def test_rank_holds_its_reasons_in_its_json_as_the_library_does(here: Path) -> None:
    """``rank --json``'s ``failures`` is ``fairjudge.rank(...).to_dict()``'s, compare's shape.

    Before, the JSON had none and the reasons went to stderr beside it. A run whose
    every call gave a verdict has ``failures`` too, empty, as compare's and score's.
    """
    import fairjudge

    args = ["rank_answers.jsonl", "--bootstrap", "20", "--json"]
    done = invoke("rank", *args, "--judge", "python:f4_silent:flaky_rank", "--out", "r.jsonl")
    assert done.exit_code == 4, done.output
    printed = json.loads(done.stdout)
    assert printed["failures"] == {"RuntimeError: gateway down": 72}
    assert "the reasons, most common first" not in _line(done)
    assert _line(done).endswith(WHERE)
    judge = sys.modules["f4_silent"].flaky_rank  # the module the command loaded
    ranked = fairjudge.rank("rank_answers.jsonl", judge, n_resamples=20)
    assert list(ranked.to_dict()["failures"].items()) == list(printed["failures"].items())
    reported = json.loads(invoke("report", "r.jsonl", "--json").stdout)  # is rank --json
    assert reported == {k: v for k, v in printed.items() if k != "too_many_unresolved"}
    calm = invoke("rank", *args, "--judge", "python:tests.judge_fixtures:longer")
    assert calm.exit_code == 0, calm.output
    assert json.loads(calm.stdout)["failures"] == {}


def test_rank_lists_its_reasons_above_when_nothing_resolved(here: Path) -> None:
    """No pair resolved: ``--json`` is the error object, and the reasons are on stderr."""
    done = invoke("rank", "rank_answers.jsonl", "--judge", "python:f4_silent:pair", "--json",
                  "--bootstrap", "20")  # fmt: skip
    assert done.exit_code == 4, done.output
    assert "failures" not in json.loads(done.stdout)
    line = _line(done)
    assert line.index("the reasons, most common first") < line.index("too many unresolved")
    assert line.endswith("the reasons are listed above")


def test_via_scores_with_swap_points_at_the_swap_protocols(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    """The swap protocol's exit 4 points at ``swap.failures``, where its reasons are."""
    script(score_server, _swap_fails_on_high_firsts)
    done = invoke(
        "compare", _swap_pairs(tmp_path), "--via-scores", "--with-swap", "--judge",
        "openai/scripted-judge", "--base-url", score_server.base_url, "--quiet", "--json",
        "--store", str(tmp_path / "s.sqlite"), "--bootstrap", "50",
    )  # fmt: skip
    assert done.exit_code == 4, done.output
    assert json.loads(done.stdout)["swap"]["failures"]
    assert _line(done).endswith('the reasons are under "swap.failures" in the --json output')


def test_the_line_is_composed_before_anything_is_printed() -> None:
    """The ending says where the reasons are when it is made; nothing rewrites it later."""
    common: dict[str, Any] = {"what": "have no verdict", "none": False}
    as_json = unresolved_exit(None, 3, 10, 0.2, **common, as_json=True, key="via_scores.failures")
    said = as_json.said[1]
    assert said == ('3 of 10 items have no verdict (30% > --max-unresolved 0.2); '
                    'the reasons are under "via_scores.failures" in the --json output')  # fmt: skip
    drawn = unresolved_exit(None, 3, 10, 0.2, **common)
    assert drawn.said[1].endswith("(30% > --max-unresolved 0.2); the reasons are listed above")
    silent = unresolved_exit(None, 3, 10, 0.2, **common, reasons=None)
    assert silent.said[1].endswith("(30% > --max-unresolved 0.2)")
