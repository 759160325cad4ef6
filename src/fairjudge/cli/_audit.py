"""``fairjudge audit``: the judge's report card on position, verbosity, framing, self-preference.

With no ``--items`` it audits the built-in suite (40 questions written for fairjudge),
so ``fairjudge audit --judge X`` works on a fresh machine. Every experiment runs on one
session: one store (a rerun costs no call; a later ``compare`` reuses the position
calls), one budget. Everything is checked before the first call: an experiment the
input cannot run, when asked for by name, is an error that says what it needs.

Exit codes are the shared ones (:mod:`._app`): 2 for a usage or input error, 5 when the
budget stopped the audit: the partial report (the finished experiments, the rest
listed as not run) is printed and written, and the calls made are in the store, so a
rerun with a larger budget pays for the rest only; 4 when no effect could be estimated
or more than ``--max-unresolved`` of the calls gave no usable reply (the line says which).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, err_console, guarded, notes, say
from fairjudge.cli._exit_codes import EXIT_BUDGET, EXIT_UNRESOLVED
from fairjudge.cli._options import (
    Bootstrap,
    JudgeFlags,
    Level,
    SummaryJson,
    adds_flags,
    check_outputs,
    check_share,
)
from fairjudge.cli._out import markdown_flag, save_out, write_markdown, write_page
from fairjudge.io import strict_dumps
from fairjudge.judges import DEFAULT_JUDGE

__all__ = ["AuditFlags", "audit"]

audit_run_flags = adds_flags(JudgeFlags, "flags", without=frozenset({"judge", "template"}))
"""The shared backend and run flags; ``--judge`` is repeatable here, and the prompts
are the experiments' own (``--rubric``, ``--template``, ... below)."""


@dataclass(frozen=True, slots=True)
class AuditFlags:
    """What to audit, with which prompts, and where the report goes."""

    judge: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SPEC",
            help="A judge to audit (openai/, anthropic/, local/); give it twice or more for "
            f"self-preference. [default: {DEFAULT_JUDGE}]",
        ),
    ] = None
    items: Annotated[
        Path | None,
        typer.Option(
            help="JSONL/CSV/Parquet with question, answer, optional id, reference and system "
            "(the model family that wrote the answer). [default: the built-in suite]"
        ),
    ] = None
    experiments: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated: position, verbosity, framing, self-preference. "
            "[default: all that the input allows]"
        ),
    ] = None
    limit: Annotated[
        int | None, typer.Option(help="Audit only the first N items (a cheaper first look).")
    ] = None
    judge_family: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SPEC=FAMILY",
            help="A judge's model family, where its name does not show it (self-preference).",
        ),
    ] = None
    rubric: Annotated[str, typer.Option(help="The standard rubric.")] = "basic"
    strict_rubric: Annotated[str, typer.Option(help="Framing: the strict-expert rubric.")] = (
        "strict"
    )
    anti_verbose_rubric: Annotated[str, typer.Option(help="Verbosity mitigation, pointwise.")] = (
        "anti-verbose"
    )
    template: Annotated[str, typer.Option(help="The standard pairwise template.")] = "default"
    concise_template: Annotated[
        str, typer.Option(help="Verbosity mitigation, pairwise: a length-blind template.")
    ] = "concise"
    framing_templates: Annotated[
        str | None,
        typer.Option(metavar="A,B", help="Framing: also compare two pairwise templates."),
    ] = None
    target_words: Annotated[int, typer.Option(help="Length of the padded answers.")] = 300
    seed: Annotated[int, typer.Option(help="Seeds the padding and the bootstrap.")] = 0
    level: Level = 0.95
    bootstrap: Bootstrap = 2000
    max_unresolved: Annotated[
        float,
        typer.Option(
            help="Exit with code 4 when more than this share of calls gave no usable reply "
            "(parse failures, call errors), or no effect could be estimated."
        ),
    ] = 0.2
    out: Annotated[
        Path | None,
        typer.Option(
            help="Write the report as JSON lines: a header (judges, settings), then "
            "one line per experiment."
        ),
    ] = None
    html: Annotated[
        Path | None,
        typer.Option(help="Write the report card as a self-contained HTML page."),
    ] = None
    skip_invalid: Annotated[
        bool, typer.Option(help="Skip bad --items rows (each one listed) instead of stopping.")
    ] = False
    allow_empty: Annotated[
        bool, typer.Option(help="Audit on --items rows with empty answers instead of refusing.")
    ] = False

    def settings(self) -> Any:
        """The experiments' settings, checked."""
        from fairjudge.audit import AuditSettings

        templates = None
        if self.framing_templates is not None:
            parts = [p.strip() for p in self.framing_templates.split(",")]
            if len(parts) != 2 or not all(parts):
                raise ConfigError(
                    f"--framing-templates takes two templates, A,B; got {self.framing_templates!r}"
                )
            templates = (parts[0], parts[1])
        return AuditSettings(
            rubric=self.rubric, anti_verbose_rubric=self.anti_verbose_rubric,
            strict_rubric=self.strict_rubric, template=self.template,
            concise_template=self.concise_template, framing_templates=templates,
            target_words=self.target_words, seed=self.seed, level=self.level,
            n_resamples=self.bootstrap,
        )  # fmt: skip


