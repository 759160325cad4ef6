"""``fairjudge score-jury FILE --judge A --judge B``: a panel scores every answer.

The pointwise counterpart of ``fairjudge jury``: every member (``--judge``, given
twice or more) scores every answer against the same ``--rubric``; ``--weight`` (once
per ``--judge``, in order) weighs them and ``--aggregate mean|median`` combines their
scores per dimension (:func:`fairjudge.evaluation.score_with_jury`). The model
members' calls run as one batch on one session, so one store and one budget cover
the panel and a rerun costs no call; ``--base-url``, ``--temperature``,
``--timeout``, ``--mode`` and ``--structured`` apply to every model member. Every
other option is ``score``'s, and means the same.

It is a command of its own, not ``score --judge A --judge B``, because ``score``
takes ``--judge`` once (a repeated ``--judge`` there keeps its last value, as every
single-judge command does), and a panel's result, report and ``--out`` records
differ from one judge's.

The table, ``--json`` and ``--out`` show the panel's scores per dimension, the same
scores under the other rule, Krippendorff's alpha and the effective number of judges
per dimension, and each member's leave-one-out correlation, agreement with human
scores and calls. ``--out`` writes one record per answer with every member's scores
and calls; the panel's own scores are under ``panel_scores``, so a panel's file is
not taken for a one-judge ``score --baseline`` (a panel takes no baseline yet).

Exit codes are ``score``'s: 2 a usage or input error, always before the first call;
4 when more than ``--max-unresolved`` of the answers lack a panel score on some
dimension; 5 a spent budget (the partial result is shown and saved); 6 with
``--fail-on-collapse`` when the panel's scores on a dimension collapsed.
"""

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import typer

from fairjudge._api import SCORE_AGGREGATIONS, JuryScoreResult
from fairjudge._errors import ConfigError
from fairjudge.cli._aliases import (
    AllowJuryServers,
    AllowPythonJudges,
)
from fairjudge.cli._app import app, guarded, skipped_in_flags
from fairjudge.cli._jury import (
    check_allowances,
    python_panel_flags,
    read_jury_file,
    specs_from_flags,
    write_page,
)
from fairjudge.cli._markdown import markdown_flag
from fairjudge.cli._options import adds_flags, as_judge_flags, judge_flags_without
from fairjudge.cli._out import show, write_out
from fairjudge.cli._score import ScoreFlags, score_flags, scored_exit
from fairjudge.judges import MemberSpec
from fairjudge.report import (
    render_score_jury,
)

__all__ = ["ScorePanelFlags", "score_jury", "score_panel"]

