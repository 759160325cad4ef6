"""``Result.to_html``: a notebook draws the page a command's ``--html`` draws.

Both read the page's run-facts card from the header ``Result.save`` writes, so the
two pages are the same file but for the command line, which only a command knows
(``header_extra``, as for ``save``). A comparison via scores too
(``ViaScoresRun.to_html``), and ``fairjudge report`` of its ``--out`` file draws its
``--html`` page again, under a built-in rubric or a rubric file's, with
``--with-swap`` or without.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge._errors import ConfigError
from fairjudge.examples.judges import longer, scorer
from tests.cli._invoke import invoke
from tests.score_server import answer_in, script
from tests.server import JudgeServer

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
QUIET = {"progress": "quiet"}
J = "python:fairjudge.examples.judges:"
RUNS: dict[str, tuple[str, str, Callable[[str], Any]]] = {
    "compare": ("demo_pairs.jsonl", "longer",
                lambda path: fairjudge.compare(path, longer, options=QUIET)),
    "rank": ("rank_answers.jsonl", "longer",
             lambda path: fairjudge.rank(path, longer, options=QUIET)),
    "score": ("score_answers.jsonl", "scorer",
              lambda path: fairjudge.score(path, scorer, options=QUIET)),
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_the_notebook_page_is_the_commands_but_for_the_command_line(
    kind: str, tmp_path: Path
) -> None:
    file, judge, run = RUNS[kind]
    path = str(EXAMPLES / file)
    page = tmp_path / "command.html"
    done = invoke(kind, path, "--judge", J + judge, "--html", str(page), "-q")
    assert done.exit_code == 0, done.output
    notebook = run(path).to_html(tmp_path / "notebook.html").read_text("utf-8")
    command = page.read_text("utf-8")
    assert f"<dt>command</dt>{_row('fairjudge', kind)}" in command
    assert f"<dt>judge</dt><dd>{J}{judge}</dd>" in command  # the header's judge
    assert _timeless(notebook) == _timeless(
        command.replace(_row("fairjudge", kind), "<dd>not recorded</dd>")
    )


def _row(*args: str) -> str:
    """The command row's value as a page draws it: each argument in its own box."""
    return '<dd class="fj-command">' + " ".join(f"<span>{a}</span>" for a in args) + "</dd>"


def _timeless(page: str) -> str:
    """The page without the calls' wall times its embedded ``--json`` holds (they vary)."""
    return re.sub(r'"(wall_s|mean_latency_s)":[-+.e0-9]+', r'"\1":0', page)


def test_header_extra_gives_the_page_its_command_line(tmp_path: Path) -> None:
    done = RUNS["compare"][2](str(EXAMPLES / "demo_pairs.jsonl"))
    page = done.to_html(tmp_path / "p.html", header_extra={"command": ["fairjudge", "compare",
                        "x.jsonl", "--base-url", "https://user:secret@host/v1"]})  # fmt: skip
    text = page.read_text("utf-8")
    masked = _row("fairjudge", "compare", "x.jsonl", "--base-url", "https://***@host/v1")
    assert masked in text
    assert "secret" not in text
    with pytest.raises(ConfigError, match="header_extra takes command, config, config_file"):
        done.to_html(tmp_path / "q.html", header_extra={"judge": "other"})


CALIBRATION = str(EXAMPLES / "calibration.jsonl")
HOUSE = """name = "house"
version = "3"
scale = [1, 5]
[[dimensions]]
name = "accuracy"
description = "Is it right?"
[[dimensions]]
name = "relevance"
description = "Does it answer the question?"
[[dimensions]]
name = "usefulness"
description = "Would it help?"
"""


