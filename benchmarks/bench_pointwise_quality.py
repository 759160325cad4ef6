"""Quality of pointwise rubric scores from the embedded judge, against human ratings.

Two experiments, one judge session (one model in memory, one store):

1. **Topical-Chat (USR).** Every dialogue response is scored with the rubric
   ``benchmarks/rubrics/topical_chat.toml`` (naturalness, coherence, engagingness,
   groundedness: the four dimensions G-Eval and UniEval report) in ``--mode label``:
   one bare-number call per dimension, whose first token gives both the integer score
   (the greedy token) and the probability-weighted score Σ p(k)·k (G-Eval). Per
   dimension: Spearman and Kendall against the mean human rating, with bootstrap CIs
   clustered by dialogue, for (a) the integer and (b) the expected score, on the same
   responses; Pearson too, for the published G-Eval figures (Liu et al., EMNLP 2023,
   Table 2, reproduced in ``GEVAL`` below); the share of parse failures; and the
   collapse alarm of the integer scores.
2. **LLMBar Natural and Adversarial.** Pairwise from pointwise (``compare
   --via-scores``: each answer scored on its own with the one-dimension rubric
   ``benchmarks/rubrics/llmbar.toml``, so 2 calls per pair) against the soft swap
   (2 calls per pair, both orders) and a single call, with the default pairwise
   template. The single call is scored in both orders ("single order": each of the
   soft swap's two calls read alone, so a pair scores 0, 1/2 or 1; the accuracy of one
   call with the answers placed at random); "single order, as given" (the first call
   alone) is shown too, but its accuracy follows the sample's label layout (19 of the
   first 25 Adversarial pairs have the better answer first, which flatters a judge
   that prefers position A). Accuracy over resolved pairs (a tie is wrong: LLMBar has
   no ties) with a bootstrap CI, and the paired difference of via-scores against
   each, over the pairs both resolved. "via scores (integer)" reads the same calls'
   integer scores, to show what the probabilities add.

Subsets are seeded prefixes: each dataset is shuffled once with ``--seed`` and its
first ``--*-limit`` items are used, so a larger run reuses every call of a smaller
one from the store (``--store``, default ``.fairjudge/bench_pointwise_quality.sqlite``,
git-ignored). Seconds per call are the latencies recorded in the store for the calls
each experiment used, so a rerun served from the store still reports them.

    .venv/bin/python benchmarks/bench_pointwise_quality.py --threads 2 \\
        --topical-limit 60 --natural-limit 25 --adversarial-limit 25
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sqlite3
import sys
import time
from collections.abc import Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import environment, table, write_json
from scipy.stats import pearsonr

from fairjudge import Item, Judgment, Outcome, evaluate_pairs
from fairjudge._items import ScoreItem
from fairjudge._types import CallError, ParseFailure
from fairjudge.evaluation import ScoreResult, score_answers
from fairjudge.evaluation._scores_stats import human_agreement
from fairjudge.evaluation._via_scores import ViaScoresResult, compare_via_scores
from fairjudge.judges._pairwise import LLMJudge
from fairjudge.judges._pointwise import PointwiseJudge
from fairjudge.judges._registry import BackendOptions, resolve_judge
from fairjudge.prompts import get_rubric
from fairjudge.runner import RunOptions
from fairjudge.stats import bootstrap_mean

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
SHARED = ROOT.parent / "shared" / "datasets"
TOPICAL_FILE = "reproduce/data/dialogue/topical_chat.json"
ADVERSARIAL = ("Neighbor", "GPTInst", "GPTOut", "Manual")
LABELS = {"1": Outcome.ONE, "2": Outcome.TWO}

# G-Eval (Liu et al., "G-Eval: NLG Evaluation using GPT-4 with Better Human Alignment",
# EMNLP 2023, p. 2515, Table 2; arXiv:2303.16634): turn-level correlations with the
# human ratings on all 360 Topical-Chat responses. The columns are headed r and rho,
# and the text says "We calculate the Pearson and Spearman correlation for each turn";
# the caption says "Spearman (rho) and Kendall-Tau (tau)", which the columns contradict.
# Read as (Pearson r, Spearman rho).
GEVAL: dict[str, dict[str, tuple[float, float]]] = {
    "G-EVAL-4": {
        "naturalness": (0.549, 0.565),
        "coherence": (0.594, 0.605),
        "engagingness": (0.627, 0.631),
        "groundedness": (0.531, 0.551),
        "average": (0.575, 0.588),
    },
    "G-EVAL-3.5": {
        "naturalness": (0.532, 0.539),
        "coherence": (0.519, 0.544),
        "engagingness": (0.660, 0.691),
        "groundedness": (0.586, 0.567),
        "average": (0.574, 0.585),
    },
    "UniEval": {
        "naturalness": (0.455, 0.330),
        "coherence": (0.602, 0.455),
        "engagingness": (0.573, 0.430),
        "groundedness": (0.577, 0.453),
        "average": (0.552, 0.417),
    },
}


def seeded_prefix(n_total: int, limit: int | None, seed: int) -> list[int]:
    """The first ``limit`` indices of one seeded shuffle: a smaller limit is a prefix."""
    order = list(range(n_total))
    random.Random(seed).shuffle(order)
    return order if limit is None else order[:limit]


# -- data --------------------------------------------------------------------------------


def topical_conversation(source: str, fact: str) -> tuple[tuple[str, str], ...]:
    """The dialogue as turns ending with the other speaker's, after a system turn: the fact.

    Only the roles a scoring file accepts (system, user, assistant), so the same items
    can be written as JSONL and run through ``fairjudge score``.
    """
    turns = [t.strip() for t in source.split("\n") if t.strip()]
    # The response answers the last turn: that one is "user", and roles alternate back.
    roles = ["user" if (len(turns) - 1 - i) % 2 == 0 else "assistant" for i in range(len(turns))]
    return (("system", f"Fact: {fact.strip()}"), *zip(roles, turns, strict=True))


def load_topical_chat(folder: Path, dims: Sequence[str], limit: int | None, seed: int):
    data = json.loads((folder / TOPICAL_FILE).read_text("utf-8"))
    items = []
    for i in seeded_prefix(len(data), limit, seed):
        d = data[i]
        items.append(
            ScoreItem(
                topical_conversation(d["source"], d["context"]),
                d["system_output"].strip(),
                id=f"topical-{i}",
                category=d["system_id"],
                human={dim: float(d["scores"][dim]) for dim in dims},
                cluster=d["source"],  # six responses per dialogue: resampled together
            )
        )
    return items


def _llmbar_item(d: dict[str, Any], item_id: str, category: str) -> Item:
    return Item(
        d["input"],
        d["output_1"],
        d["output_2"],
        id=item_id,
        category=category,
        human=LABELS[str(d["label"])],
    )


def load_llmbar(folder: Path, subset: str, limit: int | None, seed: int) -> list[Item]:
    base = folder / "Dataset/LLMBar"
    pool: list[Item] = []
    if subset == "Natural":
        data = json.loads((base / "Natural/dataset.json").read_text("utf-8"))
        pool = [_llmbar_item(d, f"llmbar-{i}", "Natural") for i, d in enumerate(data)]
    else:
        for part in ADVERSARIAL:
            data = json.loads((base / "Adversarial" / part / "dataset.json").read_text("utf-8"))
            pool += [_llmbar_item(d, f"llmbar-{part}-{i}", part) for i, d in enumerate(data)]
    return [pool[i] for i in seeded_prefix(len(pool), limit, seed)]


# -- numbers -----------------------------------------------------------------------------


def call_latencies(store: Path, keys: Iterable[str | None]) -> dict[str, Any]:
    """Mean latency and prompt size of the stored calls behind ``keys`` (cached or not)."""
    wanted = sorted({k for k in keys if k})
    if not wanted or not store.exists():
        return {"calls": 0, "seconds_per_call": None, "input_tokens_per_call": None}
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        rows = []
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows += db.execute(
                f"SELECT latency_s, input_tokens FROM calls WHERE key IN ({marks})", chunk
            ).fetchall()
    latencies = [r[0] for r in rows if r[0] is not None]
    tokens = [r[1] for r in rows if r[1] is not None]
    return {
        "calls": len(rows),
        "seconds_per_call": sum(latencies) / len(latencies) if latencies else None,
        "input_tokens_per_call": sum(tokens) / len(tokens) if tokens else None,
        "seconds_total": sum(latencies),
    }


def ci_text(ci: Any) -> str:
    if ci is None or not ci.estimable:
        return "[n/a]"
    return f"[{ci.low:.2f}, {ci.high:.2f}]"


def corr_entry(
    judge: Sequence[float], human: Sequence[float], clusters: Sequence[Hashable], args: Any
) -> dict[str, Any]:
    found = human_agreement(
        judge, human, clusters, seed=args.seed, level=0.95, n_resamples=args.bootstrap
    )
    if isinstance(found, str):
        return {"skipped": found, "n": len(judge)}
    pearson = float(pearsonr(judge, human).statistic) if len(set(judge)) > 1 else float("nan")
    return {**found.to_dict(), "pearson": pearson, "_result": found}


def fmt_corr(entry: dict[str, Any], which: str) -> str:
    result = entry.get("_result")
    if result is None:
        return "n/a"
    value = getattr(result, which)
    return f"{value:.3f} {ci_text(getattr(result, which + '_ci'))}"


def dimension_report(result: ScoreResult, dim: str, args: Any) -> dict[str, Any]:
    scored = result.items
    calls = [c for s in scored for c in s.scored.calls if c.dimension == dim]
    parse_failures = sum(isinstance(c.reply.failure, ParseFailure) for c in calls)
    call_errors = sum(isinstance(c.reply.failure, CallError) for c in calls)
    both = [s for s in scored if dim in s.scored.scores and dim in s.scored.expected]
    human = [s.item.human[dim] for s in both]
    clusters = [s.item.cluster_key for s in both]
    integer = [float(s.scored.scores[dim]) for s in both]
    expected = [s.scored.expected[dim] for s in both]
    masses = [
        c.reply.payload["expected"][dim]["mass"]
        for c in calls
        if c.reply.payload and (c.reply.payload.get("expected") or {}).get(dim)
    ]
    summary = next(d for d in result.dimensions if d.name == dim)
    return {
        "calls": len(calls),
        "parse_failures": parse_failures,
        "call_errors": call_errors,
        "parse_failure_share": parse_failures / len(calls) if calls else None,
        "n_both": len(both),
        "n_no_expected": sum(
            dim in s.scored.scores and dim not in s.scored.expected for s in scored
        ),
        "integer": corr_entry(integer, human, clusters, args),
        "expected": corr_entry(expected, human, clusters, args),
        "histogram": {str(k): v for k, v in summary.histogram.items()},
        "collapse": summary.collapse.to_dict(),
        "mean_score": summary.mean.estimate,
        "mean_expected": summary.expected.estimate if summary.expected else None,
        "mean_mass_on_levels": sum(masses) / len(masses) if masses else None,
    }


def accuracy(correct: Sequence[bool], args: Any) -> dict[str, Any]:
    if not correct:
        return {"accuracy": None, "ci": None, "n": 0, "correct": 0}
    ci = bootstrap_mean([float(c) for c in correct], n_resamples=args.bootstrap, seed=args.seed)
    return {"accuracy": sum(correct) / len(correct), "ci": ci, "n": len(correct),
            "correct": sum(correct)}  # fmt: skip


def paired(a: dict[str, bool | None], b: dict[str, bool | None], args: Any) -> dict[str, Any]:
    """Accuracy of ``a`` minus ``b`` over the items both resolved, with a bootstrap CI."""
    shared = [k for k in a if a[k] is not None and b.get(k) is not None]
    diffs = [float(a[k]) - float(b[k]) for k in shared]  # type: ignore[arg-type]
    if not diffs:
        return {"difference": None, "ci": None, "n": 0}
    ci = bootstrap_mean(diffs, n_resamples=args.bootstrap, seed=args.seed)
    return {"difference": sum(diffs) / len(diffs), "ci": ci, "n": len(diffs)}


def single_call_mark(judgment: Judgment) -> float | None:
    """The share of an item's calls (one per order) that were right; ``None`` if any failed."""
    preferred = [c.preferred for c in judgment.calls]
    if not preferred or any(p is None for p in preferred):
        return None
    return sum(p == judgment.item.human for p in preferred) / len(preferred)


