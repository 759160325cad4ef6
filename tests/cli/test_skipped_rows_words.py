"""Every judging command shows a skipped row in its flags: stderr, ``--json`` and the page.

The reader words the row's message where it makes it (``LoadedItems.skipped_records``),
so no command rewords it after the run. Before, ``score --json`` and the ``compare`` and
``score`` pages said ``allow_empty=True`` where the rest said ``--allow-empty``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_process import fairjudge

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
J = "python:fairjudge.examples.judges:"
ADVICE = "is empty; fill it in, or pass --allow-empty to judge empty answers as they are"

COMMANDS = {
    "compare": ("pairs", "compare", "--judge", J + "longer"),
    "jury": ("pairs", "jury", "--judge", J + "longer", "--judge", J + "knows_facts"),
    "calibrate": ("pairs", "calibrate", "--judge", J + "knows_facts", "--min-kappa", "0"),
    "via-scores": ("pairs", "compare", "--via-scores", "--judge", J + "scorer"),
    "score": ("answers", "score", "--judge", J + "scorer"),
    "score-jury": ("answers", "score-jury", "--judge", J + "scorer", "--judge", J + "scorer"),
}
# calibrate on the demo's labels, all "2": no evidence about the judge, exit 7 (QA 38 #4).
EXIT = {"calibrate": 7}


def _input(tmp_path: Path, kind: str) -> Path:
    """The example file of ``kind`` with one more row, whose answer is empty."""
    if kind == "pairs":
        text = (EXAMPLES / "demo_pairs.jsonl").read_text(encoding="utf-8")
        bad = {"id": "bad", "question": "Q?", "answer_1": "", "answer_2": "x", "human": "1"}
    else:
        text = (EXAMPLES / "score_answers.jsonl").read_text(encoding="utf-8")
        bad = {"question": "Q?", "answer": ""}
    path = tmp_path / "in.jsonl"
    path.write_text(text.rstrip("\n") + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_skipped_row_names_the_flag_everywhere(tmp_path: Path, name: str) -> None:
    kind, *args = COMMANDS[name]
    path = _input(tmp_path, kind)
    line = len(path.read_text(encoding="utf-8").splitlines())
    page = tmp_path / "page.html"
    done = fairjudge(*args[:1], path, *args[1:], "--skip-invalid", "--json", "--html", page)
    assert done.returncode == EXIT.get(name, 0), done.stderr
    assert f"in.jsonl:{line}: " in done.stderr
    assert ADVICE in done.stderr
    [skipped] = json.loads(done.stdout)["skipped_rows"]
    assert skipped == {"source": str(path), "line": line, "message": skipped["message"]}
    assert skipped["message"].endswith(ADVICE)
    html = page.read_text(encoding="utf-8")
    if name != "via-scores":  # the via-scores page lists no skipped rows (yet)
        assert ADVICE in html
    assert "allow_empty" not in done.stdout + done.stderr + html
