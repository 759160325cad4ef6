"""The options of ``--stop-when``: adaptive stopping, apart from the commands.

``compare`` (``--via-scores`` too) and ``jury`` declare them in their signatures,
so they are imported with them, even for ``--help``: this module imports nothing
but Typer. The stop rule is read (:meth:`StopFlags.rule`) and handed to the
library (``fairjudge.compare(stop_when=...)``, with ``judges=`` for a panel, and
``compare --via-scores``'s run) only when ``--stop-when`` is given; without it each
command runs exactly as it always has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from fairjudge._errors import ConfigError
from fairjudge.cli._options import adds_flags

if TYPE_CHECKING:
    from fairjudge.stats import Population, StopRule

__all__ = ["StopFlags", "stop_flags"]


@dataclass(frozen=True, slots=True)
class StopFlags:
    """The options of ``--stop-when`` (``compare``, ``jury``)."""

    stop_when: Annotated[
        list[str] | None,
        typer.Option(
            metavar="RULE",
            help="Judge questions in a seeded random order, batch by batch, and stop once "
            "'decided' (the anytime-valid interval for model 1's win rate excludes 0.5) or "
            "'width:W' (its half-width is at most W). Repeat it or comma-separate for both; "
            "the first met stops the run.",
        ),
    ] = None
    batch: Annotated[
        int | None,
        typer.Option(
            help="With --stop-when: questions judged between two looks at the interval. "
            "[default: one wave of --concurrency calls, at least 8 questions]"
        ),
    ] = None
    population: Annotated[
        str | None,
        typer.Option(
            metavar="source|file",
            help="With --stop-when: what the interval and the decision are about. 'source': "
            "questions like these, the population the file's questions are drawn from (the "
            "same question the bootstrap CI answers). 'file': this file's questions only; "
            "the interval then shrinks to the file's own win rate at its end, and every "
            "line says it describes this file only. [default: source]",
        ),
    ] = None

    def requested(self, *, with_swap: bool = False) -> bool:
        """Whether ``--stop-when`` was given.

        Raises:
            ConfigError: ``--batch`` or ``--population`` without ``--stop-when``, or
                ``--stop-when`` with ``--via-scores --with-swap`` (not supported yet).
        """
        if self.batch is not None and self.stop_when is None:
            raise ConfigError(
                "--batch applies with --stop-when only (it sets how many questions are "
                "judged between two looks); add --stop-when, or drop --batch"
            )
        if self.population is not None and self.stop_when is None:
            raise ConfigError(
                "--population applies with --stop-when only (it says what the adaptive "
                "interval is about); add --stop-when, or drop --population"
            )
        if self.stop_when is not None and with_swap:
            raise ConfigError(
                "--stop-when does not apply to --via-scores --with-swap yet: the swap "
                "protocol beside the scores would judge the whole file; drop --stop-when, "
                "or --with-swap"
            )
        return self.stop_when is not None

    def rule(self) -> StopRule:
        """The stop rule, read and checked before any judge is opened.

        Raises:
            ConfigError: A malformed ``--stop-when``, a ``--batch`` below 1 or a
                ``--population`` other than ``source`` or ``file``, named.
        """
        from fairjudge.stats import StopRule

        if self.batch is not None and self.batch < 1:
            raise ConfigError(f"--batch must be a whole number of questions >= 1; got {self.batch}")
        population = None if self.population is None else self.population.strip().lower()
        if population not in (None, "source", "file"):
            raise ConfigError(
                f"--population must be 'source' (questions like these: the population the "
                f"file's questions are drawn from) or 'file' (this file only); "
                f"got {self.population!r}"
            )
        about: Population | None = None
        if population is not None:
            about = "file" if population == "file" else "source"
        return StopRule.parse(self.stop_when or [], about)


stop_flags = adds_flags(StopFlags, "stop")
"""Add the ``--stop-when`` options to a command, as its ``stop`` argument."""
