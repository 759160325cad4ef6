"""``Result.save(path)``: a notebook writes the audit trail a command's ``--out`` writes.

Every kind's file opens with the header ``fairjudge report`` checks, has one record
per item, and is drawn again by ``fairjudge report``; the write is atomic; a run a
budget stopped is saved as far as it got and read back as stopped; no key is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import knows_facts, longer, scorer
from fairjudge.report import out_file_header, out_file_page
from tests.api.test_audit_own_judge import LengthJudge
from tests.cli._invoke import invoke
from tests.out_file import out_header, out_records
from tests.server import JudgeServer

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
QUIET = {"progress": "quiet"}


def _pairs() -> fairjudge.Result:
    return fairjudge.compare(str(EXAMPLES / "demo_pairs.jsonl"), longer, options=QUIET)


RUNS: dict[str, Callable[[], Any]] = {
    "compare": _pairs,
    "calibrate": lambda: fairjudge.calibrate(
        str(EXAMPLES / "calibration.jsonl"), knows_facts, options=QUIET
    ),
    "score": lambda: fairjudge.score(str(EXAMPLES / "score_answers.jsonl"), scorer, options=QUIET),
    "jury": lambda: fairjudge.compare(
        str(EXAMPLES / "demo_pairs.jsonl"), judges=[longer, knows_facts], options=QUIET
    ),
    "score-jury": lambda: fairjudge.score(
        str(EXAMPLES / "score_answers.jsonl"), judges=[scorer, scorer], options=QUIET
    ),
    "audit": lambda: fairjudge.audit_judge(LengthJudge(), experiments="position", limit=3),
}


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_each_kind_saves_a_file_report_draws_again(kind: str, tmp_path: Path) -> None:
    result = RUNS[kind]()
    path = result.save(tmp_path / "run.jsonl")
    assert path == tmp_path / "run.jsonl"
    header = out_header(path)
    assert header["kind"] == kind
    assert header["command"] == []  # a notebook has no command line
    assert "config" not in header
    records = out_records(path, kind)
    expected = {"audit": 5, "score": 40, "score-jury": 40, "calibrate": 24}.get(kind, 20)
    assert len(records) == expected
    read = out_file_header(path)
    assert read is not None
    assert read.kind == kind
    page = out_file_page(path, kind)
    assert page.summary  # drawn again, as from the command's own file
    done = invoke("report", str(path), "--output", str(tmp_path / "page.html"))
    assert done.exit_code == 0, done.output
    assert (tmp_path / "page.html").stat().st_size > 1000


def test_the_notebook_file_is_the_command_file_but_for_the_command_line(tmp_path: Path) -> None:
    items = str(EXAMPLES / "demo_pairs.jsonl")
    cli = tmp_path / "cli.jsonl"
    done = invoke("compare", items, "--judge", "python:fairjudge.examples.judges:longer",
                  "--out", str(cli), "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    mine = _pairs().save(tmp_path / "mine.jsonl")
    head_cli, head_mine = out_header(cli), out_header(mine)
    assert head_cli.pop("command") == ["fairjudge", "compare"]
    assert head_cli.pop("config")["command"] == "compare"
    assert head_mine.pop("command") == []
    head_cli.pop("calls", None)
    head_mine.pop("calls", None)
    assert head_cli == head_mine
    assert out_records(cli) == out_records(mine)


def test_rank_saves_battles_rank_reads_back(tmp_path: Path) -> None:
    ranked = fairjudge.rank(str(EXAMPLES / "rank_answers.jsonl"), longer, options=QUIET)
    path = ranked.save(tmp_path / "rank.jsonl")
    header = out_header(path)
    assert header["kind"] == "rank"
    assert header["settings"]["pairing"] == "all"
    assert header["settings"]["n_resamples_fit"] == 1000
    again = fairjudge.rank(str(path))  # the judged battles, ranked with no judge
    assert again.to_dict()["ratings"] == ranked.to_dict()["ratings"]


def test_judged_battles_have_nothing_to_save(tmp_path: Path) -> None:
    ranked = fairjudge.rank(str(EXAMPLES / "battles.jsonl"))
    with pytest.raises(fairjudge.ConfigError, match="judged battles"):
        ranked.save(tmp_path / "rank.jsonl")
    assert not (tmp_path / "rank.jsonl").exists()


STOPPED: dict[str, Callable[[dict[str, Any]], Any]] = {
    "compare": lambda o: fairjudge.compare(str(EXAMPLES / "demo_pairs.jsonl"), longer, options=o),
    "score": lambda o: fairjudge.score(str(EXAMPLES / "score_answers.jsonl"), scorer, options=o),
    "jury": lambda o: fairjudge.compare(
        str(EXAMPLES / "demo_pairs.jsonl"), judges=[longer, knows_facts], options=o
    ),
}


@pytest.mark.parametrize("kind", sorted(STOPPED))
def test_a_budget_stopped_run_is_saved_as_stopped(kind: str, tmp_path: Path) -> None:
    result = STOPPED[kind]({"max_calls": 10, **QUIET})
    assert result.stopped is not None
    path = result.save(tmp_path / "partial.jsonl")
    assert len(out_records(path)) == (40 if kind == "score" else 20)  # never judged too
    page = out_file_page(path, kind)
    assert page.summary["stopped"]  # read back as a partial run


def test_the_write_is_atomic(tmp_path: Path) -> None:
    path = _pairs().save(tmp_path / "run.jsonl")
    before = path.read_bytes()
    broken = fairjudge.compare(str(EXAMPLES / "demo_pairs.jsonl"), longer, options=QUIET)

    def boom() -> Any:
        raise RuntimeError("disk gone")

    object.__setattr__(broken.result, "judgments", _Failing(broken.result.judgments, boom))
    with pytest.raises(RuntimeError, match="disk gone"):
        broken.save(path)
    assert path.read_bytes() == before  # the old file whole, no half-written one
    assert [p.name for p in tmp_path.iterdir()] == ["run.jsonl"]  # no temporary file left


class _Failing:
    """Judgments that fail half-way through, as a full disk would."""

    def __init__(self, judgments: Any, fail: Callable[[], Any]) -> None:
        self._judgments, self._fail = list(judgments), fail

    def __iter__(self) -> Any:
        yield from self._judgments[:3]
        self._fail()


def test_header_extra_takes_only_the_command_lines_facts(tmp_path: Path) -> None:
    with pytest.raises(fairjudge.ConfigError, match="header_extra"):
        _pairs().save(tmp_path / "x.jsonl", header_extra={"judge": "someone else"})
    assert not (tmp_path / "x.jsonl").exists()


def test_no_key_is_written(tmp_path: Path, openai_env: JudgeServer) -> None:
    key = openai_env.api_key
    assert key is not None
    openai_env.configure(reply_format="Your key is {key}.\n[[{verdict}]]")
    items = [{"question": "q", "answer_1": "a", "answer_2": "b"}]
    result = fairjudge.compare(
        items, "openai/m", template="explain", backend={"base_url": openai_env.base_url},
        store=str(tmp_path / "s.sqlite"), options=QUIET,
    )  # fmt: skip
    path = result.save(
        tmp_path / "out.jsonl", header_extra={"command": ["fairjudge", "compare", key]}
    )
    text = path.read_text("utf-8")
    assert key not in text
    assert out_header(path)["settings"]["request"]["params"]  # what the request carried
    assert json.loads(text.split("\n")[1])["calls"][0]["raw"].startswith("Your key is ***.")


def test_a_comparison_via_scores_saves_its_file(tmp_path: Path) -> None:
    from fairjudge._api import EvalSettings, via_scores
    from fairjudge.io import load_items
    from fairjudge.prompts import get_rubric

    items = load_items(EXAMPLES / "calibration.jsonl").items
    done = via_scores(
        "python:fairjudge.examples.judges:scorer", items, EvalSettings(seed=3),
        setup=fairjudge.JudgeSetup(options=QUIET), rubric=get_rubric("production"),
    )  # fmt: skip
    path = done.save(tmp_path / "via.jsonl")
    header = out_header(path)
    assert header["kind"] == "compare-via-scores"
    assert header["rubric"] == "production@1"
    assert header["settings"]["seed"] == 3
    assert len(out_records(path)) == len(items) == 24