PanelScoreRunFlags = judge_flags_without(
    {"judge", "model_path", "threads", "context", "max_tokens", "reasoning_effort",
     "thinking_budget"},
    "PanelScoreRunFlags",
)  # fmt: skip
"""The shared judge and run flags less ``--judge`` (repeatable here) and the local-model
options (per member; not supported on a panel yet)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ScorePanelFlags:
    """Who sits on the panel and how their scores combine."""

    judge: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SPEC",
            help="A member: openai/<model>, anthropic/<model>, local/<name> or "
            "python:package.module:function; give it once per member (two or more).",
        ),
    ] = None
    weight: Annotated[
        list[float] | None,
        typer.Option(
            metavar="W",
            help="A panel member's weight, once per --judge, in order. [default: 1 each]",
        ),
    ] = None
    jury: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE.toml",
            help="A TOML file of [[member]] tables (judge, weight, base_url, temperature, "
            "timeout), instead of --judge.",
        ),
    ] = None
    allow_python_judges: AllowPythonJudges = False
    allow_jury_servers: AllowJuryServers = False
    aggregate: Annotated[
        str | None,
        typer.Option(
            metavar="mean|median",
            help="How a panel's scores combine per dimension: the weighted mean or the "
            "weighted median. [default: mean]",
        ),
    ] = None

    def members(self, flags: Any) -> tuple[list[MemberSpec], str]:
        """The member specs (with the command line's backend flags) and the rule, checked.

        Raises:
            ConfigError: Fewer than two --judge, --weight not once per --judge, or an
                unknown rule.
        """
        check_allowances(self)
        if self.jury is not None:
            if self.judge or self.weight:
                raise ConfigError("give the members with --judge or --jury FILE.toml, not both")
            loaded = read_jury_file(self)
            templated = [m.judge for m in loaded.members if m.template is not None]
            if templated:
                raise ConfigError(
                    f"--jury {self.jury}: member {templated[0]!r} sets a template; a scoring "
                    "panel asks every member with the one --rubric"
                )
            given, rule = list(loaded.members), self.aggregate or loaded.aggregate or "mean"
        else:
            given, rule = self._from_flags(), self.aggregate or "mean"
        if rule not in SCORE_AGGREGATIONS:
            where = (
                "--aggregate"
                if self.aggregate or self.jury is None
                else f"--jury {self.jury}: aggregate"
            )
            raise ConfigError(
                f"{where} must be one of {', '.join(SCORE_AGGREGATIONS)}; got {rule!r}"
            )
        return given, rule

    def _from_flags(self) -> list[MemberSpec]:
        """The members given with --judge (and --weight), checked."""
        judges = self.judge or []
        if len(judges) < 2:
            raise ConfigError(
                f"a panel needs --judge twice or more (or --jury FILE.toml); got {len(judges)} "
                "(for one judge: fairjudge score)"
            )
        return specs_from_flags(judges, self.weight)


def score_panel(
    file: Path, opts: ScoreFlags, panel: ScorePanelFlags, flags: Any
) -> JuryScoreResult:
    """Check everything, run ``fairjudge.score(judges=...)``, write ``--out``, show the report.

    Raises:
        ConfigError: A bad flag, member or input, always before the first call.
    """
    rubric = opts.check(as_judge_flags(flags), file)
    if opts.baseline is not None:
        raise ConfigError("--baseline compares one-judge runs; a panel does not take it yet")
    specs, rule = panel.members(flags)
    loaded = opts.load(file, rubric)
    if all(s.is_python for s in specs):  # no model: no mode to ask in
        more = ("--mode",) * (opts.mode != "json") + ("--structured",) * opts.structured
        python_panel_flags(flags, more)
    from fairjudge._api import score

    done = score(
        loaded, judges=specs, aggregate=rule, rubric=rubric, mode=opts.mode,
        structured=opts.structured, seed=opts.seed, level=opts.level,
        n_resamples=opts.bootstrap, setup=as_judge_flags(flags).setup(), source=str(file),
    )  # fmt: skip
    result: JuryScoreResult = done.result
    # The rubric's dimensions and scale too: `fairjudge report` draws a .toml rubric's run.
    head: dict[str, Any] = {"judge": ", ".join(result.names), "rubric": result.rubric_tag,
        "settings": {"aggregation": result.aggregation, "weights": list(result.weights),
                     "mode": opts.mode, "seed": opts.seed, "level": opts.level,
                     "n_resamples": opts.bootstrap, "dimensions": list(rubric.names),
                     "scale": list(rubric.scale), "source": str(file)}}  # fmt: skip
    if opts.out is not None:
        write_out(opts.out, "score-jury", result.records(), **head, calls=done.calls,
                  sent_by=done.sent_by)  # fmt: skip
    report = dataclasses.replace(done.report, skipped=tuple(skipped_in_flags(loaded)))
    if opts.html is not None:  # before the exit-code checks: a failed run's page helps most
        from fairjudge.report import score_jury_html

        write_page(opts.html, "score-jury", lambda h: score_jury_html(report, header=h), **head)
    show(report, render_score_jury, as_json=opts.json_output,
         files=[("per-item results", opts.out), ("HTML report", opts.html)])  # fmt: skip
    return result


@app.command("score-jury")
@guarded
@markdown_flag
@adds_flags(ScorePanelFlags, "panel")
@adds_flags(PanelScoreRunFlags, "flags")
@score_flags
def score_jury(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="JSONL, CSV or Parquet with question (or a conversation) and answer; "
            "optional id, reference, category, system, human_<dimension>.",
        ),
    ],
    *,
    opts: ScoreFlags,
    panel: ScorePanelFlags,
    flags: Any,
) -> None:
    """Score each answer with a panel of judges: aggregates, agreement, what each adds.

    Exit codes: 0 ok; 1 judging failed; 2 usage or input error (before any call); 4 too
    many answers without a panel score; 5 budget spent (partial result); 6
    --fail-on-collapse and the panel's scores on a dimension collapsed.
    """
    result = score_panel(file, opts, panel, flags)
    code = scored_exit(result, opts, what="lack a panel score on some dimension")
    if code:
        raise typer.Exit(code)