def via_integer_outcome(pair: Any, names: Sequence[str]) -> Outcome | None:
    a, b = pair.first.scored.scores, pair.second.scored.scores
    if not all(n in a and n in b for n in names):
        return None
    diff = sum(a[n] - b[n] for n in names)
    return Outcome.ONE if diff > 0 else Outcome.TWO if diff < 0 else Outcome.TIE


# -- experiments -------------------------------------------------------------------------


def run_topical(args: Any, session_judge: LLMJudge) -> dict[str, Any]:
    rubric = get_rubric(str(args.topical_rubric))
    items = load_topical_chat(args.topical, rubric.names, args.topical_limit, args.seed)
    judge = PointwiseJudge(
        session_judge.backend, session=session_judge.session, rubric=rubric, mode="label"
    )
    start = time.perf_counter()
    result = score_answers(judge, items, seed=args.seed, n_resamples=args.bootstrap)
    elapsed = time.perf_counter() - start
    made = judge.last_run.made if judge.last_run else None
    keys = [c.reply.key for s in result.items for c in s.scored.calls]
    dims = {d: dimension_report(result, d, args) for d in rubric.names}
    return {
        "rubric": rubric.name,
        "rubric_version": rubric.version,
        "n_responses": len(items),
        "n_dialogues": len({it.cluster_key for it in items}),
        "dimensions": dims,
        "wall_s": elapsed,
        "new_calls": made,
        "timing": call_latencies(args.store, keys),
    }


