"""Exit 4's "the reasons are listed above" is true on the stream the user sees.

Without ``--json`` the line says the reasons are (listed) above. With ``--markdown -``
stdout holds the Markdown summary instead of the tables, and the tables are where
``compare``, ``compare --via-scores``, ``score``, ``jury`` and ``score-jury`` list
their reasons: nothing was listed, on stdout or stderr. Now, as ``calibrate`` has
done since a9763bd, the grouped reasons go to stderr beside ``--markdown -`` (stdout
stays one document). ``compare --via-scores --with-swap`` listed the scores' reasons
only, so a swap protocol's exit 4 pointed at nothing, with or without ``--markdown -``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli._invoke import invoke
from tests.cli.test_json_exit4_reasons import _PARTLY, here  # noqa: F401  (a fixture, by name)
from tests.cli.test_unresolved_json import _swap_fails_on_high_firsts, _swap_pairs
from tests.score_server import script
from tests.server import JudgeServer

LISTED = "the reasons, most common first:"
_COMMANDS = {
    **_PARTLY,
    "via-scores": ["compare", "calibration.jsonl", "--via-scores", "--judge",
                   "python:f4_silent:flaky_one"],
}  # fmt: skip
_MODES = {"text": [], "markdown -": ["--markdown", "-"]}


def _flat(text: str) -> str:
    """The text on one line: the terminal wraps stderr at its width."""
    return " ".join(text.split())


def _says_listed_above(done: Any) -> None:
    """The exit line points above, and the grouped reasons come before it, where seen."""
    err = _flat(done.stderr)
    line = err[err.index("too many unresolved items:") :]
    assert re.search(r"; the reasons are (listed )?above$", line), line
    seen = _flat(done.stdout) + " " + err[: err.index(line)]  # before the line
    assert re.search(rf"\d+ call\(s\) gave no verdict; {LISTED} \d+ x \S", seen), done.output


@pytest.mark.parametrize("mode", list(_MODES))
@pytest.mark.parametrize("name", [n for n in _COMMANDS if n != "calibrate-scores"])
@pytest.mark.usefixtures("here")
def test_the_reasons_the_line_points_at_are_listed(name: str, mode: str) -> None:
    """With ``--markdown -`` they were not, but for calibrate's and rank's (on stderr)."""
    args = [*_COMMANDS[name], "--max-unresolved", "0.1", "--bootstrap", "50", *_MODES[mode]]
    done = invoke(*args)
    assert done.exit_code == 4, done.output
    _says_listed_above(done)
    if mode == "markdown -":  # stdout: the Markdown alone, the reasons on stderr
        assert done.stdout.startswith("### fairjudge ")
        assert LISTED not in _flat(done.stdout)
        assert LISTED in _flat(done.stderr)


@pytest.mark.usefixtures("here")
def test_calibrate_on_scores_refuses_markdown() -> None:
    """No summary is drawn for it yet: refused before any call, so no exit 4 line."""
    done = invoke(*_PARTLY["calibrate-scores"], "--markdown", "-")
    assert done.exit_code == 2, done.output
    assert "--markdown does not draw calibrate on human scores yet" in _flat(done.stderr)


@pytest.mark.usefixtures("here")
def test_markdown_on_stdout_without_failures_says_no_reasons() -> None:
    """A run whose every call answered prints no reasons' heading on stderr either."""
    done = invoke("compare", "demo_pairs.jsonl", "--judge", "python:tests.judge_fixtures:longer",
                  "--markdown", "-")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "gave no verdict" not in done.output


@pytest.mark.parametrize("mode", list(_MODES))
def test_with_swap_lists_the_swap_protocols_reasons(
    score_server: JudgeServer, tmp_path: Path, mode: str
) -> None:
    """The swap protocol's exit 4 says "listed above": its reasons were not, in any mode."""
    script(score_server, _swap_fails_on_high_firsts)
    done = invoke(
        "compare", _swap_pairs(tmp_path), "--via-scores", "--with-swap", "--judge",
        "openai/scripted-judge", "--base-url", score_server.base_url, "--quiet",
        "--store", str(tmp_path / "s.sqlite"), "--bootstrap", "50", *_MODES[mode],
    )  # fmt: skip
    assert done.exit_code == 4, done.output
    _says_listed_above(done)
    said = _flat(done.stdout if mode == "text" else done.stderr)
    listed = rf"4 call\(s\) gave no verdict; {LISTED} 4 x swap protocol: parse failure: "
    assert re.search(listed, said), said


@pytest.mark.parametrize("mode", [*_MODES, "--json"])
@pytest.mark.usefixtures("here")
def test_ranks_line_counts_pairs_as_its_output_does(mode: str) -> None:
    """rank's line said "36 of 96 items" beside its "unresolved: 36 pair(s)"."""
    more = _MODES.get(mode, [mode])
    done = invoke(*_COMMANDS["rank"], "--max-unresolved", "0.1", "--bootstrap", "20", *more)
    assert done.exit_code == 4, done.output
    err = _flat(done.stderr)
    assert "unresolved: 36 pair(s) (0 parse failures, 72 call errors)" in err
    assert "too many unresolved items: 36 of 96 pairs have no verdict (38% >" in err
    if mode == "--json":  # its keys are unchanged
        assert json.loads(done.stdout)["too_many_unresolved"]["n_items"] == 96
    compared = invoke(*_COMMANDS["compare"], "--max-unresolved", "0.1", *more)
    assert "4 of 20 items have no verdict" in _flat(compared.stderr)  # compare's: items
