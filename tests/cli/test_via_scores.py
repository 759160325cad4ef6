"""`compare --via-scores`: each answer scored on its own, the two scores compared."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import Item, Outcome
from fairjudge.cli import app
from fairjudge.evaluation import compare_via_scores
from fairjudge.judges import ScoreRequest
from fairjudge.prompts import AnswerScores, Rubric, get_rubric
from tests.out_file import out_records
from tests.score_server import answer_in, script
from tests.server import JudgeServer

runner = CliRunner()
LEADING = "python:tests.scorers:leading"
# (answer_1 level, answer_2 level) per item: 5 wins for model 1, 2 ties, 3 losses.
LEVELS = [(5, 1), (4, 2), (5, 4), (3, 2), (4, 3), (3, 3), (2, 2), (1, 4), (2, 5), (2, 3)]


def _file(tmp_path: Path, levels: list[tuple[int, int]] = LEVELS) -> Path:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer_1": f"{a} first",
             "answer_2": f"{b} second"} for i, (a, b) in enumerate(levels)]  # fmt: skip
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _compare(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["compare", *args, "--bootstrap", "300"])
    return result.exit_code, result.stdout, result.stderr


def test_win_rate_via_scores_with_wtl(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    code, stdout, stderr = _compare(str(_file(tmp_path)), "--via-scores", "--judge", LEADING,
                                    "--json", "--out", str(out))  # fmt: skip
    assert code == 0, stderr
    via = json.loads(stdout)["via_scores"]
    w = via["win_rate"]
    assert (w["wins"], w["ties"], w["losses"], w["n"]) == (5, 2, 3, 10)
    assert w["estimate"] == pytest.approx(0.6)
    assert w["ci"]["low"] <= 0.6 <= w["ci"]["high"]
    assert via["difference"]["estimate"] == pytest.approx(sum(a - b for a, b in LEVELS) / 10)
    assert [d["dimension"] for d in via["dimensions"]] == ["accuracy", "relevance", "usefulness"]
    assert via["dimensions"][0]["system_a"] == "model 1"
    assert json.loads(stdout)["swap"] is None
    record = out_records(out, "compare-via-scores")[0]
    assert (record["outcome"], record["score_1"], record["score_2"], record["basis"]) == (
        "1", 5.0, 1.0, "scores",
    )  # fmt: skip
    assert record["scored_1"]["answer"] == "5 first"


def test_the_tie_margin_turns_near_scores_into_ties(tmp_path: Path) -> None:
    code, stdout, _ = _compare(str(_file(tmp_path)), "--via-scores", "--judge", LEADING,
                               "--tie-margin", "1", "--json")  # fmt: skip
    assert code == 0
    w = json.loads(stdout)["via_scores"]["win_rate"]
    assert (w["wins"], w["ties"], w["losses"]) == (2, 6, 2)  # |difference| <= 1 ties
    code, stdout, _ = _compare(str(_file(tmp_path)), "--via-scores", "--judge", LEADING)
    assert code == 0
    text = " ".join(stdout.split())
    assert "via scores │ 0.600" in text
    assert "5/2/3" in text


def test_each_answer_is_scored_alone_over_the_server(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    seen: list[str] = []

    def scorer(prompt: str) -> str:
        answer = answer_in(prompt)
        seen.append(answer)
        assert "first" not in prompt or "second" not in prompt  # never both answers
        return json.dumps(dict.fromkeys(("accuracy", "relevance", "usefulness"), int(answer[0])))

    script(score_server, scorer)
    code, stdout, stderr = _compare(
        str(_file(tmp_path)), "--via-scores", "--judge", "openai/scripted-judge",
        "--base-url", score_server.base_url, "--store", str(tmp_path / "s.sqlite"), "--quiet",
        "--json",
    )  # fmt: skip
    assert code == 0, stderr
    assert sorted(seen) == sorted(
        [f"{a} first" for a, _ in LEVELS] + [f"{b} second" for _, b in LEVELS]
    )
    assert score_server.count("requests") == 20
    result = json.loads(stdout)
    assert result["calls"]["made"] == 20
    assert result["via_scores"]["win_rate"]["wins"] == 5


def _verdict_or_scores(prompt: str) -> str:
    """A pairwise prompt gets a verdict; a pointwise one, JSON scores (leading digits)."""
    pair = re.search(r"<answer_a>\n(\d).*?<answer_b>\n(\d)", prompt, re.DOTALL)
    if pair is not None:
        a, b = int(pair.group(1)), int(pair.group(2))
        return "A" if a > b else "B" if b > a else "tie"
    return json.dumps(dict.fromkeys(("accuracy", "relevance", "usefulness"),
                                    int(answer_in(prompt)[0])))  # fmt: skip


def test_with_swap_runs_both_on_one_session(score_server: JudgeServer, tmp_path: Path) -> None:
    script(score_server, _verdict_or_scores)
    args = [
        str(_file(tmp_path)), "--via-scores", "--with-swap", "--judge", "openai/scripted-judge",
        "--base-url", score_server.base_url, "--store", str(tmp_path / "s.sqlite"), "--quiet",
    ]  # fmt: skip
    code, stdout, stderr = _compare(*args, "--json")
    assert code == 0, stderr
    payload = json.loads(stdout)
    swap, via = payload["swap"]["win_rate"], payload["via_scores"]["win_rate"]
    assert (swap["wins"], swap["ties"], swap["losses"]) == (5, 2, 3)
    assert (via["wins"], via["ties"], via["losses"]) == (5, 2, 3)
    assert score_server.count("requests") == 20 + 2 * 10  # 20 answers, 10 items in two orders
    code, stdout, _ = _compare(*args)  # everything from the one store now
    assert code == 0
    assert score_server.count("requests") == 40
    text = " ".join(stdout.split())
    assert "via scores │ 0.600" in text
    assert "swap protocol │ 0.600" in text


def test_probability_weighted_scores_are_used_when_every_dimension_has_one(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    script(score_server, lambda prompt: answer_in(prompt)[0])
    code, stdout, stderr = _compare(
        str(_file(tmp_path)), "--via-scores", "--score-mode", "label", "--judge",
        "openai/scripted-judge", "--base-url", score_server.base_url, "--store",
        str(tmp_path / "s.sqlite"), "--quiet", "--json",
    )  # fmt: skip
    assert code == 0, stderr
    via = json.loads(stdout)["via_scores"]
    assert via["n_on_expected_scores"] == 10
    assert score_server.count("requests") == 60  # one call per dimension per answer


class _Weighted:
    """A judge that gives probability-weighted scores on some answers only."""

    rubric: Rubric = get_rubric()

    def score_batch(
        self, requests: list[ScoreRequest], progress: object = None
    ) -> list[AnswerScores]:
        out = []
        for r in requests:
            level = int(r.answer[0])
            expected = dict.fromkeys(self.rubric.names, level + 0.3) if "w" in r.answer else {}
            out.append(AnswerScores((), dict.fromkeys(self.rubric.names, level), expected))
        return out


def test_both_answers_share_a_basis() -> None:
    items = [Item("q1?", "4w", "4w"), Item("q2?", "4w", "4"), Item("q3?", "3w", "2w")]
    result = compare_via_scores(_Weighted(), items, n_resamples=100)
    got = [(p.basis, p.score_1, p.score_2, p.outcome) for p in result.pairs]
    assert got == [
        ("expected", pytest.approx(4.3), pytest.approx(4.3), Outcome.TIE),
        ("scores", 4.0, 4.0, Outcome.TIE),  # answer 2 has no weighted score: integers for both
        ("expected", pytest.approx(3.3), pytest.approx(2.3), Outcome.ONE),
    ]
    assert result.n_expected == 2


def test_unscored_answers_leave_their_item_unresolved(tmp_path: Path) -> None:
    levels = [(5, 1), (9, 2), (3, 9), (4, 4)]
    broken = "python:tests.scorers:leading_or_broken"
    code, stdout, stderr = _compare(
        str(_file(tmp_path, levels)), "--via-scores", "--judge", broken, "--json"
    )
    assert code == 4
    via = json.loads(stdout)["via_scores"]
    assert (via["n_unresolved"], via["win_rate"]["n"], via["n_parse_failures"]) == (2, 2, 2)
    assert "2 of 4 items lack a score on some dimension" in " ".join(stderr.split())


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--rubric", "chat"], "--rubric applies with --via-scores only"),
        (["--via-scores", "--rounds", "4"], "--rounds applies to the swap protocol"),
        (["--via-scores", "--template", "json"], "--template applies to the swap protocol"),
        (["--via-scores", "--tie-margin", "-1"], "--tie-margin must be >= 0"),
        (["--via-scores", "--rubric", "reference"], "needs a reference"),
        (["--via-scores", "--score-mode", "label", "--rubric", "basic"], "must be one digit"),
    ],
)
def test_usage_errors_exit_2_before_any_call(
    score_server: JudgeServer, tmp_path: Path, extra: list[str], message: str
) -> None:
    code, _, stderr = _compare(
        str(_file(tmp_path)), "--judge", "openai/scripted-judge", "--base-url",
        score_server.base_url, "--store", str(tmp_path / "s.sqlite"), *extra,
    )  # fmt: skip
    assert code == 2, stderr
    assert message in " ".join(stderr.split())
    assert score_server.count("requests") == 0


def test_with_swap_needs_a_model_judge(tmp_path: Path) -> None:
    code, _, stderr = _compare(
        str(_file(tmp_path)), "--via-scores", "--with-swap", "--judge", LEADING
    )
    assert code == 2
    assert "--with-swap needs a model judge" in " ".join(stderr.split())


def test_markdown_to_stdout_still_says_where_the_files_went(tmp_path: Path) -> None:
    # compare --via-scores shows its run as compare does (cli/_out.show): with the
    # summary printed (--markdown -), stderr names --out and --html all the same; it
    # named neither.
    out, page = tmp_path / "out.jsonl", tmp_path / "page.html"
    code, stdout, stderr = _compare(str(_file(tmp_path)), "--via-scores", "--judge", LEADING,
                                    "--out", str(out), "--html", str(page),
                                    "--markdown", "-")  # fmt: skip
    assert code == 0, stderr
    assert stdout.startswith("#")  # the summary, not the tables
    flat = " ".join(stderr.split())
    assert f"per-item results: {out}" in flat
    assert f"HTML report: {page}" in flat
    # Without --markdown, the tables and the same two lines, as before.
    code, stdout, stderr = _compare(str(_file(tmp_path)), "--via-scores", "--judge", LEADING,
                                    "--out", str(out), "--html", str(page))  # fmt: skip
    assert code == 0, stderr
    assert f"per-item results: {out}" in " ".join(stderr.split())
