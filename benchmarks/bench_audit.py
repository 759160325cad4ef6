"""The audit of a judge: every bias effect, CI and residual, with its time and calls.

Two parts, both with the same judge (default: the embedded judge) on one store:

1. ``fairjudge.audit.audit`` on the built-in suite (``--limit`` first items; the
   smaller runs are prefixes of the larger, so a larger run reuses the calls):
   position, verbosity (pointwise and pairwise, with residuals), framing.
2. EvalBiasBench's length-bias cases (``../shared/datasets/evalbiasbench``, read in
   place): a correct answer against a longer, worse one. Positions are randomised
   (seeded), the pairs judged with the swap protocol under the standard and the
   length-blind template: the debiased win rate of the correct answer (accuracy) with
   its CI, and the position metrics of those calls.

Run: ``.venv/bin/python benchmarks/bench_audit.py --limit 8``. Prints the report card
and a summary table, and writes ``benchmarks/results/bench_audit.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "datasets"

from benchmarks._common import environment, table, write_json  # noqa: E402
from fairjudge import Item  # noqa: E402
from fairjudge.audit import AuditSettings, ModelAuditJudge, audit, builtin_items  # noqa: E402
from fairjudge.evaluation import EvalSettings, evaluate  # noqa: E402
from fairjudge.judges import BackendOptions, JudgeSession  # noqa: E402
from fairjudge.report import render_audit  # noqa: E402
from fairjudge.runner import RunOptions  # noqa: E402
from fairjudge.stats import position_bias  # noqa: E402


def length_bias_pairs(path: Path, seed: int) -> list[Item]:
    """EvalBiasBench's length-bias cases, the correct answer placed at random (seeded)."""
    data = json.loads((path / "data" / "evalbiasbench" / "biasbench.json").read_text())
    rng = random.Random(seed)
    items = []
    for k, row in enumerate(data["length bias"]):
        good, bad = row["response1"], row["response2"]
        if rng.random() < 0.5:
            items.append(Item(row["instruction"], good, bad, id=f"len-{k}", model_1="correct"))
        else:
            items.append(Item(row["instruction"], bad, good, id=f"len-{k}", model_2="correct"))
    return items


def _correct_rate(result: Any, items: list[Item]) -> dict[str, Any]:
    """Debiased score of the correct answer: the win rate of 'correct' over 'longer'."""
    scores = []
    for j, it in zip(result.judgments, items, strict=True):
        if j.score is None:
            continue
        scores.append(j.score if it.model_1 == "correct" else 1.0 - j.score)
    from fairjudge.stats import bootstrap_mean

    ci = bootstrap_mean(scores, n_resamples=2000, seed=0) if len(scores) > 1 else None
    mean = sum(scores) / len(scores) if scores else None
    return {"accuracy": mean, "ci": None if ci is None else [ci.low, ci.high], "n": len(scores)}


def evalbiasbench(session: JudgeSession, judge: ModelAuditJudge, seed: int) -> dict[str, Any]:
    items = length_bias_pairs(SHARED / "evalbiasbench", seed)
    out: dict[str, Any] = {"n_pairs": len(items)}
    for template in ("default", "concise"):
        t0 = time.perf_counter()
        made0 = session.calls_made
        result = evaluate(
            judge.pairwise(template), items, EvalSettings(seed=seed, judge=judge.name)
        )
        original, swapped = [], []
        for j in result.judgments:
            by = {str(c.order): c.reply.verdict for c in j.calls}
            if by.get("original") is not None and by.get("swapped") is not None:
                original.append(str(by["original"]))
                swapped.append(str(by["swapped"]))
        pos = position_bias(original, swapped, n_resamples=2000, seed=seed) if original else None
        out[template] = {
            **_correct_rate(result, items),
            "position_consistency": None if pos is None else pos.consistency.estimate,
            "first_position": None if pos is None else pos.first_position.estimate,
            "failed_calls": result.n_parse_failures + result.n_call_errors,
            "calls_made": session.calls_made - made0,
            "seconds": time.perf_counter() - t0,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--limit", type=int, default=8, help="built-in suite items (prefix)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--store", type=Path, default=ROOT / "benchmarks" / "results" / "audit_store.sqlite"
    )
    parser.add_argument("--skip-evalbiasbench", action="store_true")
    args = parser.parse_args()
    where = BackendOptions(threads=args.threads)
    options = RunOptions.build(quiet=True)
    with JudgeSession(store=args.store, options=options) as session:
        judge = ModelAuditJudge(args.judge, session=session, backend_options=where)
        t0 = time.perf_counter()
        report = audit(
            judge, builtin_items()[: args.limit], settings=AuditSettings(seed=args.seed),
            source=f"the built-in suite (first {args.limit})",
        )  # fmt: skip
        suite_s, suite_made = time.perf_counter() - t0, session.calls_made
        render_audit(report, Console(width=150), calls_made=suite_made)
        ebb = None if args.skip_evalbiasbench else evalbiasbench(session, judge, args.seed)
        total_made = session.calls_made
    rows = []
    for exp in report.experiments:
        if exp.skipped is not None:
            continue
        shown = [(e, "") for e in exp.effects] + [(e, "after mitigation: ") for e in exp.residual]
        for e, prefix in shown:
            value = "-" if e.estimate is None else f"{e.estimate:.3f}"
            rows.append([exp.bias, (prefix + e.name)[:70], value, format(e.ci, ".3f"), e.verdict])
    print(table(["bias", "effect", "estimate", "CI", "verdict"], rows, left=(0, 1, 4)))
    if ebb is not None:
        print()
        print(table(
            ["EvalBiasBench length bias", "accuracy", "CI", "n", "consistency", "first pos.",
             "failed"],
            [[t, f"{v['accuracy']:.3f}" if v["accuracy"] is not None else "-",
              "-" if v["ci"] is None else f"[{v['ci'][0]:.3f}, {v['ci'][1]:.3f}]", v["n"],
              f"{v['position_consistency']:.3f}" if v["position_consistency"] is not None else "-",
              f"{v['first_position']:.3f}" if v["first_position"] is not None else "-",
              v["failed_calls"]] for t, v in ebb.items() if isinstance(v, dict)],
        ))  # fmt: skip
    per_call = suite_s / suite_made if suite_made else None
    print(
        f"\nbuilt-in suite: {report.n_calls} calls asked, {suite_made} made in {suite_s:.0f} s"
        + (f" ({per_call:.1f} s per call made)" if per_call else " (all from the store)")
    )
    payload = {
        "benchmark": "bench_audit",
        "judge": args.judge,
        "limit": args.limit,
        "report": report.to_dict(),
        "suite_seconds": suite_s,
        "suite_calls_made": suite_made,
        "seconds_per_call": per_call,
        "evalbiasbench_length": ebb,
        "calls_made_total": total_made,
        "environment": environment(),
    }
    print(f"wrote {write_json('bench_audit', payload)}")


if __name__ == "__main__":
    main()