def _via_page_and_drawn(tmp_path: Path, *args: str) -> tuple[str, str]:
    """``compare --via-scores ARGS --out --html``, then ``report`` of its ``--out``: both pages."""
    out, page, drawn = tmp_path / "via.jsonl", tmp_path / "via.html", tmp_path / "drawn.html"
    done = invoke("compare", *args, "--via-scores", "--out", str(out), "--html", str(page), "-q")
    assert done.exit_code == 0, done.output
    again = invoke("report", str(out), "-o", str(drawn))
    assert again.exit_code == 0, again.output
    return page.read_text("utf-8"), drawn.read_text("utf-8")


@pytest.mark.parametrize("rubric", ["production", "house"])
def test_via_scores_html_is_the_page_report_draws_from_its_out_file(
    rubric: str, tmp_path: Path
) -> None:
    """The page ``report`` draws is the ``--html`` one, byte for byte.

    Even its command row: a drawn page names the command the file's header records,
    the one that wrote it (``fairjudge compare``), not ``fairjudge report``. Under a
    rubric file's rubric too: the header records its dimensions and scale.
    """
    given = []
    if rubric == "house":
        (tmp_path / "house.toml").write_text(HOUSE, "utf-8")
        given = ["--rubric", str(tmp_path / "house.toml")]
    command, drawn = _via_page_and_drawn(tmp_path, CALIBRATION, "--judge", J + "scorer", *given)
    assert "<title>calibration.jsonl: model 1 vs model 2 · " in drawn  # the input's name
    assert f"<dt>command</dt>{_row('fairjudge', 'compare')}" in drawn
    tag = "production@1" if rubric == "production" else "house@3"
    assert f"<dt>rubric</dt><dd>{tag}</dd>" in drawn
    assert f"via scores on rubric {tag}" in drawn
    assert drawn == command


def _verdict_or_scores(prompt: str) -> str:
    """A pairwise prompt gets a verdict (the longer answer); a pointwise one, its length."""
    pair = re.search(r"<answer_a>\n(.*?)\n</answer_a>.*?<answer_b>\n(.*?)\n</answer_b>",
                     prompt, re.DOTALL)  # fmt: skip
    if pair is not None:
        a, b = len(pair.group(1)), len(pair.group(2))
        return "A" if a > b else "B" if b > a else "tie"
    level = min(5, 1 + len(answer_in(prompt)) // 10)
    return json.dumps(dict.fromkeys(("accuracy", "relevance", "usefulness"), level))


def test_with_swap_the_html_page_holds_both_protocols_and_report_draws_it_again(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    script(score_server, _verdict_or_scores)
    command, drawn = _via_page_and_drawn(
        tmp_path, CALIBRATION, "--with-swap", "--judge", "openai/scripted-judge",
        "--base-url", score_server.base_url, "--store", str(tmp_path / "s.sqlite"),
    )  # fmt: skip
    assert "<dt>swap protocol</dt><dd>template default@" in command
    assert "Swap protocol (conservative rule)" in command
    assert 'id="fj-position"' in command  # the swap run's position-bias card
    assert _timeless(drawn) == _timeless(command)


def test_the_notebook_via_scores_page_is_the_commands_but_for_the_command_line(
    tmp_path: Path,
) -> None:
    from fairjudge._api import EvalSettings, via_scores
    from fairjudge.io import load_items
    from fairjudge.prompts import get_rubric

    command, _ = _via_page_and_drawn(tmp_path, CALIBRATION, "--judge", J + "scorer")
    done = via_scores(J + "scorer", load_items(CALIBRATION).items,
                      EvalSettings(source=CALIBRATION), setup=fairjudge.JudgeSetup(options=QUIET),
                      rubric=get_rubric("production"))  # fmt: skip
    notebook = done.to_html(tmp_path / "notebook.html").read_text("utf-8")
    # The python: scorer's calls are counted, so the two runs' wall times differ.
    expected = command.replace(_row("fairjudge", "compare"), "<dd>not recorded</dd>")
    assert _timeless(notebook) == _timeless(expected)
    with pytest.raises(ConfigError, match="header_extra takes command, config, config_file"):
        done.to_html(tmp_path / "q.html", header_extra={"rubric": "other"})
