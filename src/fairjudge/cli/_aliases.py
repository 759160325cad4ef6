"""Argument and option types that several commands share, as ``Annotated`` aliases."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["PairsFile", "SummaryJson"]

PairsFile = Annotated[
    Path, typer.Argument(help="JSONL, CSV or Parquet with question, answer_1, answer_2.")
]
"""The input file of a pairwise command."""

SummaryJson = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
"""``--json``: print the summary as JSON."""
