"""``fairjudge compare FILE``: a position-debiased comparison of two systems."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from fairjudge._errors import ConfigError, InputError
from fairjudge._evaluate import PairwiseResult, evaluate_pairs
from fairjudge._io import Columns, load_items
from fairjudge._types import Resolution
from fairjudge.cli._app import app, err_console, guarded
from fairjudge.cli._render import render_comparison
from fairjudge.judges._pairwise import BatchJudge

if TYPE_CHECKING:
    from fairjudge.stats import LengthControlledWinRate

__all__ = [
    "build_judge",
    "close_judge",
    "compare",
    "length_controlled",
    "write_jsonl_atomic",
]

DEFAULT_STORE = Path(".fairjudge") / "store.sqlite"
_MIN_LC_ITEMS = 10


def build_judge(
    spec: str | None,
    *,
    template: str,
    store: Path,
    base_url: str | None = None,
    model_path: Path | None = None,
    threads: int | None = None,
    concurrency: int = 16,
    rpm: float | None = None,
    tpm: float | None = None,
    max_calls: int | None = None,
    max_cost: float | None = None,
    price_input: float | None = None,
    price_output: float | None = None,
    quiet: bool = False,
) -> tuple[BatchJudge, str]:
    """Resolve a ``--judge`` spec into a batch judge and a display name."""
    if spec is not None and spec.startswith("python:"):
        from fairjudge.judges._callable import load_python_judge

        callable_judge = load_python_judge(spec)
        return callable_judge, callable_judge.name
    from fairjudge.judges._registry import resolve_judge

    prices = None
    if price_input is not None or price_output is not None:
        prices = (price_input or 0.0, price_output or 0.0)
    llm_judge = resolve_judge(
        spec,
        base_url=base_url,
        model_path=str(model_path) if model_path else None,
        threads=threads,
        template=template,
        store=store,
        concurrency=concurrency,
        rpm=rpm,
        tpm=tpm,
        max_calls=max_calls,
        max_cost=max_cost,
        prices=prices,
        quiet=quiet,
    )
    return llm_judge, getattr(llm_judge, "name", spec or "default")


def close_judge(judge: BatchJudge) -> None:
    """Release a judge's connections or model, when it holds any."""
    close = getattr(judge, "close", None)
    if callable(close):
        close()


