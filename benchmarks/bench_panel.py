"""How long a panel's bootstrap diagnostics take at 10,000 items x 5 members (issue 25).

Builds both kinds of panel in memory from a seeded generator, with no files and no
command line, and feeds them to the library functions ``jury`` and ``score-jury``
use:

- **jury**: five Python members give pairwise verdicts on 10,000 items (a shared
  latent preference plus member noise; one member fails on 1% of its calls, so a
  few items are unresolved), through :func:`~fairjudge.evaluation.evaluate_jury`;
  then :func:`~fairjudge.evaluation.jury_diagnostics` and, one by one, what it
  computes: Fleiss' kappa, the effective number of judges, each member's
  leave-one-out agreement and each member's agreement with the human labels;
- **score-jury**: five Python members score 10,000 answers on a 3-dimension rubric
  (1-5; a latent quality plus member noise; one member skips a dimension on 2% of
  the answers), through :func:`~fairjudge.evaluation.score_with_jury`; then
  :func:`~fairjudge.evaluation.score_jury_diagnostics` and its parts:
  Krippendorff's alpha (ordinal, interval) with its CI, the effective number of
  judges, each member's leave-one-out Spearman.

Every interval uses 2,000 resamples (the commands' default), seed 0. Items belong to
2,500 questions (four answers each), so the bootstraps are clustered as the
commands' are. ``--quick`` runs 1,000 items with 200 resamples.

Run: ``python benchmarks/bench_panel.py [--quick] [--only jury|score-jury]``; writes
``benchmarks/results/bench_panel.json`` (``bench_panel_quick.json`` with ``--quick``).
Timings are wall and CPU seconds of this process (BLAS threads included) on a
shared machine: read the CPU column, with the load average recorded beside them.
The step-by-step rows call the diagnostics' private helpers, so an older version of
the package may need this script as of its own commit.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import environment, table, write_json

from fairjudge import Item, Outcome, ScoreItem
from fairjudge.evaluation import (
    EvalSettings,
    evaluate_jury,
    jury_diagnostics,
    score_jury_diagnostics,
    score_with_jury,
)
from fairjudge.evaluation._jury import _human, _leave_one_out, _scores, _votes
from fairjudge.evaluation._panel import effective
from fairjudge.evaluation._score_jury import _alpha, _with_rest
from fairjudge.judges import CallableJudge, CallablePointwiseJudge, Jury, JuryMember
from fairjudge.judges._pointwise import PointwiseJury, PointwiseMember
from fairjudge.stats import agreement_matrix, fleiss_kappa

DIMS = ("accuracy", "relevance", "usefulness")
MEMBERS = 5


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _timed(rows: list[dict[str, Any]], name: str, fn: Callable[[], Any]) -> Any:
    wall, cpu = time.perf_counter(), _cpu()
    out = fn()
    rows.append({"step": name, "wall_s": time.perf_counter() - wall, "cpu_s": _cpu() - cpu})
    print(f"  {name}: {rows[-1]['wall_s']:.2f} s", flush=True)
    return out


def _pairwise_members(n: int, seed: int) -> list[JuryMember]:
    """Members answering from a seeded table: a shared latent plus each member's noise."""
    rng = random.Random(seed)
    latent = {f"q{i}": rng.gauss(0.0, 1.0) for i in range(n)}

    def member(k: int) -> JuryMember:
        noise = random.Random(seed * 100 + k)

        def judge(question: str, answer_a: str, answer_b: str) -> str:
            if k == MEMBERS - 1 and noise.random() < 0.01:
                raise RuntimeError("scripted failure")
            x = latent[question] * (1 if answer_a.startswith("one") else -1)
            x += noise.gauss(0.0, 1.0 + 0.3 * k)
            return "A" if x > 0.4 else "B" if x < -0.4 else "tie"

        return JuryMember(f"member-{k}", CallableJudge(judge), 1.0 + 0.25 * k)

    return [member(k) for k in range(MEMBERS)]


def _pairwise_items(n: int, seed: int) -> list[Item]:
    rng = random.Random(seed + 1)
    return [
        Item(f"q{i}", f"one {i}", f"two {i}", id=f"item-{i}", cluster=f"question-{i // 4}",
             human=rng.choice(list(Outcome)))
        for i in range(n)
    ]  # fmt: skip


def _score_members(n: int, seed: int) -> list[PointwiseMember]:
    rng = random.Random(seed)
    latent = {f"answer {i}": rng.gauss(3.0, 1.0) for i in range(n)}

    def member(k: int) -> PointwiseMember:
        noise = random.Random(seed * 100 + k)

        def scorer(question: str, answer: str) -> dict[str, int]:
            out = {}
            for d in DIMS:
                if k == MEMBERS - 1 and d == "usefulness" and noise.random() < 0.02:
                    continue
                x = latent[answer] + noise.gauss(0.0, 0.6 + 0.2 * k) + (k - 2) * 0.2
                out[d] = min(5, max(1, round(x)))
            return out

        return PointwiseMember(f"scorer-{k}", CallablePointwiseJudge(scorer), 1.0 + 0.25 * k)

    return [member(k) for k in range(MEMBERS)]


