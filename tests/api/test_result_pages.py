"""``Result.to_html``: a notebook draws the page a command's ``--html`` draws.

Both read the page's run-facts card from the header ``Result.save`` writes, so the
two pages are the same file but for the command line, which only a command knows
(``header_extra``, as for ``save``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge._errors import ConfigError
from fairjudge.examples.judges import longer, scorer
from tests.cli._invoke import invoke

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
    assert f"<dt>command</dt><dd>fairjudge {kind}</dd>" in command
    assert f"<dt>judge</dt><dd>{J}{judge}</dd>" in command  # the header's judge
    assert _timeless(notebook) == _timeless(
        command.replace(f"<dd>fairjudge {kind}</dd>", "<dd>not recorded</dd>")
    )


def _timeless(page: str) -> str:
    """The page without the calls' wall times its embedded ``--json`` holds (they vary)."""
    return re.sub(r'"(wall_s|mean_latency_s)":[-+.e0-9]+', r'"\1":0', page)


def test_header_extra_gives_the_page_its_command_line(tmp_path: Path) -> None:
    done = RUNS["compare"][2](str(EXAMPLES / "demo_pairs.jsonl"))
    page = done.to_html(tmp_path / "p.html", header_extra={"command": ["fairjudge", "compare",
                        "x.jsonl", "--base-url", "https://user:secret@host/v1"]})  # fmt: skip
    text = page.read_text("utf-8")
    assert "<dd>fairjudge compare x.jsonl --base-url https://***@host/v1</dd>" in text  # masked
    assert "secret" not in text
    with pytest.raises(ConfigError, match="header_extra takes command, config, config_file"):
        done.to_html(tmp_path / "q.html", header_extra={"judge": "other"})
