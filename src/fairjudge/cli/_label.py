"""``fairjudge label FILE`` and ``fairjudge label-merge A B --out C``: human labels.

``label`` serves a page on 127.0.0.1 where a person labels each pair blind (the
sides drawn per item from a recorded seed, the systems' names hidden), by keyboard:
``1`` left, ``2`` right, ``t`` tie, ``u`` or Backspace undo, the arrows move. Each
label is written into FILE's ``human`` column (``1``/``2``/``tie``, about model 1
and model 2 whatever side they were shown on) before the page says it is saved, so
a crash loses nothing and the same command continues where it stopped. ``fairjudge
calibrate FILE`` reads the result directly. The page, its security and the file's
writing: :mod:`fairjudge.report._label_server`, :mod:`fairjudge.io._labels`.

A file of single answers (an ``answer`` column, no ``answer_1``/``answer_2``) is
scored on the dimensions of ``--rubric`` instead, into ``human_<dimension>``
(:class:`fairjudge.io.ScoreSheet`); ``calibrate --rubric`` reads those.

``label-merge`` puts two labellers' files of the same items together and reports
their agreement: Cohen's kappa with its interval for pairs
(:mod:`fairjudge.audit._label_merge`); for score sheets, told apart by their columns
as ``label`` does, per dimension Krippendorff's alpha, Spearman and Kendall with
their intervals (``--rubric``, ``--tolerance``; :mod:`fairjudge.audit._score_label_merge`).
Disagreements stay in the merged file, never resolved.

Exit codes: 130 when Ctrl-C stops the page's server (as for every interrupted
command; every label given is already in the file), 0 when the files merged, 2 for
bad input (a file of another format, an invalid row, a seed other than the
recorded one, files of different items, a port in use), naming the file and line.
"""

import webbrowser
from pathlib import Path
from typing import Annotated, Any

import typer

from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, guarded, say
from fairjudge.cli._flags import check_writable
from fairjudge.cli._options import Bootstrap, Level
from fairjudge.io import (
    Columns,
    LabelSheet,
    ScoreSheet,
    is_pointwise_file,
    order_path,
    read_sheet_rows,
    strict_dumps,
)
from fairjudge.prompts import DEFAULT_RUBRIC, Rubric, get_rubric

__all__ = ["label", "label_merge"]

_File = Annotated[
    Path,
    typer.Argument(
        metavar="FILE",
        help="A JSONL or CSV file: question, answer_1, answer_2 (id optional); the labels "
        "are written into its human column as they are given.",
    ),
]
_Seed = Annotated[
    int | None,
    typer.Option(
        help="Seed of the sides shown. [default: the one recorded in FILE.label.json, "
        "else a new one, recorded there]"
    ),
]
_Port = Annotated[int, typer.Option(help="Port on 127.0.0.1, 0-65535 (0: any free port).")]
_Json = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print the page's address, seed and progress as one JSON object on stdout "
        "(instead of the bare address); errors as JSON too.",
    ),
]
_Open = Annotated[
    bool, typer.Option("--open/--no-open", help="Open the page in the default browser.")
]
_HumanCol = Annotated[str, typer.Option(help="Pairs: the column the labels are written to.")]
_Rubric = Annotated[
    str | None,
    typer.Option(
        help="Files with an answer column (no answer_1/answer_2): the rubric whose "
        "dimensions are scored into human_<dimension> (a name or .toml). "
        f"[default: {DEFAULT_RUBRIC}]"
    ),
]


def _open(
    file: Path, seed: int | None, human_col: str, rubric: str | None
) -> tuple[LabelSheet | ScoreSheet, Rubric | None]:
    """The sheet FILE's columns call for: pairs, or answers scored on a rubric."""
    if not is_pointwise_file(file):
        if rubric is not None:
            read_sheet_rows(file)  # standard input, a missing file...: said as such, not pairs
            raise ConfigError(
                "--rubric applies to files of single answers (an 'answer' column); "
                f"{file} holds pairs (answer_1/answer_2): leave --rubric out"
            )
        return LabelSheet.open(file, seed=seed, columns=Columns(human=human_col)), None
    if human_col != "human":
        raise ConfigError("--human-col applies to pairs; scores go to human_<dimension> columns")
    chosen = get_rubric(rubric or DEFAULT_RUBRIC)
    sheet = ScoreSheet.open(file, dimensions=chosen.names, scale=chosen.scale, seed=seed)
    return sheet, chosen


