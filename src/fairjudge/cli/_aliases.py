"""Argument and option types that several commands share, as ``Annotated`` aliases."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["ALLOW_PYTHON_ONLY_WITH_JURY", "AllowPythonJudges", "PairsFile", "SummaryJson"]

PairsFile = Annotated[
    Path,
    typer.Argument(metavar="FILE", help="JSONL, CSV or Parquet with question, answer_1, answer_2."),
]
"""The input file of a pairwise command."""

SummaryJson = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
"""``--json``: print the summary as JSON."""

AllowPythonJudges = Annotated[
    bool,
    typer.Option(
        "--allow-python-judges",
        help="Let the --jury file's python: members import and run the code they name. Off "
        "by default: a jury file may come from someone else. (--judge python:... needs no flag.)",
    ),
]
"""``--allow-python-judges``: a jury file may name Python code (``jury``, ``score-jury``)."""

AllowJuryServers = Annotated[
    bool,
    typer.Option(
        "--allow-jury-servers",
        help="Let the --jury file's base_url send your API key to a server off this machine. "
        "Off by default: a jury file may come from someone else. (Loopback needs no flag.)",
    ),
]
"""``--allow-jury-servers``: a jury file may name servers off this machine."""

ALLOW_SERVERS_ONLY_WITH_JURY = (
    "--allow-jury-servers applies with --jury FILE.toml only; --base-url given on the "
    "command line needs no flag"
)
"""The message for ``--allow-jury-servers`` without a jury file to apply to."""

ALLOW_PYTHON_ONLY_WITH_JURY = (
    "--allow-python-judges applies with --jury FILE.toml only; python: judges given with "
    "--judge run without it"
)
"""The message for ``--allow-python-judges`` without a jury file to apply to."""
