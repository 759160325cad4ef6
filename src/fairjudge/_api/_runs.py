"""The runs themselves, orchestrated once: one judge's, a panel's, and one via scores.

:func:`fairjudge.compare` (``judge=`` and ``judges=``) and the ``compare``,
``calibrate`` and ``jury`` commands, which read their own files and show their own
progress bar, call these, so ``stop_when=`` in a notebook and ``--stop-when`` on the
command line run alike. The adaptive machinery loads only when ``stop_when`` is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairjudge._api._result import last_run

if TYPE_CHECKING:
    from fairjudge._api._setup import JudgeSetup
    from fairjudge._items import Item
    from fairjudge.evaluation import (
        AdaptiveResult,
        EvalSettings,
        JuryResult,
        PairwiseResult,
        ViaScoresResult,
    )
    from fairjudge.io import LoadedItems
    from fairjudge.judges import BatchJudge, Jury, ProgressCallback, ScoreMode
    from fairjudge.prompts import Rubric
    from fairjudge.runner import RunSummary
    from fairjudge.stats import StopRule

__all__ = [
    "ViaScoresRun", "judge_pairs", "judge_panel", "judge_via_scores", "recorded_template",
    "stop_rule", "via_scores",
]  # fmt: skip

_SHAPES = {
    "batch": "it sets how many questions are judged between two looks",
    "population": "it says what the adaptive interval is about",
}


def stop_rule(
    stop_when: str | Sequence[str] | StopRule | None, batch: int | None = None,
    population: str | None = None,
) -> StopRule | None:  # fmt: skip
    """An adaptive run's settings, checked and read before any input is used or judge opened.

    ``batch`` and ``population`` shape an adaptive run, so they need ``stop_when``;
    ``population`` is ``source`` or ``file``, in any case. ``None`` without ``stop_when``.

    Raises:
        ConfigError: ``batch`` or ``population`` without ``stop_when``, a ``batch``
            below 1, a ``population`` other than ``source`` or ``file``, or a malformed
            ``stop_when`` (:meth:`~fairjudge.stats.StopRule.parse`), each named.
    """
    from fairjudge._errors import ConfigError

    if stop_when is None:
        for name, value in (("batch", batch), ("population", population)):
            if value is not None:
                raise ConfigError(
                    f"{name} applies with stop_when only ({_SHAPES[name]}); add stop_when, "
                    f"or drop {name}",
                    params=(name, "stop_when"),
                )
        return None
    if batch is not None:
        from fairjudge.evaluation import check_batch

        check_batch(batch)
    about = population.strip().lower() if isinstance(population, str) else population
    if about not in (None, "source", "file"):
        raise ConfigError(
            "population must be 'source' (questions like these: the population the file's "
            f"questions are drawn from) or 'file' (this file only); got {population!r}",
            params="population",
        )
    from fairjudge.stats import StopRule

    return StopRule.parse(stop_when, "file" if about == "file" else "source" if about else None)


def recorded_template(judge: BatchJudge) -> str | None:
    """The template a judge's run records, as ``name@version``: ``None`` without a prompt.

    A model judge (:class:`~fairjudge.judges.LLMJudge`) records its template, as the
    commands do (``default@N``), so a notebook's result and a command's ``--json``
    name the same prompt; a Python callable or a replay sends none.
    """
    from fairjudge.judges import LLMJudge

    if isinstance(judge, LLMJudge):
        return f"{judge.template.name}@{judge.template.version}"
    return None


def judge_pairs(
    judge: BatchJudge,
    items: list[Item],
    settings: EvalSettings,
    *,
    stop_when: StopRule | None = None,
    batch: int | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[PairwiseResult, AdaptiveResult[PairwiseResult] | None, RunSummary | None]:
    """Judge every pair, or with ``stop_when`` a batch of questions at a time until it is met.

    Returns:
        The comparison, the adaptive run (with ``stop_when``), and the calls' summary
        (counted over the whole adaptive run, every batch).
    """
    from fairjudge.evaluation import evaluate

    if stop_when is None:
        return evaluate(judge, items, settings, progress=progress), None, last_run(judge)
    from fairjudge.evaluation import as_batch_judge, evaluate_adaptive, tallied_run

    adaptive, run = tallied_run(
        as_batch_judge(judge),
        lambda tallied: evaluate_adaptive(
            tallied, items, settings, stop_when, batch=batch, progress=progress,
        ),
    )  # fmt: skip
    return adaptive.pairwise, adaptive, run


def judge_panel(
    panel: Jury,
    items: list[Any],
    settings: EvalSettings,
    *,
    aggregation: str,
    stop_when: StopRule | None = None,
    batch: int | None = None,
) -> tuple[JuryResult, AdaptiveResult[JuryResult] | None, RunSummary | None]:
    """The panel judges every item, or with ``stop_when`` batch by batch until it is met.

    Returns:
        The panel's result, the adaptive run (with ``stop_when``), and the calls'
        summary (over every batch of an adaptive run).
    """
    from fairjudge.evaluation import evaluate_jury

    if stop_when is None:
        result = evaluate_jury(panel, items, settings, aggregation=aggregation)
        return result, None, panel.last_run
    from fairjudge.evaluation import evaluate_jury_adaptive, tallied_run

    adaptive, run = tallied_run(
        panel,
        lambda tallied: evaluate_jury_adaptive(
            tallied,
            items,
            settings,
            stop_when,
            aggregation=aggregation,
            batch=batch,
        ),
    )
    return adaptive.pairwise, adaptive, run


def judge_via_scores(
    scorer: Any,
    items: list[Item],
    settings: EvalSettings,
    *,
    tie_margin: float,
    calls_per_answer: int = 1,
    stop_when: str | Sequence[str] | StopRule | None = None,
    batch: int | None = None,
) -> tuple[ViaScoresResult, AdaptiveResult[ViaScoresResult] | None, RunSummary | None]:
    """Score each answer on its own, the two scores per item giving the win rate.

    With ``stop_when``, questions are scored a batch at a time until it is met.
    ``calls_per_answer`` is what one answer costs (one call per rubric dimension in
    ``label`` mode), for the batch size.

    Returns:
        The comparison via scores, the adaptive run (with ``stop_when``), and the
        calls' summary (counted over every batch; ``None`` for a scorer that keeps no
        run). A ``python:`` scorer runs on the engine and keeps one, as a model's does.
    """
    if stop_when is None:
        from fairjudge.evaluation import compare_via_scores

        result = compare_via_scores(
            scorer, items, tie_margin=tie_margin, seed=settings.seed, level=settings.level,
            n_resamples=settings.n_resamples,
        )  # fmt: skip
        return result, None, last_run(scorer)
    from fairjudge.evaluation import compare_via_scores_adaptive, tallied_run

    adaptive, calls = tallied_run(
        scorer,
        lambda tallied: compare_via_scores_adaptive(
            tallied, items, settings, stop_when, tie_margin=tie_margin,
            calls_per_answer=calls_per_answer, batch=batch,
        ),
    )  # fmt: skip
    return adaptive.pairwise, adaptive, calls


@dataclass(frozen=True, slots=True)
class ViaScoresRun:
    """What :func:`via_scores` produced.

    Attributes:
        result: The comparison via scores.
        swap: The swap protocol's comparison beside it (``with_swap``), or ``None``.
        adaptive: The adaptive run (``stop_when``), or ``None``.
        calls: The scoring calls' summary, which the ``--out`` header records (``None``
            for a scorer that keeps none).
        scorer: The scorer that ran (closed), whose requests a record can name.
        judge: The scorer's name.
        rubric: The rubric it scored against.
        settings: The run's settings (seed, level, resamples).
        skipped: The input rows set aside as invalid, as the loader lists them.
    """

    result: ViaScoresResult
    swap: PairwiseResult | None
    adaptive: AdaptiveResult[ViaScoresResult] | None
    calls: RunSummary | None
    scorer: Any
    judge: str
    rubric: Rubric = field(repr=False)
    settings: EvalSettings = field(repr=False)
    skipped: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def title(self) -> str:
        """The report's title: the input's name, then what was compared."""
        from fairjudge._api._inputs import ROWS
        from fairjudge._api._result import title

        return f"{title(self.settings.source or ROWS)}: model 1 vs model 2"

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready summary, as ``compare --via-scores --json`` prints it.

        The comparison via scores, the swap protocol's report beside it (``None``
        without ``with_swap``), the scoring calls (a model's; a ``python:`` scorer's are
        ``None``, as ``score --json`` has them), the skipped rows and, after
        ``stop_when``, the adaptive run.
        """
        from fairjudge.judges import PointwiseJudge
        from fairjudge.report import comparison_report

        swap = self.swap
        calls = self.calls if isinstance(self.scorer, PointwiseJudge) else None
        payload = {
            "via_scores": self.result.to_dict(),
            "swap": None if swap is None else comparison_report(swap, title=self.title).to_dict(),
            "calls": None if calls is None else calls.to_dict(),
            "skipped_rows": list(self.skipped),
        }
        if self.adaptive is not None:
            payload["adaptive"] = self.adaptive.adaptive_dict()
        return payload

    def markdown(self) -> str:
        """The run's Markdown summary, as ``compare --via-scores --markdown`` writes it."""
        from fairjudge.report import via_scores_markdown

        return via_scores_markdown(
            self.result, title=self.title, swap=self.swap, adaptive=self.adaptive
        )

    def save(self, path: str | Path, *, header_extra: Mapping[str, Any] | None = None) -> Path:
        """Write ``compare --via-scores``'s ``--out`` file, as :meth:`Result.save` does.

        The header records the scorer's requests, the scoring calls and the input rows
        set aside.
        """
        from fairjudge._api._out import via_scores_out, write_out_file
        from fairjudge._api._result import check_target

        out = replace(via_scores_out(self, self.rubric, self.settings), skipped_rows=self.skipped)
        check_target(path, out.settings)
        return write_out_file(path, out, self.calls, self.scorer, header_extra)

    @property
    def kind(self) -> str:
        """The command it matches (``compare``), as :attr:`Result.kind <fairjudge.Result>`."""
        return "compare"

    def to_html(self, path: str | Path, *, header_extra: Mapping[str, Any] | None = None) -> Path:
        """Write the run's self-contained HTML page, the one ``compare --via-scores --html`` writes.

        As :meth:`Result.to_html <fairjudge.Result.to_html>` does, with the same
        arguments, return and errors: drawn from the header :meth:`save` writes, so
        ``fairjudge report`` of the saved file draws this page again (its figures
        summarised from the file, with ``report``'s defaults the run's own), but for
        the command line.
        """
        from fairjudge._api._inputs import ROWS
        from fairjudge._api._out import via_scores_out
        from fairjudge._api._result import header_of, title, write_page
        from fairjudge.report import page_html, via_scores_page

        out = via_scores_out(self, self.rubric, self.settings)
        header = header_of(out, self.calls, self.scorer, header_extra)
        name = title(self.settings.source or ROWS)
        return write_page(
            path, header, lambda h: page_html(via_scores_page(h, self.result, self.swap, name))
        )