def run_llmbar(args: Any, pair_judge: LLMJudge, subset: str, limit: int | None):
    items = load_llmbar(args.llmbar, subset, limit, args.seed)
    rubric = get_rubric(str(args.llmbar_rubric))
    point = PointwiseJudge(
        pair_judge.backend, session=pair_judge.session, rubric=rubric, mode="label"
    )
    per_item: dict[str, dict[str, bool | None]] = {}
    methods: dict[str, dict[str, Any]] = {}

    def record(name: str, outcomes: dict[str, Outcome | None], keys: list[str | None],
               wall: float, made: int | None, calls_per_item: float) -> None:  # fmt: skip
        truth = {it.id: it.human for it in items}
        marks = {k: (None if o is None else o == truth[k]) for k, o in outcomes.items()}
        per_item[name] = marks
        resolved = [m for m in marks.values() if m is not None]
        methods[name] = {
            **accuracy(resolved, args),
            "unresolved": sum(m is None for m in marks.values()),
            "ties": sum(o == Outcome.TIE for o in outcomes.values()),
            "calls_per_item": calls_per_item,
            "wall_s": wall,
            "new_calls": made,
            "timing": call_latencies(args.store, keys),
        }

    swaps: list[Judgment] = []
    for name, rounds, rule in (
        ("soft swap", 2, "soft"),
        ("single order, as given", 1, "conservative"),
    ):
        start = time.perf_counter()
        r = evaluate_pairs(pair_judge, items, rounds=rounds, rule=rule, seed=args.seed)
        wall = time.perf_counter() - start
        made = pair_judge.last_run.made if pair_judge.last_run else None
        outcomes = {j.item.id: j.outcome for j in r.judgments}
        keys = [c.reply.key for j in r.judgments for c in j.calls]
        record(name, outcomes, keys, wall, made, len(keys) / len(items))
        if rounds == 2:
            swaps = list(r.judgments)
    # The fair single call: each of the swap's calls alone, so both orders count once.
    halves = {j.item.id: single_call_mark(j) for j in swaps}
    per_item["single order"] = halves  # type: ignore[assignment]
    scored = [m for m in halves.values() if m is not None]
    given = methods.pop("single order, as given")  # shown after the fair figure
    methods["single order"] = {
        **accuracy(scored, args),  # type: ignore[arg-type]
        "unresolved": sum(m is None for m in halves.values()),
        "ties": sum(c.preferred == Outcome.TIE for j in swaps for c in j.calls) / 2,
        "calls_per_item": 1,
        "wall_s": 0.0,
        "new_calls": 0,
        "timing": methods["soft swap"]["timing"],
        "derived_from": "soft swap: each call alone, both orders",
    }
    methods["single order, as given"] = given
    start = time.perf_counter()
    via: ViaScoresResult = compare_via_scores(
        point, items, seed=args.seed, n_resamples=args.bootstrap
    )
    wall = time.perf_counter() - start
    made = point.last_run.made if point.last_run else None
    keys = [c.reply.key for p in via.pairs for s in (p.first, p.second) for c in s.scored.calls]
    outcomes = {p.item.id: p.outcome for p in via.pairs}
    record("via scores", outcomes, keys, wall, made, len(keys) / len(items))
    integer = {p.item.id: via_integer_outcome(p, rubric.names) for p in via.pairs}
    record("via scores (integer)", integer, keys, 0.0, 0, len(keys) / len(items))
    methods["via scores"]["on_expected_scores"] = via.n_expected
    differences = {
        f"via scores - {other}": paired(per_item["via scores"], per_item[other], args)
        for other in ("soft swap", "single order", "single order, as given", "via scores (integer)")
    }
    return {
        "n": len(items),
        "rubric": rubric.name,
        "methods": methods,
        "paired_differences": differences,
        "per_item": per_item,
    }


