"""``fairjudge calibrate FILE``: a judge's report card against human labels.

Run it on 20-300 human-labelled items before trusting a judge (or a judge prompt)
at scale. It reports MT-Bench agreement (S1 with ties, S2 without), Cohen's kappa
and the confusion matrix for labels; Spearman and Kendall with CIs and a pass/fail
gate for scores; system-level rank correlation when the items name their systems;
and the judge's position-bias figures.

Exit codes: 0 when the gate passes (or there is no gate), 3 when it fails, 2 for
input errors and 1 when judging failed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairjudge._errors import InputError
from fairjudge._evaluate import PairwiseResult, evaluate_pairs
from fairjudge._io import load_items
from fairjudge._types import Item, Order, Resolution
from fairjudge.cli._app import app, err_console, guarded
from fairjudge.cli._compare import DEFAULT_STORE, build_judge, close_judge, write_jsonl_atomic

__all__ = ["EXIT_GATE_FAILED", "calibrate", "calibration_report"]

EXIT_GATE_FAILED = 3


def _check_labels(items: list[Item]) -> None:
    unlabelled = [it.id for it in items if it.human is None and it.human_score is None]
    if unlabelled:
        raise InputError(
            f"{len(unlabelled)} item(s) have neither 'human' (1/2/tie) nor 'human_score' "
            f"(first: id {unlabelled[0]!r}); calibration needs a human label on every item"
        )


def calibration_report(
    result: PairwiseResult, *, min_spearman: float, seed: int, n_resamples: int
) -> dict[str, Any]:
    """Agreement, correlation, system-level and position-bias figures for one run."""
    from fairjudge.stats import (  # scipy: load only when used
        judge_agreement,
        position_bias,
        score_correlation,
        system_agreement,
    )

    done = [j for j in result.judgments if j.outcome is not None]
    report: dict[str, Any] = {
        "n_items": result.n_items,
        "n_resolved": len(done),
        "n_unresolved": result.n_unresolved,
    }
    boot = {"seed": seed, "n_resamples": n_resamples}
    labelled = [j for j in done if j.item.human is not None]
    if labelled:
        agreement = judge_agreement(
            [j.outcome.value for j in labelled if j.outcome is not None],
            [j.item.human.value for j in labelled if j.item.human is not None],
            questions=[j.item.cluster_key for j in labelled],
            **boot,
        )
        report["agreement"] = agreement
        systems = [j for j in labelled if j.item.model_1 and j.item.model_2]
        names = {m for j in systems for m in (j.item.model_1, j.item.model_2)}
        if len(names) >= 3:
            try:
                report["system"] = system_agreement(
                    [j.item.model_1 or "" for j in systems],
                    [j.item.model_2 or "" for j in systems],
                    [j.outcome.value for j in systems if j.outcome is not None],
                    [j.item.human.value for j in systems if j.item.human is not None],
                    questions=[j.item.cluster_key for j in systems],
                    l2=0.1,
                    **boot,
                )
            except InputError as exc:
                report["system_error"] = str(exc)
    scored = [j for j in done if j.item.human_score is not None and j.score is not None]
    if len(scored) >= 3:
        report["correlation"] = score_correlation(
            [j.score for j in scored if j.score is not None],
            [j.item.human_score for j in scored if j.item.human_score is not None],
            min_spearman=min_spearman,
            questions=[j.item.cluster_key for j in scored],
            **boot,
        )
    two_orders = [j for j in done if {c.order for c in j.calls} == {Order.ORIGINAL, Order.SWAPPED}]
    if two_orders:
        report["position_bias"] = position_bias(
            [
                [
                    c.reply.verdict.value
                    for c in j.calls
                    if c.order is Order.ORIGINAL and c.reply.verdict is not None
                ]
                for j in two_orders
            ],
            [
                [
                    c.reply.verdict.value
                    for c in j.calls
                    if c.order is Order.SWAPPED and c.reply.verdict is not None
                ]
                for j in two_orders
            ],
            questions=[j.item.cluster_key for j in two_orders],
            **boot,
        )
    return report


def _print(report: dict[str, Any], console: Console) -> None:
    console.print(
        f"[bold]{report['n_resolved']} of {report['n_items']} items resolved[/bold]"
        f" ({report['n_unresolved']} left out: parse failures or call errors)"
    )
    for key in ("agreement", "correlation", "system", "position_bias"):
        if key in report:
            console.print(report[key].summary(), highlight=False, markup=False)
            console.print()
    if "system_error" in report:
        console.print(f"system-level correlation skipped: {report['system_error']}")


@app.command()
@guarded
def calibrate(
    file: Annotated[
        Path,
        typer.Argument(
            help="Items with question, answer_1, answer_2 and human (1/2/tie) or human_score."
        ),
    ],
    judge: Annotated[str | None, typer.Option(help="Judge spec, as for compare.")] = None,
    template: Annotated[str, typer.Option(help="Prompt template.")] = "default",
    rule: Annotated[Resolution, typer.Option(help="Resolution rule.")] = Resolution.CONSERVATIVE,
    rounds: Annotated[int, typer.Option(min=2, help="Calls per item.")] = 2,
    min_spearman: Annotated[float, typer.Option(help="Gate: pass at Spearman >= this.")] = 0.7,
    seed: Annotated[int, typer.Option(help="Seed for orders and bootstrap.")] = 0,
    bootstrap: Annotated[int, typer.Option(min=100, help="Bootstrap resamples.")] = 1000,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    model_path: Annotated[Path | None, typer.Option(help="Any GGUF file for local/.")] = None,
    threads: Annotated[int | None, typer.Option(min=1, help="CPU threads, local judge.")] = None,
    store: Annotated[Path, typer.Option(help="SQLite cache and audit log.")] = DEFAULT_STORE,
    concurrency: Annotated[int, typer.Option(min=1, help="Judge calls in flight.")] = 16,
    max_calls: Annotated[int | None, typer.Option(help="Stop after this many new calls.")] = None,
    out: Annotated[Path | None, typer.Option(help="Write per-item judgments (JSONL).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
) -> None:
    """Check a judge against human labels before using it at scale."""
    items = load_items(file).items
    _check_labels(items)
    batch_judge, name = build_judge(
        judge,
        template=template,
        store=store,
        base_url=base_url,
        model_path=model_path,
        threads=threads,
        concurrency=concurrency,
        max_calls=max_calls,
        quiet=quiet,
    )
    try:
        result = evaluate_pairs(batch_judge, items, rule=rule, rounds=rounds, seed=seed)
    finally:
        close_judge(batch_judge)
    if out is not None:
        write_jsonl_atomic(out, (j.to_dict() for j in result.judgments))
    report = calibration_report(result, min_spearman=min_spearman, seed=seed, n_resamples=bootstrap)
    gate = report.get("correlation")
    if json_output:
        payload = {k: (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in report.items()}
        payload["judge"] = name
        typer.echo(json.dumps(payload, indent=2, default=str))
    else:
        _print(report, Console())
    if gate is not None and not gate.passed:
        err_console.print(
            f"[red]gate failed:[/red] Spearman {gate.spearman:.3f} < {min_spearman}; "
            "do not use this judge for decisions without a better prompt or model"
        )
        raise typer.Exit(EXIT_GATE_FAILED)