@app.command()
@guarded
def label(
    file: _File,
    seed: _Seed = None,
    port: _Port = 0,
    open_page: _Open = True,
    human_col: _HumanCol = "human",
    rubric: _Rubric = None,
    json_output: _Json = False,
) -> None:
    """Label pairs blind in a local web page; each label is saved into FILE as it is given.

    Keys: 1 left is better, 2 right is better, t tie, u or Backspace undo, arrows
    move. A file of single answers is scored on a rubric's dimensions instead: a
    number key scores the highlighted dimension, up and down move between them.
    Ctrl-C stops the server; the same command continues where it stopped.
    """
    from fairjudge.report import LabelServer  # here: --help needs no page machinery

    LabelServer.check_port(port)  # before _open writes FILE's order file: a refusal leaves nothing
    sheet, chosen = _open(file, seed, human_col, rubric)
    server = LabelServer(sheet, port, rubric=chosen)  # a port in use is a usage error
    total = len(sheet.items)
    say("labelling page", server.url, style="green")
    say("order", f"seed {sheet.seed}, recorded in {order_path(file)}", style="green")
    say("progress", f"{sheet.done} of {total} labelled; Ctrl-C stops (nothing is lost)")
    if json_output:
        typer.echo(strict_dumps({"url": server.url, "file": str(file), "seed": sheet.seed,
                                 "order_file": str(order_path(file)), "labelled": sheet.done,
                                 "items": total}))  # fmt: skip
    else:
        typer.echo(server.url)
    if open_page:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    say("saved", f"{sheet.done} of {total} items labelled in {file}", style="green")


_MergeRubric = Annotated[
    str | None,
    typer.Option(
        "--rubric",
        help="Score sheets (an answer column, human_<dimension> scores): the rubric both "
        "scored against, whose dimensions and scale are checked (a name or .toml). "
        f"[default: {DEFAULT_RUBRIC}]",
    ),
]
_Tolerance = Annotated[
    float,
    typer.Option(
        help="Score sheets: scores at most this many points apart agree, and merge to "
        "their mean (0: equal scores only)."
    ),
]


@app.command("label-merge")
@guarded
def label_merge(
    a: Annotated[Path, typer.Argument(metavar="A", help="One labeller's file.")],
    b: Annotated[Path, typer.Argument(metavar="B", help="The other's, of the same items.")],
    out: Annotated[
        Path,
        typer.Option(
            help="The merged file (.jsonl or .csv). Pairs: human holds the agreed label, "
            "label_a/label_b each labeller's, labels_agree whether they agree. Scores: "
            "human_<dimension> the agreed score, <dimension>_a/_b/_agree likewise."
        ),
    ],
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap intervals.")] = 0,
    bootstrap: Bootstrap = 2000,
    level: Level = 0.95,
    human_col: Annotated[str, typer.Option(help="Pairs: the column holding the labels.")] = (
        "human"
    ),
    rubric: _MergeRubric = None,
    tolerance: _Tolerance = 0.0,
    json_output: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Merge two labellers' files of the same items, with their agreement.

    Pairs (answer_1/answer_2, a human column): Cohen's kappa. Score sheets (an answer
    column, human_<dimension> scores, as label --rubric writes): per dimension
    Krippendorff's alpha (ordinal), Spearman and Kendall, each with its interval.
    Disagreements are kept: the merged human column is empty there, and each
    labeller's label or score stays beside it for a third person to settle.
    """
    check_writable(out, "--out", inputs=(a, b))
    boot: dict[str, Any] = {"seed": seed, "n_resamples": bootstrap, "level": level}
    if is_pointwise_file(a) or is_pointwise_file(b):
        report, text, said = _merge_scores(a, b, out, human_col, rubric, tolerance, boot)
    else:
        if rubric is not None or tolerance != 0:
            for sheet in (a, b):  # standard input, a missing file...: said as such, not pairs
                read_sheet_rows(sheet)
            raise ConfigError(
                f"--rubric and --tolerance apply to score sheets (an 'answer' column); {a} "
                f"and {b} hold pairs (answer_1/answer_2): leave them out"
            )
        from fairjudge.audit import merge_labels  # here: --help needs no statistics stack

        merged = merge_labels(a, b, out, columns=Columns(human=human_col), **boot)
        report, text = merged.to_dict(), merged.summary()
        said = (
            f"{merged.agreed} agreed labels in its human column; "
            f"{len(merged.disagreements)} to settle"
        )
    typer.echo(strict_dumps(report, indent=2) if json_output else text)
    say("merged", f"{out} ({said})", style="green")


def _merge_scores(
    a: Path, b: Path, out: Path, human_col: str, rubric: str | None, tolerance: float,
    boot: dict[str, Any],
) -> tuple[dict[str, Any], str, str]:  # fmt: skip
    """Two score sheets merged: the JSON, the summary and the closing note.

    The flag that applies to pairs only is refused here; the library checks the rest
    (a tolerance off the rubric's scale), named as the flags (``cli/_flags.py``).
    """
    if human_col != "human":
        raise ConfigError(
            "--human-col applies to pairs; score sheets' labels are their human_<dimension> "
            "columns: leave --human-col out"
        )
    from fairjudge.audit import merge_score_labels  # here: --help needs no statistics stack

    chosen = get_rubric(rubric or DEFAULT_RUBRIC)
    merged = merge_score_labels(a, b, out, rubric=chosen, tolerance=tolerance, **boot)
    agreed = sum(d.agreed for d in merged.dimensions)
    said = (
        f"{agreed} agreed scores in its human_<dimension> columns; "
        f"{len(merged.disagreements)} to settle"
    )
    return merged.to_dict(), merged.summary(), said