def _run(opts: AuditFlags, flags: JudgeFlags) -> Any:
    """Check the flags, then audit through the library, as ``fairjudge.audit_judge`` does."""
    from fairjudge._api import audit_judge

    settings = opts.settings()
    check_share(opts.max_unresolved)
    check_outputs(opts.out, opts.html, inputs=(opts.items,))
    return audit_judge(
        opts.judge, items=opts.items, experiments=opts.experiments, settings=settings,
        judge_families=opts.judge_family, limit=opts.limit, setup=flags.setup(),
        skip_invalid=opts.skip_invalid, allow_empty=opts.allow_empty, notify=notes(flags.quiet),
    )  # fmt: skip


@app.command()
@guarded
@markdown_flag
@audit_run_flags
@adds_flags(AuditFlags, "opts")
def audit(json_output: SummaryJson = False, *, opts: AuditFlags, flags: JudgeFlags) -> None:
    """Measure a judge's position, verbosity, framing and self-preference bias.

    Each bias gets its effect with a CI, a verdict against documented thresholds, and
    the residual after the mitigation. Runs offline on the built-in suite with the
    embedded judge: fairjudge audit --limit 3 --experiments position,framing.
    """
    from fairjudge.report import render_audit

    audited = _run(opts, flags)
    report, payload = audited.result, audited.report  # the report; the calls, the headline
    made = payload["calls_made"]
    save_out(audited, opts.out, "audit")
    write_page(opts.html, audited)  # before the exit code: a stopped audit's partial card helps
    # exit 0 only for figures that stand
    untrusted = report.untrusted(opts.max_unresolved, limit="--max-unresolved")
    if json_output:
        typer.echo(strict_dumps({**payload, "untrusted": untrusted} if untrusted else payload,
                                indent=2))  # fmt: skip
    if not _markdown(report, made, payload) and not json_output:
        render_audit(report, Console(), calls_made=made)
        for label, path in (("report records", opts.out), ("HTML report", opts.html)):
            if path is not None:
                err_console.print(f"{label}: {path}", highlight=False, markup=False, soft_wrap=True)
    if report.stopped is not None:
        say("stopped", f"{report.stopped} The report above is partial.")
        raise typer.Exit(EXIT_BUDGET)
    if untrusted is not None:
        where = ('under "experiments" (each effect\'s ci.reason and note, each n_failed) in the '
                 "--json output" if json_output else "listed above")  # fmt: skip
        say("not trusted", f"{untrusted}; the reasons are {where}", "red")
        raise typer.Exit(EXIT_UNRESOLVED)


def _markdown(report: Any, made: int, payload: dict[str, Any]) -> bool:
    """Write ``--markdown`` from the report card's page; True when it went to stdout."""
    from fairjudge.report import audit_page, page_markdown

    def draw() -> str:
        return page_markdown(audit_page(report, calls_made=made, summary=payload))

    return write_markdown(draw)
