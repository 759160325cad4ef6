"""Terminal rendering of results with rich: one table a reader can act on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from fairjudge._evaluate import PairwiseResult, Rate, WinRate

if TYPE_CHECKING:
    from fairjudge.stats import LengthControlledWinRate

__all__ = ["render_comparison"]


def _win(w: WinRate | None) -> str:
    if w is None:
        return "n/a"
    return f"{w.estimate:.3f}  [{w.ci.low:.3f}, {w.ci.high:.3f}]"


def _rate(r: Rate | None) -> str:
    if r is None:
        return "n/a"
    return f"{r.estimate:.3f}  [{r.ci.low:.3f}, {r.ci.high:.3f}]  ({r.successes}/{r.n})"


def _verdict_line(w: WinRate | None) -> str:
    if w is None:
        return "No item could be resolved: see the failures above."
    if w.ci.low > 0.5:
        return "Model 1 is better: the whole interval lies above 0.5."
    if w.ci.high < 0.5:
        return "Model 2 is better: the whole interval lies below 0.5."
    return "No clear winner: the interval contains 0.5."


def render_comparison(
    result: PairwiseResult,
    console: Console,
    *,
    title: str,
    run: dict[str, Any] | None = None,
    length_control: LengthControlledWinRate | str | None = None,
    alternatives: tuple[PairwiseResult, ...] = (),
) -> None:
    """Print the comparison table, the naive baseline beside it, and a plain verdict."""
    level = round(float(result.settings.get("level", 0.95)) * 100)
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column(f"value  [{level}% CI]")
    table.add_row("items judged", f"{result.n_items - result.n_unresolved} of {result.n_items}")
    table.add_row("win rate of model 1 (debiased)", _win(result.win_rate))
    w = result.win_rate
    if w is not None:
        table.add_row("wins / ties / losses", f"{w.wins} / {w.ties} / {w.losses}")
    if isinstance(length_control, str):
        table.add_row("length-controlled win rate", f"n/a: {length_control}")
    elif length_control is not None:
        lc = length_control
        table.add_row(
            "length-controlled win rate", f"{lc.estimate:.3f}  [{lc.ci.low:.3f}, {lc.ci.high:.3f}]"
        )
    for alt in alternatives:
        table.add_row(f"  same calls, {alt.settings.get('rule')} rule", _win(alt.win_rate))
    table.add_row("single-order win rate (naive)", _win(result.single_order))
    table.add_row("position consistency", _rate(result.position_consistency))
    table.add_row("first-position preference", _rate(result.first_position))
    table.add_row("inconsistent items", str(result.n_inconsistent))
    table.add_row("parse failures", str(result.n_parse_failures))
    table.add_row("call errors", str(result.n_call_errors))
    if run:
        table.add_row(
            "judge calls",
            f"{run.get('made', 0)} made, {run.get('cached', 0)} cached, "
            f"{run.get('failed', 0)} failed",
        )
        if run.get("input_tokens") or run.get("output_tokens"):
            cost = run.get("cost")
            table.add_row(
                "tokens (in / out)",
                f"{run.get('input_tokens', 0)} / {run.get('output_tokens', 0)}"
                + (f", est. ${cost:.4f}" if cost else ""),
            )
    console.print(table)
    s = result.settings
    console.print(
        f"rule={s.get('rule')} rounds={s.get('rounds')} seed={s.get('seed')}; "
        "a parse failure or call error is never counted as a tie or a loss."
    )
    console.print(f"[bold]{_verdict_line(w)}[/bold]")
    if result.single_order is not None and w is not None:
        gap = result.single_order.estimate - w.estimate
        if abs(gap) >= 0.05:
            console.print(
                f"Asking once, in one order, would have been off by {gap:+.3f}: "
                "that is position bias the swap removed."
            )
