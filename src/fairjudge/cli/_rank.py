"""``fairjudge rank FILE``: a Bradley-Terry leaderboard of many models, with CIs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console
from rich.table import Table

from fairjudge._battles import Battles, load_ranking_input, make_pairs
from fairjudge._errors import ConfigError
from fairjudge._evaluate import evaluate_pairs
from fairjudge.cli._app import app, err_console, guarded
from fairjudge.cli._compare import DEFAULT_STORE, build_judge, close_judge, write_jsonl_atomic

if TYPE_CHECKING:
    from fairjudge.stats import BradleyTerryResult

__all__ = ["rank"]


def _judge_battles(
    file: Path,
    *,
    pairing: str,
    baseline: str | None,
    pairs_per_question: int,
    seed: int,
    judge_options: dict[str, Any],
    out: Path | None,
) -> Battles:
    data = load_ranking_input(file)
    if isinstance(data, Battles):
        err_console.print(f"{file}: {len(data.outcomes)} judged battles; no judge calls needed")
        return data
    items = make_pairs(
        data,
        pairing=pairing,  # type: ignore[arg-type]
        baseline=baseline,
        pairs_per_question=pairs_per_question,
        seed=seed,
    )
    err_console.print(
        f"{file}: {len(data.models)} models, {len(data.answers)} questions, "
        f"{len(items)} pairs ({pairing}); each judged in both orders"
    )
    judge, _ = build_judge(judge_options.pop("spec"), **judge_options)
    try:
        result = evaluate_pairs(judge, items, seed=seed)
    finally:
        close_judge(judge)
    if out is not None:
        write_jsonl_atomic(out, (j.to_dict() for j in result.judgments))
    if result.n_unresolved:
        err_console.print(
            f"[yellow]{result.n_unresolved} pair(s) unresolved[/yellow] "
            f"({result.n_parse_failures} parse failures, {result.n_call_errors} call errors): "
            "left out of the ranking, never counted as ties"
        )
    battles = Battles([], [], [], [], [], [])
    for j in result.judgments:
        if j.outcome is None or j.item.model_1 is None or j.item.model_2 is None:
            continue
        battles.model_a.append(j.item.model_1)
        battles.model_b.append(j.item.model_2)
        battles.outcomes.append(j.outcome)
        battles.questions.append(j.item.cluster_key)
        if battles.answers_a is not None and battles.answers_b is not None:
            battles.answers_a.append(j.item.answer_1)
            battles.answers_b.append(j.item.answer_2)
    return battles


def _render(result: BradleyTerryResult, console: Console) -> None:
    pct = round(result.level * 100)
    table = Table(
        title=f"Bradley-Terry leaderboard ({result.n_battles} battles, "
        f"bootstrap over {result.bootstrap}, seed {result.seed})"
    )
    for col in ("rank", "model", "rating", f"{pct}% CI", "rank CI", "W / T / L"):
        table.add_column(col, justify="left" if col == "model" else "right")
    for r in result.ratings:
        table.add_row(
            str(r.rank),
            r.model,
            f"{r.rating:.1f}",
            f"[{r.ci.low:.1f}, {r.ci.high:.1f}]",
            f"{r.rank_ci.low:.0f}-{r.rank_ci.high:.0f}",
            f"{r.wins} / {r.ties} / {r.losses}",
        )
    console.print(table)
    console.print(f"{result.anchor} is pinned at {result.anchor_rating:g} (Elo scale).")


@app.command()
@guarded
def rank(
    file: Annotated[
        Path,
        typer.Argument(
            help="Long format (question_id, model, answer[, question]) "
            "or battles (model_a, model_b, winner[, question_id])."
        ),
    ],
    judge: Annotated[str | None, typer.Option(help="Judge spec, as for compare.")] = None,
    pairing: Annotated[str, typer.Option(help="all | baseline | sample")] = "all",
    baseline: Annotated[
        str | None, typer.Option(help="Baseline model for --pairing baseline.")
    ] = None,
    pairs_per_question: Annotated[
        int, typer.Option(min=1, help="Pairs per question for --pairing sample.")
    ] = 1,
    ties: Annotated[str, typer.Option(help="half (a tie is half a win) | davidson")] = "half",
    anchor: Annotated[str | None, typer.Option(help="Model pinned at --anchor-rating.")] = None,
    anchor_rating: Annotated[float, typer.Option(help="Rating of the anchor model.")] = 1000.0,
    bootstrap: Annotated[int, typer.Option(min=10, help="Bootstrap rounds.")] = 1000,
    l2: Annotated[
        float, typer.Option(min=0.0, help="Ridge on ratings; > 0 keeps unbeaten models finite.")
    ] = 0.0,
    seed: Annotated[int, typer.Option(help="Seed for pairing and bootstrap.")] = 0,
    template: Annotated[str, typer.Option(help="Prompt template.")] = "default",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    model_path: Annotated[Path | None, typer.Option(help="Any GGUF file for local/.")] = None,
    threads: Annotated[int | None, typer.Option(min=1, help="CPU threads, local judge.")] = None,
    store: Annotated[Path, typer.Option(help="SQLite cache and audit log.")] = DEFAULT_STORE,
    concurrency: Annotated[int, typer.Option(min=1, help="Judge calls in flight.")] = 16,
    max_calls: Annotated[int | None, typer.Option(help="Stop after this many new calls.")] = None,
    out: Annotated[Path | None, typer.Option(help="Write the per-pair judgments (JSONL).")] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the leaderboard as JSON.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    style_control: Annotated[
        bool,
        typer.Option(help="Also fit Arena-Hard style control (length, headers, lists, bold)."),
    ] = False,
) -> None:
    """Rank many models: judge pairs with the debiased protocol, fit Bradley-Terry."""
    from fairjudge.stats import bradley_terry, style_controlled_bradley_terry

    battles = _judge_battles(
        file,
        pairing=pairing,
        baseline=baseline,
        pairs_per_question=pairs_per_question,
        seed=seed,
        out=out,
        judge_options={
            "spec": judge,
            "template": template,
            "store": store,
            "base_url": base_url,
            "model_path": model_path,
            "threads": threads,
            "concurrency": concurrency,
            "max_calls": max_calls,
            "quiet": quiet,
        },
    )
    tie_model: Literal["half", "davidson"] = "davidson" if ties == "davidson" else "half"
    if ties not in ("half", "davidson"):
        raise ConfigError(f"--ties must be half or davidson; got {ties!r}")
    result = bradley_terry(
        battles.model_a,
        battles.model_b,
        [o.value for o in battles.outcomes],
        questions=battles.questions,
        ties=tie_model,
        anchor=anchor,
        anchor_rating=anchor_rating,
        n_resamples=bootstrap,
        seed=seed,
    )
    styled = None
    if style_control:
        if battles.answers_a is None or battles.answers_b is None:
            raise ConfigError("--style-control needs the answers: give long-format input")
        styled = style_controlled_bradley_terry(
            battles.model_a,
            battles.model_b,
            [o.value for o in battles.outcomes],
            battles.answers_a,
            battles.answers_b,
            questions=battles.questions,
            anchor=anchor,
            anchor_rating=anchor_rating,
            l2=l2,
            n_resamples=bootstrap,
            seed=seed,
        )
    if json_output:
        payload = result.to_dict()
        if styled is not None:
            payload["style_control"] = styled.to_dict()
        typer.echo(json.dumps(payload, indent=2))
    else:
        _render(result, Console())
        if styled is not None:
            Console().print(styled.summary(), highlight=False, markup=False)