# -- output ------------------------------------------------------------------------------


def topical_tables(report: dict[str, Any]) -> str:
    rows, dist = [], []
    spearman: dict[str, dict[str, float]] = {"integer": {}, "expected": {}}
    pearson: dict[str, dict[str, float]] = {"integer": {}, "expected": {}}
    for dim, d in report["dimensions"].items():
        g4 = GEVAL["G-EVAL-4"][dim]
        for kind in ("integer", "expected"):
            entry = d[kind]
            if entry.get("_result") is not None:
                spearman[kind][dim] = entry["_result"].spearman
                pearson[kind][dim] = entry["pearson"]
            rows.append(
                [
                    dim if kind == "integer" else "",
                    kind,
                    f"{d['n_both']}",
                    fmt_corr(entry, "spearman"),
                    fmt_corr(entry, "kendall"),
                    f"{entry['pearson']:.3f}" if "pearson" in entry else "n/a",
                    f"{g4[1]:.3f} / {g4[0]:.3f}" if kind == "expected" else "",
                ]
            )
        c = d["collapse"]
        share = c["adjacent_share"]
        dist.append(
            [
                dim,
                f"{d['parse_failures']}/{d['calls']}",
                f"{d['parse_failure_share']:.1%}" if d["parse_failure_share"] is not None else "-",
                " ".join(map(str, d["histogram"].values())),
                f"{d['mean_score']:.2f}" if d["mean_score"] is not None else "-",
                f"{d['mean_expected']:.2f}" if d["mean_expected"] is not None else "-",
                f"{share:.0%} on {c['adjacent_levels']}" if share is not None else "-",
                f"{c['spread']:.2f}" if c["spread"] is not None else "-",
                {True: "COLLAPSED", False: "ok", None: "n/a"}[c["collapsed"]],
                f"{d['mean_mass_on_levels']:.3f}" if d["mean_mass_on_levels"] is not None else "-",
            ]
        )
    # Average over the dimensions where both scores have a correlation: a dimension
    # whose integer scores are all equal has none, and leaving it out of one average
    # only would compare different dimensions.
    both = [d for d in spearman["integer"] if d in spearman["expected"]]
    g4 = GEVAL["G-EVAL-4"]["average"]
    averages: dict[str, Any] = {"dimensions": both}
    for kind in ("integer", "expected"):
        s = [spearman[kind][d] for d in both]
        p = [pearson[kind][d] for d in both]
        averages[kind] = {"spearman": _mean(s), "pearson": _mean(p)}
        rows.append(
            [
                f"AVERAGE ({len(both)} dims)" if kind == "integer" else "",
                kind,
                "",
                f"{_mean(s):.3f}" if s else "n/a",
                "",
                f"{_mean(p):.3f}" if p else "n/a",
                f"{g4[1]:.3f} / {g4[0]:.3f}" if kind == "expected" else "",
            ]
        )
    averages["expected_all_dimensions"] = {
        "spearman": _mean(list(spearman["expected"].values())),
        "pearson": _mean(list(pearson["expected"].values())),
    }
    report["averages"] = averages
    corr = table(
        ["dimension", "score", "n", "Spearman [95% CI]", "Kendall [95% CI]", "Pearson",
         "G-Eval-4 rho / r"],
        rows,
        left=(0, 1),
    )  # fmt: skip
    spread = table(
        ["dimension", "parse fail", "share", "histogram 1..5", "mean int", "mean exp",
         "top band", "spread", "collapse", "p on digits"],
        dist,
    )  # fmt: skip
    return corr + "\n\n" + spread


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def llmbar_table(reports: dict[str, dict[str, Any]]) -> str:
    rows = []
    for subset, rep in reports.items():
        for name, m in rep["methods"].items():
            acc = m["accuracy"]
            t = m["timing"]
            rows.append(
                [
                    f"LLMBar-{subset}",
                    name,
                    f"{acc:.3f} {ci_text(m['ci'])}" if acc is not None else "n/a",
                    f"{m['correct']:g}/{m['n']}",
                    f"{m['unresolved']}",
                    f"{m['ties']:g}",
                    f"{m['calls_per_item']:.0f}",
                    f"{t['seconds_per_call']:.2f}" if t["seconds_per_call"] else "-",
                ]
            )
    out = table(
        ["dataset", "method", "accuracy [95% CI]", "correct", "unresolved", "ties",
         "calls/item", "s/call"],
        rows,
        left=(0, 1),
    )  # fmt: skip
    lines = [out, ""]
    for subset, rep in reports.items():
        for name, d in rep["paired_differences"].items():
            if d["difference"] is not None:
                lines.append(
                    f"LLMBar-{subset}: {name}: {d['difference'] * 100:+.1f} points "
                    f"{_points(d['ci'])} over {d['n']} pairs"
                )
    return "\n".join(lines)