def via_scores(
    spec: str | None, items: list[Item] | LoadedItems[Item], settings: EvalSettings, *,
    setup: JudgeSetup,
    rubric: Rubric, mode: ScoreMode = "json", tie_margin: float = 0.0, with_swap: bool = False,
    stop_when: str | Sequence[str] | StopRule | None = None, batch: int | None = None,
    population: str | None = None,
) -> ViaScoresRun:  # fmt: skip
    """Open the scorer ``spec`` names and compare through its scores (``compare --via-scores``).

    With ``with_swap``, the swap protocol runs too, with the same model on the same
    session (one store, one budget), unless the scoring stopped on the budget. Items
    read by a loader (:class:`~fairjudge.io.LoadedItems`) keep their skipped rows.

    Raises:
        ConfigError: A ``tie_margin`` below 0, the swap protocol's settings (a template,
            rounds, rule or ``balanced=False``) or ``stop_when`` with ``with_swap``, or a
            ``python:`` judge with it, the stop settings (:func:`stop_rule`), or items
            the rubric cannot score, before the scorer opens.
    """
    from fairjudge._errors import ConfigError
    from fairjudge._types import Resolution
    from fairjudge.evaluation import check_via_items
    from fairjudge.io import LoadedItems
    from fairjudge.judges import judge_name

    skipped: list[dict[str, Any]] = []
    if isinstance(items, LoadedItems):
        skipped = items.skipped_records()
        items = list(items.items)
    if not tie_margin >= 0:
        raise ConfigError(f"tie_margin must be >= 0; got {tie_margin}", params="tie_margin")
    if stop_when is not None and with_swap:
        raise ConfigError(
            "stop_when does not apply to via_scores with_swap yet: the swap protocol beside "
            "the scores would judge the whole file; drop stop_when, or with_swap",
            params=("stop_when", "via_scores", "with_swap"),
        )
    swap_only = {"template": setup.template is not None, "rounds": settings.rounds != 2,
                 "rule": settings.rule is not Resolution.CONSERVATIVE,
                 "balanced=False": not settings.balanced}  # fmt: skip
    given = [name for name, on in swap_only.items() if on and not with_swap]
    if given:
        raise ConfigError(
            f"{given[0]} applies to the swap protocol; add with_swap to run it beside "
            "via_scores, or drop it",
            params=(given[0].removesuffix("=False"), "with_swap", "via_scores"),
        )
    if with_swap and (spec or "").startswith("python:"):
        raise ConfigError(
            "with_swap needs a model judge: a python: judge is either a pairwise or a "
            "pointwise function",
            params="with_swap",
        )
    rule = stop_rule(stop_when, batch, population)
    check_via_items(items, rubric)
    if with_swap:  # the swap protocol's template: the references it needs, before it opens
        setup.check_references(spec, items)
    scorer, pairwise = _via_judges(spec, setup, rubric, mode, settings.rounds, with_swap)
    swap = None
    try:
        result, adaptive, calls = judge_via_scores(
            scorer, items, settings, tie_margin=tie_margin, stop_when=rule,
            calls_per_answer=len(rubric.names) if mode == "label" else 1, batch=batch,
        )  # fmt: skip
        if pairwise is not None and result.stopped is None:
            swapped = judge_pairs(pairwise, items, settings)[0]
            named = replace(settings, judge=judge_name(pairwise),
                            template=recorded_template(pairwise))  # fmt: skip
            swap = replace(swapped, settings=named)
    finally:
        for judge in (scorer, pairwise):
            close = getattr(judge, "close", None)
            if callable(close):
                close()
    return ViaScoresRun(
        result, swap, adaptive, calls, scorer, judge_name(scorer), rubric, settings, skipped
    )


def _via_judges(
    spec: str | None, setup: JudgeSetup, rubric: Rubric, mode: ScoreMode, rounds: int,
    with_swap: bool,
) -> tuple[Any, Any]:  # fmt: skip
    """The scorer, and with ``with_swap`` the pairwise judge whose session it shares."""
    from fairjudge._errors import ConfigError
    from fairjudge.judges import LLMJudge, PointwiseJudge

    if not with_swap:
        return setup.open_scorer(spec, rubric, mode=mode), None
    pairwise = setup.open_judge(spec, rounds=rounds)
    if not isinstance(pairwise, LLMJudge):  # a Python function is pairwise or pointwise
        raise ConfigError("with_swap needs a model judge", params="with_swap")
    temperature = setup.backend.temperature if setup.backend is not None else None
    params = {} if temperature is None else {"temperature": temperature}
    try:
        scorer = PointwiseJudge(pairwise.backend, rubric=rubric, mode=mode,
                                session=pairwise.session, params=params)  # fmt: skip
    except ConfigError:
        pairwise.close()
        raise
    return scorer, pairwise
