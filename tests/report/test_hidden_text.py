"""Hidden characters in untrusted text: shown as ``⟨U+XXXX⟩``, never drawn live.

A bidi override in a model name (``a\u202egnp.exe`` drawn as ``aexe.png``), a
zero-width space in an answer or an ESC in a server's message must not change what
a report shows: the HTML page and the terminal tables show a visible marker instead,
while ``--json`` and ``--out`` keep the exact values.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.report._page import script_json
from fairjudge.report._text import is_hidden, markup, say, visible, visible_all
from tests.out_file import out_records
from tests.report import pages
from tests.report._data import MODEL_1, MODEL_2, bidi_rows, write_rows

runner = CliRunner()
HIDDEN_JUDGE = "python:tests.report.judges:hidden"
ROOT = Path(__file__).resolve().parents[2]

BIDI = [*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A)), "\u200e", "\u200f",
        "\u061c"]  # fmt: skip
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\U000e0001",
             "\U000e0041", "\U000e007f", "\ufff9"]  # fmt: skip
CONTROLS = [*(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r"), *map(chr, range(0x7F, 0xA0))]
ALL_FORMAT = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
PLAIN = [
    "plain ASCII, [brackets] and <tags>",
    "مرحبا بالعالم",  # Arabic letters: right-to-left text, not controls
    "שלום עולם 123",  # Hebrew
    "سلام دنیا",  # Persian
    "漢字かなカナ 한국어",
    "e\u0301 n\u0303 combining marks, \u00a0no-break space, emoji 😀",
    "line\nbreaks\tand tabs\r\n",
]


def marker(char: str) -> str:
    return f"\u27e8U+{ord(char):04X}\u27e9"


def hidden_in(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text if is_hidden(c)})


@pytest.mark.parametrize("char", BIDI + INVISIBLE + CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_each_bidi_format_and_control_character_is_shown_as_a_marker(char: str) -> None:
    assert is_hidden(char)
    assert visible(f"a{char}b") == f"a{marker(char)}b"
    assert visible(f"x\ny{char}") == f"x\ny{marker(char)}"  # past the first line too


def test_every_format_character_is_made_visible() -> None:
    assert len(ALL_FORMAT) > 150  # this Python's Unicode database: Cf is not empty
    text = "".join(ALL_FORMAT)
    assert visible(text) == "".join(marker(c) for c in ALL_FORMAT)
    assert hidden_in(visible(text)) == []


def test_a_long_line_is_looked_at_all_along() -> None:
    text = "x" * 5000 + "\u202e" + "\u00a0" * 3000 + "\u200b\ny" * 3
    assert visible(text) == "x" * 5000 + "⟨U+202E⟩" + "\u00a0" * 3000 + "⟨U+200B⟩\ny" * 3
    assert json.loads(script_json([text])) == [text]
    assert hidden_in(script_json([text])) == []


@pytest.mark.parametrize("text", PLAIN)
def test_text_without_hidden_characters_is_untouched(text: str) -> None:
    assert visible(text) == text
    assert hidden_in(text) == []


@given(st.text())
def test_visible_leaves_nothing_hidden_and_is_idempotent(text: str) -> None:
    shown = visible(text)
    assert hidden_in(shown) == []
    assert visible(shown) == shown
    if not hidden_in(text):
        assert shown == text


def test_visible_all_reaches_every_string_in_a_view() -> None:
    @dataclass(frozen=True, slots=True)
    class Row:
        label: str
        value: float
        notes: tuple[str, ...]

    value = {"rows": [Row("a\u202eb", 1.5, ("c\u200bd",))], "k\u202e": ("e\x1bf", None, 3)}
    assert visible_all(value) == {
        "rows": [Row("a⟨U+202E⟩b", 1.5, ("c⟨U+200B⟩d",))],
        "k\u202e": ("e⟨U+001B⟩f", None, 3),  # keys are the program's own
    }


def test_terminal_helpers_show_markers_and_keep_brackets() -> None:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(markup("[bold]a\u202egnp.exe[/bold]"))
    say(console, "[red]b\u2066c\x1b[0m")
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert out == "[bold]a⟨U+202E⟩gnp.exe[/bold]\n[red]b⟨U+2066⟩c⟨U+001B⟩[0m\n"


def test_script_json_writes_hidden_characters_as_escapes() -> None:
    value = {"m": MODEL_1, "t": "tag\U000e0041 \u200b \x85 \x7f", "n": MODEL_2}
    text = script_json(value)
    assert hidden_in(text) == []
    assert "\\u202e" in text
    assert "\\udb40\\udc41" in text  # beyond the BMP: a surrogate pair, as JSON writes it
    assert json.loads(text) == value  # the exact values come back


@pytest.fixture
def bidi_items(tmp_path: Path) -> Path:
    return write_rows(tmp_path / "bidi.jsonl", bidi_rows())


def test_html_report_holds_no_raw_hidden_character(bidi_items: Path, tmp_path: Path) -> None:
    out, page = tmp_path / "out.jsonl", tmp_path / "bidi.html"
    result = runner.invoke(app, ["compare", str(bidi_items), "--judge", HIDDEN_JUDGE,
                                 "--out", str(out), "--html", str(page), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    html = page.read_text("utf-8")
    for char in ("\u202e", "\u2066", "\u200b"):
        assert char not in html
    assert hidden_in(html) == []
    # The headline names the models; the explorer's data and the failures show the markers.
    assert "model 1 is a⟨U+202E⟩gnp.exe, model 2 is b⟨U+2066⟩⟨U+200B⟩x⟨U+2069⟩" in html
    items = pages.records(page)
    first = items[0]
    facts, answers = dict(first["d"][0]["rows"]), first["d"][2]["two"]
    assert facts["models"] == "1: a⟨U+202E⟩gnp.exe, 2: b⟨U+2066⟩⟨U+200B⟩x⟨U+2069⟩"
    assert answers[1]["pre"] == "Open ⟨U+2066⟩it⟨U+2069⟩ ⟨U+200B⟩please"
    assert first["k"] == "r\u202e0"  # the permalink key stays exact (escaped in the source)
    assert "server said ⟨U+202E⟩on⟨U+202C⟩ ⟨U+200B⟩no ⟨U+001B⟩[2Jagain" in html
    # What is data stays exact: the embedded summary is --json's, and --out keeps every value.
    summary = json.loads(result.stdout)
    embedded = html.split('id="fj-summary">', 1)[1].split("</script>", 1)[0]
    assert json.loads(embedded) == summary
    records = out_records(out)
    assert [r["id"] for r in records] == [f"r\u202e{i}" for i in range(6)]
    assert records[0]["answer_2"] == "Open \u2066it\u2069 \u200bplease"


def test_rank_report_and_table_show_markers(tmp_path: Path) -> None:
    games = [(MODEL_1, MODEL_2, "model_a"), (MODEL_2, "c\u200fd", "model_b"),
             ("c\u200fd", MODEL_1, "tie"), (MODEL_1, MODEL_2, "model_b")]  # fmt: skip
    battles = [{"model_a": a, "model_b": b, "winner": w, "question_id": f"q{i}"}
               for i, (a, b, w) in enumerate(games)]  # fmt: skip
    source = write_rows(tmp_path / "battles.jsonl", battles)
    page = tmp_path / "rank.html"
    result = runner.invoke(app, ["rank", str(source), "--html", str(page), "--bootstrap", "50"])
    assert result.exit_code == 0, result.output
    assert hidden_in(result.stdout) == []
    assert "a⟨U+202E⟩gnp.exe" in result.stdout
    html = page.read_text("utf-8")
    assert hidden_in(html) == []
    assert '<th scope="row">a⟨U+202E⟩gnp.exe</th>' in html  # the leaderboard's table
    assert ">c⟨U+200F⟩d</tspan>" in html  # the forest plot's label


def test_score_tables_show_markers(tmp_path: Path) -> None:
    systems = [MODEL_1, MODEL_2]
    rows = [{"id": f"q{i // 2}", "question": f"Q{i // 2}?", "answer": "abcde"[i % 5] + " answer",
             "system": systems[i % 2]} for i in range(12)]  # fmt: skip
    source = write_rows(tmp_path / "s\u202ecore.jsonl", rows)
    result = runner.invoke(
        app, ["score", str(source), "--judge", "python:tests.scorers:spread"],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert hidden_in(result.stdout) == []
    assert "s⟨U+202E⟩core.jsonl: rubric" in result.stdout
    assert " a⟨U+202E⟩gnp.exe " in result.stdout
    assert " b⟨U+2066⟩⟨U+200B⟩x⟨U+2069⟩ " in result.stdout


def fairjudge(*args: str, cwd: Path) -> tuple[int, str, str]:
    """Run the ``fairjudge`` command as a separate process; its exit code, stdout, stderr."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TERM", "COLUMNS")}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env |= {"NO_COLOR": "1", "COLUMNS": "160", "PYTHONPATH": path, "PYTHONUTF8": "1"}
    code = "import sys; from fairjudge.cli import main; sys.argv[0] = 'fairjudge'; main()"
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=cwd, env=env, timeout=300)  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_compare_table_in_a_terminal_holds_no_raw_control(tmp_path: Path) -> None:
    # The file name is the table's title; the judge's failure carries overrides and an ESC.
    source = write_rows(tmp_path / "a\u202elnosj.jsonl", bidi_rows())
    code, stdout, stderr = fairjudge("compare", source.name, "--judge", HIDDEN_JUDGE, cwd=tmp_path)
    assert code == 0, stderr
    assert "win rate of model 1" in stdout
    assert hidden_in(stdout) == []
    assert "a⟨U+202E⟩lnosj.jsonl: model 1 vs model 2" in stdout
    assert "server said ⟨U+202E⟩on⟨U+202C⟩ ⟨U+200B⟩no ⟨U+001B⟩[2Jagain" in stdout