def _points(ci: Any) -> str:
    if ci is None or not ci.estimable:
        return "[n/a]"
    return f"[{ci.low * 100:+.1f}, {ci.high * 100:+.1f}]"


def jsonable(value: Any) -> Any:
    """Drop the private result objects; intervals become dicts; NaN becomes None."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--base-url", default=None, help="server URL, for openai/ judges")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bootstrap", type=int, default=2000)
    parser.add_argument("--topical-limit", type=int, default=60, help="of 360 responses")
    parser.add_argument("--natural-limit", type=int, default=25, help="of 100 pairs")
    parser.add_argument("--adversarial-limit", type=int, default=25, help="of 319 pairs")
    parser.add_argument("--topical", type=Path, default=SHARED / "topical-chat-usr")
    parser.add_argument("--llmbar", type=Path, default=SHARED / "llmbar")
    parser.add_argument("--topical-rubric", type=Path, default=HERE / "rubrics/topical_chat.toml")
    parser.add_argument("--llmbar-rubric", type=Path, default=HERE / "rubrics/llmbar.toml")
    parser.add_argument(
        "--store", type=Path, default=ROOT / ".fairjudge" / "bench_pointwise_quality.sqlite"
    )
    parser.add_argument(
        "--name", default="bench_pointwise_quality", help="results file: results/NAME.json"
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    args.store.parent.mkdir(parents=True, exist_ok=True)

    judge = resolve_judge(
        args.judge,
        backend_options=BackendOptions(threads=args.threads, base_url=args.base_url),
        store=args.store,
        options=RunOptions(progress="quiet" if args.quiet else "auto"),
    )
    if not isinstance(judge, LLMJudge):
        raise SystemExit(f"{args.judge}: this benchmark needs a model judge")
    started = time.perf_counter()
    payload: dict[str, Any] = {"judge": args.judge, "seed": args.seed, "store": str(args.store)}
    if args.topical_limit:
        topical = run_topical(args, judge)
        print(flush=True)
        n, dialogues = topical["n_responses"], topical["n_dialogues"]
        print(f"Topical-Chat (USR): {n} responses from {dialogues} dialogues, --mode label")
        print(topical_tables(topical))
        t = topical["timing"]
        print(f"{t['calls']} calls, {t['seconds_per_call']:.2f} s/call "
              f"({t['input_tokens_per_call']:.0f} prompt tokens/call)")  # fmt: skip
        payload["topical_chat"] = topical
    llmbar = {}
    for subset, limit in (("Natural", args.natural_limit), ("Adversarial", args.adversarial_limit)):
        if limit:
            llmbar[subset] = run_llmbar(args, judge, subset, limit)
    if llmbar:
        print(flush=True)
        print(llmbar_table(llmbar))
        payload["llmbar"] = llmbar
    figures = {
        k: {d: {"pearson": v[0], "spearman": v[1]} for d, v in dims.items()}
        for k, dims in GEVAL.items()
    }
    payload["geval_reference"] = {
        "source": "Liu et al., G-Eval, EMNLP 2023, Table 2 (arXiv:2303.16634)",
        "columns": "Pearson r, Spearman rho (column headers and text; the caption says "
        "Spearman and Kendall-Tau)",
        "figures": figures,
    }
    payload["wall_s"] = time.perf_counter() - started
    payload["forward_passes"] = getattr(judge.backend, "forward_passes", None)
    payload["environment"] = {**environment(), "threads": args.threads}
    judge.close()
    print(f"wrote {write_json(args.name, jsonable(payload))}")


if __name__ == "__main__":
    main()
