"""With ``--json``, a run that exits 4 says so on stdout: ``too_many_unresolved``.

Before, stdout's JSON carried ``n_items`` and ``n_unresolved`` (or ``n_unscored``)
and only stderr said that ``--max-unresolved`` was exceeded, so a script reading
stdout could not tell an exit 4 from a result that stands. The block is added only
when the run exits 4: every other run's JSON is as it was.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.cli.conftest import GOOD_ROWS
from tests.score_server import answer_in, script
from tests.server import JudgeServer

runner = CliRunner()
HERE = "python:tests.cli.test_unresolved_json:"
SCORER = "python:tests.scorers:half_broken"  # off the scale for answers starting with 'x'
RANK = Path(__file__).resolve().parents[2] / "examples" / "rank_answers.jsonl"


def no_verdict_on_sums(question: str, answer_a: str, answer_b: str) -> str:
    """A pairwise judge that gives no verdict on '2+2?' (one of the three GOOD_ROWS)."""
    if question.startswith("2+2"):
        return "I refuse to choose."
    return "B" if len(answer_b) > len(answer_a) else "A"


def no_verdict_on_odd(question: str, answer_a: str, answer_b: str) -> str:
    """A pairwise judge that gives no verdict when the question's length is odd."""
    return "no idea" if len(question) % 2 else ("B" if len(answer_b) > len(answer_a) else "A")


def _write(tmp_path: Path, rows: list[dict[str, object]], name: str = "items") -> str:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _answers(tmp_path: Path, **extra: object) -> str:
    answers = ["ok", "x broken", "fine", "good"]  # one of four: 25% > 0.2
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": a, **extra}
            for i, a in enumerate(answers)]  # fmt: skip
    return _write(tmp_path, rows, "answers" + "".join(extra))


def _pairs(tmp_path: Path, **extra: object) -> str:
    return _write(tmp_path, [{**row, **extra} for row in GOOD_ROWS], "pairs" + "".join(extra))


def _x_pairs(tmp_path: Path) -> str:
    rows = [{**row, "answer_1": "x " + str(row["answer_1"])} if row["id"] == "b" else row
            for row in GOOD_ROWS]  # fmt: skip
    return _write(tmp_path, rows, "x_pairs")


SUMS = HERE + "no_verdict_on_sums"


def _case(name: str, t: Path) -> tuple[list[str], int, int]:
    """The command line of case ``name``, its unresolved items and its items."""
    return {
        "compare": (["compare", _pairs(t), "--judge", SUMS], 1, 3),
        "via-scores": (["compare", _x_pairs(t), "--via-scores", "--judge", SCORER], 1, 3),
        "jury": (["jury", _pairs(t), "--judge", SUMS, "--judge", SUMS], 1, 3),
        "calibrate": (["calibrate", _pairs(t, human="1"), "--judge", SUMS], 1, 3),
        "calibrate-scores": (["calibrate", _answers(t, human_accuracy=3), "--judge", SCORER], 1, 4),
        "score": (["score", _answers(t), "--judge", SCORER], 1, 4),
        "score-jury": (["score-jury", _answers(t), "--judge", SCORER, "--judge", SCORER], 1, 4),
    }[name]


@pytest.mark.parametrize(
    "name",
    ["compare", "via-scores", "jury", "calibrate", "calibrate-scores", "score", "score-jury"],
)
def test_an_exit_4_says_the_limit_the_count_and_the_share(name: str, tmp_path: Path) -> None:
    args, bad, n = _case(name, tmp_path)
    result = runner.invoke(app, [*args, "--json", "--bootstrap", "50"])
    assert result.exit_code == 4, result.output
    said = json.loads(result.stdout)["too_many_unresolved"]
    assert said == {"max_unresolved": 0.2, "n_unresolved": bad, "n_items": n, "share": bad / n}
    assert "too many unresolved items" in result.stderr


def test_rank_says_it_too() -> None:
    odd = HERE + "no_verdict_on_odd"
    result = runner.invoke(app, ["rank", str(RANK), "--judge", odd, "--max-unresolved", "0",
                                 "--bootstrap", "20", "--json"])  # fmt: skip
    assert result.exit_code == 4, result.output
    said = json.loads(result.stdout)["too_many_unresolved"]
    assert said["max_unresolved"] == 0.0
    assert 0 < said["n_unresolved"] < said["n_items"] == 96
    assert said["share"] == said["n_unresolved"] / 96


def test_none_resolved_is_said_so_under_any_limit(tmp_path: Path) -> None:
    garbage = "python:tests.judge_fixtures:garbage"
    result = runner.invoke(app, ["compare", _pairs(tmp_path), "--judge", garbage,
                                 "--max-unresolved", "1", "--json"])  # fmt: skip
    assert result.exit_code == 4, result.output
    said = json.loads(result.stdout)["too_many_unresolved"]
    assert said == {"max_unresolved": 1.0, "n_unresolved": 3, "n_items": 3, "share": 1.0}
    # It said "(100% > --max-unresolved 1)", which is not so.
    assert "(none resolved, which fails at any --max-unresolved)" in " ".join(result.stderr.split())


def test_other_exits_add_nothing(tmp_path: Path) -> None:
    pairs = _pairs(tmp_path)
    within = runner.invoke(app, ["compare", pairs, "--judge", SUMS, "--json",
                                 "--max-unresolved", "0.5"])  # fmt: skip
    assert within.exit_code == 0, within.output
    assert "too_many_unresolved" not in json.loads(within.stdout)
    stopped = runner.invoke(app, ["compare", pairs, "--judge", SUMS, "--json",
                                  "--max-calls", "1"])  # fmt: skip
    assert stopped.exit_code == 5, stopped.output
    assert "too_many_unresolved" not in json.loads(stopped.stdout)


def _swap_fails_on_high_firsts(prompt: str) -> str:
    """Pairwise prompts whose answer A starts 4 or 5 get no verdict; answers are scored."""
    pair = re.search(r"<answer_a>\n(\d).*?<answer_b>\n(\d)", prompt, re.DOTALL)
    if pair is None:
        return json.dumps(dict.fromkeys(("accuracy", "relevance", "usefulness"),
                                        int(answer_in(prompt)[0])))  # fmt: skip
    return "no idea" if pair.group(1) in "45" else "tie"


def _swap_pairs(tmp_path: Path) -> str:
    """Five pairs for ``_swap_fails_on_high_firsts``: A first 5 or 4 (and swapped) get none."""
    levels = [(5, 1), (4, 2), (3, 4), (2, 5), (1, 3)]
    rows = [{"id": f"q{i}", "question": f"Q{i}?", "answer_1": f"{a} first",
             "answer_2": f"{b} second"} for i, (a, b) in enumerate(levels)]  # fmt: skip
    return _write(tmp_path, rows, "pairs")


def test_via_scores_with_swap_says_the_swap_protocols(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    script(score_server, _swap_fails_on_high_firsts)
    result = runner.invoke(app, [
        "compare", _swap_pairs(tmp_path), "--via-scores", "--with-swap", "--judge",
        "openai/scripted-judge", "--base-url", score_server.base_url, "--quiet", "--json",
        "--store", str(tmp_path / "s.sqlite"), "--bootstrap", "50",
    ])  # fmt: skip
    assert result.exit_code == 4, result.output
    payload = json.loads(result.stdout)
    assert payload["via_scores"]["n_unresolved"] == 0
    said = payload["too_many_unresolved"]
    assert said["n_unresolved"] == payload["swap"]["n_unresolved"] > 1
    assert said["n_items"] == 5
