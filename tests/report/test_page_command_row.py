"""The run-facts card's command row breaks between arguments, never inside a flag.

A browser may break a line after any hyphen: at 390 px the row drew "--" at one
line's end and "bootstrap" at the next. Each argument is its own box now; only one
longer than the line (a path) wraps inside itself, and the page still fits the phone.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fairjudge.report._page import NOT_RECORDED, _args_of
from tests.report.conftest import OpenReport
from tests.report.pages import WIDTHS, assert_sound, open_at

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"

# Per argument of the command row: its text, the lines it is drawn on, its width kept
# on one line, and the row's width: an argument on two lines must be wider than the row.
ARGS = """() => {
  const dd = [...document.querySelectorAll('#fj-run dt')]
    .find(dt => dt.textContent === 'command').nextElementSibling;
  return [...dd.children].map(span => {
    const range = document.createRange();
    range.selectNodeContents(span);
    const drawn = new Set([...range.getClientRects()].map(r => Math.round(r.bottom))).size;
    span.style.whiteSpace = 'nowrap';
    const whole = span.getBoundingClientRect().width;
    span.style.whiteSpace = '';
    return {text: span.textContent, lines: drawn, whole: whole, row: dd.clientWidth,
            text_of_row: dd.textContent};
  });
}"""


def test_only_the_command_row_is_split_into_its_arguments() -> None:
    assert _args_of("command", "fairjudge compare a.jsonl --html") == [
        "fairjudge", "compare", "a.jsonl", "--html",
    ]  # fmt: skip
    assert _args_of("command", NOT_RECORDED) is None
    assert _args_of("source", "a b.jsonl") is None


# The script's name, as a shell runs it: the header records the command line typed.
_AS_TYPED = "import sys; sys.argv[0] = 'fairjudge'; from fairjudge.cli import main; main()"


@pytest.fixture(scope="module")
def long_command(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A compare page whose command holds long paths and many flags."""
    folder = tmp_path_factory.mktemp("run") / "a-rather-long-directory-name" / "nested-inside"
    folder.mkdir(parents=True)
    pairs = folder / "demo-pairs-file.jsonl"
    pairs.write_bytes((EXAMPLES / "demo_pairs.jsonl").read_bytes())
    page = folder / "page.html"
    subprocess.run(
        [sys.executable, "-c", _AS_TYPED, "compare", str(pairs),
         "--judge", "python:fairjudge.examples.judges:longer", "--seed", "7",
         "--bootstrap", "300", "--html", str(page), "--out", str(folder / "out.jsonl"), "-q"],
        capture_output=True, check=True,
    )  # fmt: skip
    return page


@pytest.mark.parametrize("width", WIDTHS)
def test_the_command_wraps_between_arguments_only(
    long_command: Path, open_report: OpenReport, width: int
) -> None:
    opened = open_at(open_report, long_command, width)
    assert_sound(opened)  # no sideways scroll at 390 px either
    args = opened.page.evaluate(ARGS)
    assert [a["text"] for a in args][:2] == ["fairjudge", "compare"]
    out = long_command.parent / "out.jsonl"
    assert args[0]["text_of_row"].endswith(f"--out {out} -q")  # the text as recorded
    for flag in ("--bootstrap", "--html", "--out", "--judge", "--seed", "-q"):
        assert flag in [a["text"] for a in args]
    split = [a["text"] for a in args if a["lines"] > 1 and a["whole"] <= a["row"]]
    assert split == [], f"arguments that fit the row but are drawn on two lines: {split}"
    assert all(a["lines"] == 1 for a in args if a["text"].startswith("-"))
    opened.shot(f"command-row-{width}.png", full_page=False)
