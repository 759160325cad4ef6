"""What ``compare`` and ``calibrate`` share: load items, judge them, keep the results."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from fairjudge._api import PairwiseResult
from fairjudge._errors import ConfigError
from fairjudge._items import Item, Judgment
from fairjudge.cli._app import EXIT_BUDGET, EXIT_UNRESOLVED, in_flags, say, skipped_in_flags
from fairjudge.cli._options import EvalFlags, InputFlags, JudgeFlags
from fairjudge.cli._out import write_out
from fairjudge.io import LoadedItems, OutKind, load_items
from fairjudge.judges import BatchJudge, calls_no_model, judge_name
from fairjudge.prompts import get_template
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge._api import AdaptiveResult
    from fairjudge.cli._stop_flags import StopFlags

__all__ = [
    "Judged",
    "check_unresolved",
    "close_judge",
    "judge_file",
    "last_run",
    "load_input",
    "unresolved_exit",
]


@dataclass(frozen=True, slots=True)
class Judged:
    """What judging a file produced: the result, the calls' summary, the skipped rows.

    ``adaptive`` is the adaptive run (``--stop-when``), whose ``pairwise`` is ``result``.
    """

    result: PairwiseResult
    calls: RunSummary | None
    skipped: list[dict[str, Any]]
    adaptive: AdaptiveResult[PairwiseResult] | None = None


def load_input(file: Path, columns: InputFlags) -> LoadedItems[Item]:
    """Read and validate every row before any judge call; list what was skipped."""
    loaded = load_items(file, columns=columns.columns(), skip_invalid=columns.skip_invalid,
                        allow_empty=columns.allow_empty)  # fmt: skip
    for problem in loaded.skipped:
        say("skipped", in_flags(problem))
    return loaded


def template_option(flags: JudgeFlags, items: list[Item]) -> str | None:
    """The model judge's template as ``name@version``, after checking items have references."""
    if calls_no_model(flags.judge):  # a Python callable or a replay: no prompt
        return None
    tmpl = get_template(flags.template or "default")
    missing = [it.id for it in items if it.reference is None]
    if tmpl.needs_reference and missing:
        raise ConfigError(
            f"template {tmpl.name!r} needs a reference, but {len(missing)} item(s) lack one "
            f"(first: id {missing[0]!r}); add a 'reference' column or pick another template"
        )
    return f"{tmpl.name}@{tmpl.version}"


def last_run(judge: BatchJudge) -> RunSummary | None:
    """The judge's last batch summary, for model judges; ``None`` for Python callables."""
    run = getattr(judge, "last_run", None)
    return run if isinstance(run, RunSummary) else None


def close_judge(judge: BatchJudge) -> None:
    """Release a judge's session (connections, model, store), when it holds one."""
    close = getattr(judge, "close", None)
    if callable(close):
        close()


def _record(judgment: Judgment) -> dict[str, Any]:
    """A judgment's ``--out`` record, with the item's model names when it has them.

    ``fairjudge report`` reads the names back, so its page names the models as the
    ``--html`` page of the same run does.
    """
    item = judgment.item
    names = {k: v for k, v in (("model_1", item.model_1), ("model_2", item.model_2)) if v}
    record = judgment.to_dict()
    return {**judgment.item_dict(), **names, **record} if names else record


def judge_file(
    file: Path,
    flags: JudgeFlags,
    columns: InputFlags,
    run: EvalFlags,
    *,
    labelled: bool = False,
    kind: OutKind = "compare",
    stop: StopFlags | None = None,
) -> Judged:
    """Validate everything, judge every item, write ``--out``; the result and its calls.

    With ``stop`` (``--stop-when``), questions are judged batch by batch in a seeded
    order until the stop rule is met, as ``fairjudge.compare(stop_when=...)`` runs it;
    ``--out`` then holds the judged items, and its header's settings the adaptive block.

    Args:
        file: The input file.
        flags: Judge and run flags.
        columns: Input-column flags.
        run: Evaluation flags.
        labelled: Every item must carry a human label (for ``calibrate``).
        kind: What ``--out`` says the file is (the command).
        stop: The ``--stop-when`` options, when given.
    """
    settings = run.settings(file)
    rule = stop.rule() if stop is not None else None  # a bad --stop-when: before any input
    loaded = load_input(file, columns)
    items = loaded.items
    if labelled:
        from fairjudge.audit import check_labels

        check_labels(items, human=columns.human_col)
    template = template_option(flags, items)
    from fairjudge._api import judge_pairs  # the run, as fairjudge.compare's
    from fairjudge.cli._progress import judging_progress  # rich's progress bar, when judging

    judge = flags.open_judge(rounds=settings.rounds)
    try:  # a budget stop is a partial result: reported, saved, and exit 5 afterwards
        calls_made = len(items) * settings.rounds
        with judging_progress(judge, calls_made, quiet=flags.quiet) as progress:
            result, adaptive, calls = judge_pairs(
                judge, items, settings, stop_when=rule, progress=progress,
                batch=stop.batch if stop is not None else None,
            )  # fmt: skip
    finally:
        close_judge(judge)
    settings = dataclasses.replace(settings, judge=judge_name(judge), template=template)
    result = dataclasses.replace(result, settings=settings)
    recorded = settings.to_dict()
    if adaptive is not None:
        adaptive = dataclasses.replace(adaptive, pairwise=result)
        recorded["adaptive"] = adaptive.adaptive_dict()
    if run.out is not None:
        write_out(
            run.out, kind, (_record(j) for j in result.judgments), judge=settings.judge,
            template=template, settings=recorded, calls=calls, sent_by=judge,
        )  # fmt: skip
    return Judged(result, calls, skipped_in_flags(loaded), adaptive)


def check_unresolved(result: PairwiseResult, limit: float) -> None:
    """Exit unless the result stands: 5 when it is partial, 4 when too few items resolved."""
    code = unresolved_exit(
        result.stopped, result.n_unresolved, result.n_items, limit, what="have no verdict",
        none=result.win_rate is None, reasons="the reasons are listed above",
    )  # fmt: skip
    if code:
        raise typer.Exit(code)


def unresolved_exit(
    stopped: str | None, n_bad: int, n: int, limit: float, *, what: str, none: bool,
    reasons: str = "the reasons are above",
) -> int:  # fmt: skip
    """The exit code of a run's coverage: 5 partial, 4 too many items unresolved, else 0.

    4 when more than ``limit`` of the ``n`` items are ``what`` (``n_bad`` of them), or
    when ``none`` resolved; each says why on stderr.
    """
    if stopped is not None:
        say("stopped", f"{stopped} The result above is partial.")
        return EXIT_BUDGET
    share = n_bad / n if n else 0.0
    if share > limit or none:
        say(
            "too many unresolved items",
            f"{n_bad} of {n} items {what} ({share:.0%} > --max-unresolved {limit:g}); {reasons}",
            style="red",
        )
        return EXIT_UNRESOLVED
    return 0