def _score_items(n: int, seed: int) -> list[ScoreItem]:
    rng = random.Random(seed + 1)
    return [
        ScoreItem(f"question {i // 4}", f"answer {i}", id=f"answer-{i}",
                  human={"accuracy": rng.randint(1, 5)})
        for i in range(n)
    ]  # fmt: skip


def bench_jury(n: int, n_resamples: int, seed: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    settings = EvalSettings(n_resamples=n_resamples, seed=seed)
    jury = Jury(_pairwise_members(n, seed))
    items = _pairwise_items(n, seed)
    result = _timed(
        rows,
        "jury: evaluate_jury (judging + summary)",
        lambda: evaluate_jury(jury, items, settings),
    )
    rule = result.aggregation
    done = [j for j in result.judgments if j.outcome is not None]
    clusters = [j.item.cluster_key for j in done]
    outcomes = [_votes(j, rule) for j in done]
    votes = [[v.value for v in row] for row in outcomes]
    scores = [_scores(j, rule) for j in done]
    _timed(
        rows, "jury: fleiss_kappa", lambda: fleiss_kappa(votes, questions=clusters, **result.boot)
    )
    _timed(rows, "jury: agreement_matrix", lambda: agreement_matrix(votes))
    _timed(rows, "jury: effective_judges", lambda: effective(scores, clusters, result.boot, ""))
    _timed(
        rows,
        "jury: leave-one-out x5",
        lambda: [_leave_one_out(k, done, outcomes, result) for k in range(MEMBERS)],
    )
    _timed(
        rows,
        "jury: human agreement x5",
        lambda: [_human([v[k] for v in outcomes], done, result) for k in range(MEMBERS)],
    )
    _timed(rows, "jury: jury_diagnostics (all)", lambda: jury_diagnostics(result))
    return rows


def bench_score_jury(n: int, n_resamples: int, seed: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    jury = PointwiseJury(_score_members(n, seed))
    items = _score_items(n, seed)
    result = _timed(
        rows,
        "score-jury: score_with_jury (scoring + summary)",
        lambda: score_with_jury(jury, items, seed=seed, n_resamples=n_resamples),
    )
    boot = result.boot
    clusters = [i.item.cluster_key for i in result.items]

    def member_rows(dimension: str) -> list[list[int | None]]:
        return [i.member_scores(dimension) for i in result.items]

    for metric in ("ordinal", "interval"):
        _timed(
            rows,
            f"score-jury: alpha {metric} x3",
            lambda metric=metric: [
                _alpha([i.member_scores(d) for i in result.items], clusters, metric, boot)
                for d in DIMS
            ],
        )

    def eff() -> list[Any]:
        out = []
        for d in DIMS:
            complete = [
                (r, c)
                for r, c in zip([i.member_scores(d) for i in result.items], clusters, strict=True)
                if None not in r
            ]
            out.append(
                effective(
                    [[float(s) for s in r if s is not None] for r, _ in complete],
                    [c for _, c in complete],
                    boot,
                    "",
                )
            )
        return out

    _timed(rows, "score-jury: effective_judges x3", eff)
    _timed(
        rows,
        "score-jury: spearman with rest x15",
        lambda: [_with_rest(k, result, member_rows(d), boot) for d in DIMS for k in range(MEMBERS)],
    )
    _timed(rows, "score-jury: score_jury_diagnostics (all)", lambda: score_jury_diagnostics(result))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 items, 200 resamples")
    parser.add_argument("--only", choices=("jury", "score-jury"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n, b = (1_000, 200) if args.quick else (10_000, 2_000)
    print(f"panel diagnostics: {n} items x {MEMBERS} members, {b} resamples, seed {args.seed}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip
    rows: list[dict[str, Any]] = []
    if args.only in (None, "jury"):
        rows += bench_jury(n, b, args.seed)
    if args.only in (None, "score-jury"):
        rows += bench_score_jury(n, b, args.seed)
    cells = [[r["step"], f"{r['wall_s']:.2f}", f"{r['cpu_s']:.2f}"] for r in rows]
    print(table(["step", "wall s", "CPU s"], cells))
    payload = {"environment": environment(), "n_items": n, "n_members": MEMBERS,
               "n_resamples": b, "seed": args.seed, "load_average": os.getloadavg(),
               "rows": rows}  # fmt: skip
    name = "bench_panel_quick" if args.quick else "bench_panel"
    print(f"wrote {write_json(name, payload)}")


if __name__ == "__main__":
    main()
