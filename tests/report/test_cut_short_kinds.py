"""``fairjudge report`` refuses every kind of results file cut at a line boundary.

tests/report/test_cut_short.py covers compare (and so calibrate and rank, read by
the same loader). Here the other kinds ``report`` draws: score, pointwise
calibrate, score-jury, jury, compare --via-scores (a python: scorer's and a model's)
and audit. Each is written by the command line; the whole file draws, as does the
file of a run a budget stopped (partial, and its page says so), and the same file
cut after its fourth record is refused naming the counts (exit 2). Before, every one
of them drew a page of what was left with exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge._errors import InputError
from fairjudge.report import out_file_page
from tests.audit.conftest import audit_server, plant  # noqa: F401  (a fixture, used by name)
from tests.audit.planted import Planted
from tests.cli._invoke import invoke
from tests.score_server import answer_in, script
from tests.server import JudgeServer

EX = Path(fairjudge.__file__).parent / "examples"
J = "python:fairjudge.examples.judges:"
ANSWERS, PAIRS = str(EX / "score_answers.jsonl"), str(EX / "demo_pairs.jsonl")
CUT = "the file is cut short or edited"


def _labelled(tmp_path: Path) -> str:
    """The example answers with a human accuracy score each, for pointwise calibrate."""
    rows = [json.loads(line) for line in Path(ANSWERS).read_text("utf-8").splitlines()]
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps({**r, "human_accuracy": 1 + n % 5}) + "\n"
                            for n, r in enumerate(rows)), "utf-8")  # fmt: skip
    return str(path)


KINDS = {  # the command (its file given by the test), and what the cut file holds
    "score": (("score", ANSWERS, "--judge", J + "scorer", "--rubric", "production"),
              "its header records 40 judge calls, but its 4 result records hold 4"),
    "calibrate": (("calibrate", "LABELLED", "--judge", J + "scorer", "--rubric", "production",
                   "--min-spearman", "-1"),
                  "its header records 40 judge calls, but its 4 result records hold 4"),
    "score-jury": (("score-jury", ANSWERS, "--judge", J + "scorer", "--judge",
                    J + "length_scorer", "--rubric", "production"),
                   "its header records 80 judge calls, but its 4 result records hold 8"),
    "jury": (("jury", PAIRS, "--judge", J + "longer", "--judge", J + "knows_facts", "--judge",
              J + "first_position"),
             "its header records 120 judge calls, but its 4 result records hold 24"),
    # A python: scorer runs on the engine: its calls are counted, as a model's are.
    "via-scores": (("compare", PAIRS, "--via-scores", "--judge", J + "scorer"),
                   "its header records 40 judge calls, but its 4 result records hold 8"),
}  # fmt: skip


def _run(tmp_path: Path, args: tuple[str, ...], *more: str, code: int) -> list[str]:
    out = tmp_path / "run.jsonl"
    done = invoke(*args, "--out", str(out), "-q", "--bootstrap", "200", *more)
    assert done.exit_code == code, done.output
    return out.read_text("utf-8").splitlines(keepends=True)


def _report(tmp_path: Path, lines: list[str]) -> tuple[int, str, str]:
    """``fairjudge report`` of ``lines``: its exit code, its words and the page (or '')."""
    given, page = tmp_path / "given.jsonl", tmp_path / "page.html"
    given.write_text("".join(lines), "utf-8")
    page.unlink(missing_ok=True)
    done = invoke("report", str(given), "-o", str(page))
    drawn = page.read_text("utf-8") if page.exists() else ""
    return done.exit_code, " ".join(done.output.split()), drawn


@pytest.mark.parametrize("kind", KINDS)
def test_a_cut_file_is_refused_and_whole_or_stopped_ones_draw(tmp_path: Path, kind: str) -> None:
    args, held = KINDS[kind]
    args = tuple(_labelled(tmp_path) if a == "LABELLED" else a for a in args)
    lines = _run(tmp_path, args, code=0)
    code, said, page = _report(tmp_path, lines)
    assert code == 0, said
    assert "Partial result" not in page
    code, said, page = _report(tmp_path, lines[:5])
    assert code == 2
    assert f"given.jsonl: {held}: {CUT}" in said
    assert not page
    # A run a budget stopped records its not-run calls: it is partial, not cut.
    stopped = _run(tmp_path, args, "--max-calls", "10", code=5)
    code, said, page = _report(tmp_path, stopped)
    assert code == 0, said
    assert "Partial result: the --max-calls 10 budget is spent" in page
    code, said, _ = _report(tmp_path, stopped[:5])
    assert code == 2
    assert f"given.jsonl: {held}: {CUT}" in said


def _scores(prompt: str) -> str:
    """A scripted scorer: 5 on every dimension for a long answer, else 2."""
    level = 5 if len(answer_in(prompt)) > 20 else 2
    return json.dumps(dict.fromkeys(("accuracy", "relevance", "usefulness"), level))


def test_via_scores_and_identical_answers_sharing_their_calls(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    # A model scorer keys its calls, and the run asks for each distinct one once: a
    # file with a twin pair (its answers scored once) is whole, not cut.
    script(score_server, _scores)
    rows = [json.loads(line) for line in Path(PAIRS).read_text("utf-8").splitlines()]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in [*rows, {**rows[0], "id": "twin"}]),
                     "utf-8")  # fmt: skip
    server = ("--judge", "openai/scripted-judge", "--base-url", score_server.base_url)
    lines = _run(tmp_path, ("compare", str(pairs), "--via-scores", *server), code=0)
    assert json.loads(lines[0])["fairjudge"]["calls"]["total"] == 40  # 42 answers, 40 distinct
    code, said, _ = _report(tmp_path, lines)
    assert code == 0, said
    code, said, _ = _report(tmp_path, lines[:5])
    assert code == 2
    held = "its header records 40 judge calls, but its 4 result records hold 8"
    assert f"given.jsonl: {held}: {CUT}" in said
    twin = tmp_path / "twin.jsonl"
    twin.write_text(json.dumps({"id": "a", "question": "Q?", "answer": "Yes."}) + "\n"
                    + json.dumps({"id": "b", "question": "Q?", "answer": "Yes."}) + "\n",
                    "utf-8")  # fmt: skip
    lines = _run(tmp_path, ("score", str(twin), "--rubric", "production", *server), code=0)
    assert json.loads(lines[0])["fairjudge"]["calls"]["total"] == 1
    code, said, _ = _report(tmp_path, lines)
    assert code == 0, said


def test_an_audit_file_cut_short_is_refused(
    audit_server: JudgeServer,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    plant(audit_server, Planted(first_share=0.5))
    base = ("audit", "--judge", "openai/scripted-judge", "--base-url", audit_server.base_url,
            "--limit", "6", "--experiments", "position,verbosity")  # fmt: skip
    lines = _run(tmp_path, (*base, "--store", str(tmp_path / "a.sqlite")), code=0)
    assert len(lines) == 6  # header, summary, one record per experiment (two skipped)
    code, said, _ = _report(tmp_path, lines)
    assert code == 0, said
    code, said, page = _report(tmp_path, lines[:3])
    assert code == 2
    assert (
        "given.jsonl: its 1 experiment records hold 12 of the 84 judge calls its summary "
        "records and lack verbosity, framing, self-preference (an audit lists every "
        f"experiment, run or skipped): {CUT}"
    ) in said
    assert not page
    code, said, _ = _report(tmp_path, lines[:5])  # only a skipped experiment is missing
    assert code == 2
    assert (
        "its 3 experiment records lack self-preference (an audit lists every experiment, run "
        f"or skipped): {CUT}"
    ) in said
    with pytest.raises(InputError, match="lack self-preference"):
        out_file_page(tmp_path / "given.jsonl", "audit")
    # A run a budget stopped lists the experiments it did not run: partial, not cut.
    stopped = _run(tmp_path, (*base, "--store", str(tmp_path / "b.sqlite"), "--max-calls", "10"),
                   code=5)  # fmt: skip
    code, said, page = _report(tmp_path, stopped)
    assert code == 0, said
    assert "budget is spent" in page
