"""``rank`` and ``calibrate`` say where their ``--out`` and ``--html`` files went.

``compare``, ``jury``, ``score`` and ``score-jury`` end with "per-item results: FILE"
and "HTML report: FILE"; ``rank`` named only its page and ``calibrate`` neither, so a
run's output did not say where its files were.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "src/fairjudge/examples"


RUNS = {
    "compare": ("demo_pairs.jsonl", "longer"),
    "rank": ("rank_answers.jsonl", "longer"),
    "calibrate": ("calibration.jsonl", "knows_facts"),
}


def _written(command: str, folder: Path) -> tuple[str, Path, Path]:
    """Run ``command`` on its example with ``--out`` and ``--html`` in ``folder``."""
    items, judge = RUNS[command]
    out, html = folder / f"{command}.jsonl", folder / f"{command}.html"
    result = CliRunner().invoke(app, [
        command, str(EXAMPLES / items), "--judge", f"python:fairjudge.examples.judges:{judge}",
        "--bootstrap", "50", "--out", str(out), "--html", str(html),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output, out, html


def test_rank_and_calibrate_name_their_files(tmp_path: Path) -> None:
    for command in ("rank", "calibrate"):
        output, out, html = _written(command, tmp_path)
        text = "".join(output.split())
        assert f"per-itemresults:{out}" in text, command
        assert f"HTMLreport:{html}" in text, command


def test_a_long_path_is_said_on_one_line(tmp_path: Path) -> None:
    # The console wraps at its width (80 columns when stderr is not a terminal), and a
    # path longer than the line was cut in two ("out.jso" / "nl"): a path the user
    # copies from the output must be whole.
    folder = tmp_path / ("a_folder_with_a_long_name_" * 4)
    folder.mkdir()
    for command in RUNS:
        output, out, html = _written(command, folder)
        lines = output.splitlines()
        assert f"per-item results: {out}" in lines, command
        assert f"HTML report: {html}" in lines, command
