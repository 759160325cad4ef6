"""The calibration report: a judge's agreement with human labels, as text or JSON."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from fairjudge.report._text import say

__all__ = ["calibration_payload", "render_calibration"]

_FIGURES = ("agreement", "correlation", "system", "position_bias")


def calibration_payload(report: dict[str, Any], *, judge: str) -> dict[str, Any]:
    """The JSON form of :func:`fairjudge.audit.calibration_report`'s report."""
    payload = {k: (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in report.items()}
    payload["judge"] = judge
    return payload


def render_calibration(report: dict[str, Any], console: Console) -> None:
    """Print each figure's summary (a figure the data could not support says why), then the gate."""
    say(
        console,
        f"{report['n_resolved']} of {report['n_items']} items resolved"
        f" ({report['n_unresolved']} left out: parse failures or call errors)",
        style="bold",
    )
    for key in _FIGURES:
        if key in report:
            say(console, report[key].summary())
            console.print()
    for key, reason in report.get("skipped", {}).items():
        say(console, f"{key}: not estimated: {reason}")
    if "gate" in report:
        console.print()
        say(console, report["gate"].summary())
