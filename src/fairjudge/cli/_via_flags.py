"""The options of ``compare --via-scores``, apart from the command that runs them.

``compare`` declares them in its signature, so they are imported with it, even for
``compare --help``; the scoring machinery (:mod:`._via_scores`, with numpy and the
pointwise judge) is imported only when ``--via-scores`` is given.
"""

from dataclasses import dataclass
from typing import Annotated, Literal

import typer

from fairjudge._errors import ConfigError
from fairjudge._types import Resolution
from fairjudge.cli._options import EvalFlags, JudgeFlags, adds_flags
from fairjudge.prompts import DEFAULT_RUBRIC, Rubric, get_rubric

__all__ = ["ViaScoresFlags", "via_scores_flags"]

ScoreMode = Literal["json", "label"]
""":data:`fairjudge.judges.ScoreMode`, spelled out: importing it loads the pointwise
judge, which a plain ``compare`` never uses (a test keeps the two equal)."""


@dataclass(frozen=True, slots=True)
class ViaScoresFlags:
    """The options of ``compare --via-scores``."""

    via_scores: Annotated[
        bool,
        typer.Option(
            "--via-scores",
            help="Score each answer on its own against a rubric (one call per answer, so no "
            "order to prefer) and compare the two scores per item.",
        ),
    ] = False
    rubric: Annotated[
        str | None,
        typer.Option(help=f"With --via-scores: the rubric. [default: {DEFAULT_RUBRIC}]"),
    ] = None
    score_mode: Annotated[
        ScoreMode,
        typer.Option(
            help="With --via-scores: json, or label for probability-weighted scores where the "
            "judge gives logprobs (then used to compare)."
        ),
    ] = "json"
    tie_margin: Annotated[
        float,
        typer.Option(help="With --via-scores: a tie when the two scores differ by at most this."),
    ] = 0.0
    with_swap: Annotated[
        bool,
        typer.Option(
            "--with-swap",
            help="With --via-scores: run the swap protocol too, same model and session, "
            "and show both.",
        ),
    ] = False

    def requested(self) -> bool:
        """Whether ``--via-scores`` was given; its options without it are an error."""
        given = {"--rubric": self.rubric is not None, "--score-mode": self.score_mode != "json",
                 "--tie-margin": self.tie_margin != 0.0, "--with-swap": self.with_swap}  # fmt: skip
        flags = [flag for flag, on in given.items() if on]
        if flags and not self.via_scores:
            raise ConfigError(
                f"{flags[0]} applies with --via-scores only; add it, or drop {flags[0]}"
            )
        return self.via_scores

    def check(self, flags: JudgeFlags, run: EvalFlags) -> Rubric:
        """Reject what does not apply; the rubric."""
        if run.html is not None:
            raise ConfigError("--html does not apply to --via-scores; drop it")
        if not self.tie_margin >= 0:
            raise ConfigError(f"--tie-margin must be >= 0; got {self.tie_margin}")
        swap_only = {"--template": flags.template is not None, "--rounds": run.rounds != 2,
                     "--rule": run.rule is not Resolution.CONSERVATIVE,
                     "--no-balanced": not run.balanced}  # fmt: skip
        given = [flag for flag, on in swap_only.items() if on]
        if given and not self.with_swap:
            raise ConfigError(
                f"{given[0]} applies to the swap protocol; add --with-swap to run it beside "
                "--via-scores, or drop it"
            )
        if self.with_swap and (flags.judge or "").startswith("python:"):
            raise ConfigError(
                "--with-swap needs a model judge: a python: judge is either a pairwise or a "
                "pointwise function"
            )
        return get_rubric(self.rubric or DEFAULT_RUBRIC)


via_scores_flags = adds_flags(ViaScoresFlags, "via")
"""Add the ``--via-scores`` options to ``compare``, as its ``via`` argument."""