def write_jsonl_atomic(path: Path, records: Iterator[dict[str, Any]]) -> None:
    """Write JSON lines to a temporary file and rename it: a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Callable[[int], None] | None]:
    if not enabled:
        yield None
        return
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task("judging", total=total)
        yield lambda n: bar.advance(task, n)


def _run_summary(judge: BatchJudge) -> dict[str, Any] | None:
    last = getattr(judge, "last_run", None)
    if last is None:
        return None
    to_dict = getattr(last, "to_dict", None)
    data = to_dict() if callable(to_dict) else dict(vars(last))
    return data if isinstance(data, dict) else None


@app.command()
@guarded
def compare(
    file: Annotated[
        Path, typer.Argument(help="JSONL, CSV or Parquet with question, answer_1, answer_2.")
    ],
    judge: Annotated[
        str | None,
        typer.Option(
            help="Judge: openai/<model>, anthropic/<model>, local/<name>, "
            "python:package.module:function. Default: local/qwen2.5-coder-1.5b."
        ),
    ] = None,
    template: Annotated[str, typer.Option(help="Prompt template name or .toml path.")] = "default",
    rule: Annotated[Resolution, typer.Option(help="How the calls on an item resolve.")] = (
        Resolution.CONSERVATIVE
    ),
    rounds: Annotated[int, typer.Option(min=1, help="Calls per item; 2 is the swap protocol.")] = 2,
    balanced: Annotated[bool, typer.Option(help="Exactly half the calls in each order.")] = True,
    seed: Annotated[int, typer.Option(help="Run seed: randomised orders and the bootstrap.")] = 0,
    level: Annotated[float, typer.Option(min=0.5, max=0.999, help="Confidence level.")] = 0.95,
    bootstrap: Annotated[int, typer.Option(min=100, help="Bootstrap resamples.")] = 2000,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    model_path: Annotated[Path | None, typer.Option(help="Any GGUF file for local/.")] = None,
    threads: Annotated[int | None, typer.Option(min=1, help="CPU threads, local judge.")] = None,
    store: Annotated[Path, typer.Option(help="SQLite cache and audit log.")] = DEFAULT_STORE,
    concurrency: Annotated[int, typer.Option(min=1, help="Judge calls in flight.")] = 16,
    rpm: Annotated[float | None, typer.Option(help="Requests-per-minute limit.")] = None,
    tpm: Annotated[float | None, typer.Option(help="Tokens-per-minute limit.")] = None,
    max_calls: Annotated[int | None, typer.Option(help="Stop after this many new calls.")] = None,
    max_cost: Annotated[float | None, typer.Option(help="Stop at this estimated cost.")] = None,
    price_input: Annotated[float | None, typer.Option(help="$ per 1M input tokens.")] = None,
    price_output: Annotated[float | None, typer.Option(help="$ per 1M output tokens.")] = None,
    out: Annotated[Path | None, typer.Option(help="Write one JSON record per item.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    skip_invalid: Annotated[
        bool, typer.Option(help="Skip bad rows (listed) instead of stopping.")
    ] = False,
    question_col: Annotated[str, typer.Option(help="Column holding the question.")] = "question",
    answer1_col: Annotated[str, typer.Option(help="Column holding model 1's answer.")] = "answer_1",
    answer2_col: Annotated[str, typer.Option(help="Column holding model 2's answer.")] = "answer_2",
    id_col: Annotated[str, typer.Option(help="Column holding the item id.")] = "id",
    reference_col: Annotated[str, typer.Option(help="Column holding a reference.")] = "reference",
    human_col: Annotated[str, typer.Option(help="Column holding a human label.")] = "human",
) -> None:
    """Compare two systems' answers with the position-debiased protocol."""
    cols = Columns(
        question=question_col,
        answer_1=answer1_col,
        answer_2=answer2_col,
        id=id_col,
        reference=reference_col,
        human=human_col,
    )
    loaded = load_items(file, columns=cols, skip_invalid=skip_invalid)
    for problem in loaded.skipped:
        err_console.print(f"[yellow]skipped:[/yellow] {problem}", highlight=False)
    if rounds > 2 and balanced and rounds % 2:
        raise ConfigError(f"--rounds {rounds} with --balanced must be even")
    from fairjudge.prompts import get_template

    tmpl = get_template(template)
    if tmpl.needs_reference:
        missing = [it.id for it in loaded.items if it.reference is None]
        if missing:
            raise ConfigError(
                f"template {tmpl.name!r} needs a reference, but {len(missing)} item(s) lack one "
                f"(first: id {missing[0]!r})"
            )
    batch_judge, judge_name = build_judge(
        judge,
        template=template,
        store=store,
        base_url=base_url,
        model_path=model_path,
        threads=threads,
        concurrency=concurrency,
        rpm=rpm,
        tpm=tpm,
        max_calls=max_calls,
        max_cost=max_cost,
        price_input=price_input,
        price_output=price_output,
        quiet=quiet,
    )
    show_bar = (
        not quiet and sys.stderr.isatty() and judge is not None and judge.startswith("python:")
    )
    try:
        with _progress(len(loaded.items) * rounds, show_bar) as progress:
            result = evaluate_pairs(
                batch_judge,
                loaded.items,
                rule=rule,
                rounds=rounds,
                balanced=balanced,
                seed=seed,
                level=level,
                n_resamples=bootstrap,
                progress=progress,
            )
    finally:
        close_judge(batch_judge)
    result.settings.update(
        {"judge": judge_name, "template": f"{tmpl.name}@{tmpl.version}", "file": str(file)}
    )
    run = _run_summary(batch_judge)
    if out is not None:
        write_jsonl_atomic(out, (j.to_dict() for j in result.judgments))
    _report(result, run=run, json_output=json_output, title=f"{file.name}: model 1 vs model 2")


def length_controlled(result: PairwiseResult) -> LengthControlledWinRate | str:
    """AlpacaEval-2-style length-controlled win rate, or why it was not computed.

    Needs at least 10 resolved items whose answer lengths differ; otherwise the
    regression has nothing to learn the length effect from.
    """
    from fairjudge.stats import length_controlled_win_rate  # scipy: load only when used

    done = [j for j in result.judgments if j.outcome is not None]
    if len(done) < _MIN_LC_ITEMS:
        return f"needs at least {_MIN_LC_ITEMS} resolved items, have {len(done)}"
    try:
        return length_controlled_win_rate(
            [j.outcome.value for j in done if j.outcome is not None],
            [len(j.item.answer_1) for j in done],
            [len(j.item.answer_2) for j in done],
            questions=[j.item.cluster_key for j in done],
            n_resamples=int(result.settings.get("n_resamples", 1000)),
            seed=int(result.settings.get("seed", 0)),
            level=float(result.settings.get("level", 0.95)),
        )
    except (InputError, ValueError) as exc:
        return str(exc)


def _report(
    result: PairwiseResult, *, run: dict[str, Any] | None, json_output: bool, title: str
) -> None:
    lc = length_controlled(result)
    # The other informative rule, from the same calls: the seed's conservative result
    # beside a soft one, or the soft one beside the seed's when probabilities exist.
    rule = result.settings.get("rule")
    alternatives: tuple[PairwiseResult, ...] = ()
    if rule != "conservative":
        alternatives = (result.with_rule("conservative"),)
    elif result.has_probabilities:
        alternatives = (result.with_rule("soft"),)
    if json_output:
        payload = result.to_dict()
        payload["alternative_rules"] = {
            str(a.settings.get("rule")): a.win_rate.to_dict() if a.win_rate else None
            for a in alternatives
        }
        payload["length_controlled_win_rate"] = (
            {"skipped": lc} if isinstance(lc, str) else lc.to_dict()
        )
        payload["calls"] = run
        typer.echo(json.dumps(payload, indent=2))
        return
    render_comparison(
        result,
        Console(),
        title=title,
        run=run,
        length_control=lc,
        alternatives=alternatives,
    )
