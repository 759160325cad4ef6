"""The run-facts card every page shows, the same for every kind of run.

The card answers "what run is this?": the command line, the judge (or the jury's
members), the template or rubric, the bootstrap seed, the calls made and served from
the store, the cost, and the fairjudge version that ran it. A page built from a
``--out`` file reads them from its header record (:class:`~fairjudge.io.OutHeader`)
and its records; a page written by the command itself (``--html``) passes what the
live run knows. A value that neither recorded says "not recorded", never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence

from fairjudge._version import __version__
from fairjudge.io import OutHeader

__all__ = ["NOT_RECORDED", "run_facts"]

NOT_RECORDED = "not recorded"
_MEMBER_KINDS = ("jury", "score-jury")


def _joined(value: str | Sequence[str] | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return ", ".join(value) if value else None


def run_facts(
    header: OutHeader | None,
    *,
    kind: str,
    command: Sequence[str] | None = None,
    judge_or_members: str | Sequence[str] | None = None,
    template_or_rubric: str | None = None,
    seed: int | None = None,
    calls_made: int | None = None,
    calls_cached: int | None = None,
    cost: float | None = None,
    version: str | None = None,
    extra: Sequence[tuple[str, str]] = (),
) -> tuple[tuple[str, str], ...]:
    """The card's ``(label, value)`` rows; a keyword given wins over the header's value.

    Args:
        header: The ``--out`` file's header; ``None`` for a live run or an old file.
        kind: The kind of run (``score``, ``audit``, ``jury``, ``score-jury``).
        command: The command line (the header's when not given).
        judge_or_members: The judge's name, or the jury's member names.
        template_or_rubric: ``name@version`` of the template or the rubric.
        seed: The bootstrap seed (the header's ``settings.seed`` when not given).
        calls_made: Calls sent to a backend (or a Python judge) in the run.
        calls_cached: Calls served from the store at no cost.
        cost: The estimated cost in US dollars, when prices were known.
        version: The fairjudge version that ran it (this one, for a live run).
        extra: More rows, after the others (the mode, the aggregate, ...).
    """
    line = command if command is not None else (header.command if header else ())
    who = _joined(judge_or_members) or (header.judge if header else None)
    recipe = template_or_rubric
    recipe_label = "rubric" if kind in ("score", "score-jury") else "template"
    if recipe is None and header is not None:
        recipe = header.rubric or header.template
        recipe_label = "rubric" if header.rubric else "template"
    if seed is None and header is not None and isinstance(header.settings.get("seed"), int):
        seed = header.settings["seed"]
    if version is None:
        version = header.version if header is not None else __version__
    calls = NOT_RECORDED
    if calls_made is not None or calls_cached is not None:
        calls = f"{calls_made or 0} made, {calls_cached or 0} cached"
    rows = [
        ("command", " ".join(line) if line else NOT_RECORDED),
        ("members" if kind in _MEMBER_KINDS else "judge", who or NOT_RECORDED),
        (recipe_label, recipe or NOT_RECORDED),
        ("seed", NOT_RECORDED if seed is None else str(seed)),
        ("calls", calls),
        ("cost", NOT_RECORDED if cost is None else f"${cost:.4f} (estimated)"),
        ("fairjudge", version or NOT_RECORDED),
    ]
    return (*rows, *extra)
