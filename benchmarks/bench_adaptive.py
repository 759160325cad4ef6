"""Adaptive stopping (issues 24, 30): its error under the null, and the calls it saves.

Everything here runs at the level of per-item scores from scripted or replayed
judges, at no model cost, through :class:`~fairjudge.stats._confseq.WealthGrid` (the
engine of :class:`~fairjudge.stats._confseq.ConfidenceSequence`), with many runs
followed in lock-step. The decision "0.5 is excluded" reads only the capital at 0.5,
so the runs use the grid ``[0.5]``: the same decisions as the full grid, at a
fraction of the cost. Each run judges its file's units in a seeded random order, in
batches (both orders of an item in the same batch), and stops at the first batch
after which the anytime-valid interval at level 0.95 excludes 0.5
(``stop_when="decided"``), or at the end of the file. A decision reached in the last
batch, at the end of the file, counts like any other.

The default sequence (``population="source"``) is the betting sequence *with*
replacement: it is about the population the file's questions are drawn from. The
sequence about the file alone (``population="file"``, without replacement) is shown
beside it under the null, where it shows why it is not the default.

1. **Error under the null, end of the file included.** A scripted seed-protocol judge
   ``judge(q, a, b)`` prefers model 1 on a seeded half of its items and model 2 on
   the other half; on top, each call answers the first position (``bias``) or ``tie``
   (``tie``) at random. The noise draws of the k-th model-1 item and the k-th model-2
   item are mirrored (orders exchanged), so their scores add to 1 and the judge's
   population of item scores has a win rate of exactly 0.5: any declared winner is
   wrong. Items are resolved from the two calls with :func:`fairjudge.resolve`
   (conservative or soft rule). Each of the 2,000 runs judges a *fresh file* of
   ``items`` items drawn i.i.d. from that population (a file's own win rate is then
   not exactly 0.5, as in real use), in random order. Three readers of the same files:
   the default sequence; the sequence about the file alone; and the naive one, which
   after every batch computes a 95% percentile bootstrap CI on the items judged so
   far (1,000 resamples) and stops when it excludes 0.5. Scores take a few distinct
   values, so a bootstrap resample of ``n`` scores is exactly a multinomial draw of
   their counts; that is how it is drawn here. Each share comes with its exact
   (Clopper-Pearson) 95% binomial CI.
2. **Savings on recorded judgments.** GPT-4's PRD reviews (Vicuna-80, both orders,
   ``ratings-gpt4``; 10 system pairs x 80 questions) resolved by the conservative
   rule, and GPT-4's LLMFAO verdicts (``gpt4-comparisons.csv``), which hold *one*
   order per prompt: there each prompt is one call scored as it stands (position
   bias not removed), for the pairs with at least ``--min-prompts`` prompts. Per pair,
   500 random orders. The full-run result is the side of the full file's
   fixed-sample bootstrap CI ("-" when it contains 0.5): the answer a full run gives.
   "same" is the share of runs that end with that answer (a side, or none);
   "opposite" the share that declare the side opposite to the file's win rate.
3. **Large synthetic sets.** 10,000 items with swap-protocol scores (20% ties) at
   exact win rates 0.50 .. 0.70; 500 orders each. Against the fixed sample size of a
   two-sided z-test at alpha = 0.05 with power 1 - beta, for the population (no
   finite-population correction): ``n = sigma^2 (z_{1-alpha/2} + z_{1-beta})^2 /
   (p - 0.5)^2``, 2 calls per item, ``sigma^2`` the score variance. A fixed design with
   power 80% decides in 80% of runs, so it compares with the adaptive run's 80th
   percentile of calls (and 90% with the 90th).

Run: ``nice python benchmarks/bench_adaptive.py [--prd ../shared/datasets/prd]
[--llmfao ../shared/datasets/llmfao]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import binomtest, norm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import environment, table, write_json

from fairjudge import Call, Order, Reply, Verdict
from fairjudge._protocol import normalize_verdict, resolve
from fairjudge.stats import bootstrap_mean
from fairjudge.stats._confseq import WealthGrid

REPO = Path(__file__).resolve().parents[1]
LEVEL = 0.95
PRD_MODELS = ("bard", "claude", "gpt35", "gpt4", "vicuna-13b")
PRD_SCORE = {1: Verdict.A, 2: Verdict.B, 3: Verdict.TIE}
Array = NDArray[np.float64]


# --- the adaptive and the naive runs -------------------------------------------------


def adaptive_runs(files: Array, batch: int, *, replacement: bool = True) -> dict[str, Any]:
    """Each row of ``files`` judged in its order; it stops at the first batch that decides.

    Returns the units used per run, the winner (0 none, 1, 2), and whether the
    decision came in the last batch, at the end of the file.
    """
    runs, n = files.shape
    wealth = WealthGrid(n, runs, level=LEVEL, grid=[0.5], replacement=replacement)
    used, winner = np.full(runs, n), np.zeros(runs, dtype=np.int8)
    for start in range(0, n, batch):
        wealth.update(files[:, start : start + batch])
        new = (winner == 0) & (wealth.winner > 0)
        used[new], winner[new] = wealth.n, wealth.winner[new]
    # Decided in the last batch: the sequence had seen the whole file.
    return {"used": used, "winner": winner, "at_end": (winner > 0) & (used == n)}


def adaptive(pop: Array, runs: int, batch: int, seed: int) -> dict[str, Any]:
    """``runs`` random orders of one file ``pop``, read by the default sequence."""
    orders = np.random.default_rng(seed).permuted(np.tile(pop, (runs, 1)), axis=1)
    return adaptive_runs(orders, batch)


def naive_peeking(files: Array, batch: int, seed: int, resamples: int) -> NDArray[Any]:
    """Winner (0, 1, 2) of each run that stops when a bootstrap CI excludes 0.5."""
    rng = np.random.default_rng(seed)
    runs, n = files.shape
    values, codes = np.unique(files, return_inverse=True)
    codes = codes.reshape(files.shape)
    counts = np.zeros((runs, values.size))
    winner = np.zeros(runs, dtype=np.int8)
    for start in range(0, n, batch):
        np.add.at(counts, (np.arange(runs)[:, None], codes[:, start : start + batch]), 1)
        live = np.flatnonzero(winner == 0)
        seen = start + min(batch, n - start)
        draws = rng.multinomial(seen, counts[live] / seen, size=(resamples, live.size))
        low, high = np.quantile(draws @ values / seen, [0.025, 0.975], axis=0)
        winner[live] = np.where(low > 0.5, 1, np.where(high < 0.5, 2, 0))
    return winner


def _share(k: int, n: int) -> dict[str, float]:
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return {"share": k / n, "count": k, "runs": n, "ci_low": ci.low, "ci_high": ci.high}


def _summary(
    res: dict[str, Any], truth: int, n: int, calls_per_unit: int, mean_side: int
) -> dict[str, Any]:
    """Calls and decisions of a set of runs; ``truth`` 0: the full run decides nothing."""
    used, winner = res["used"] * calls_per_unit, res["winner"]
    runs, full = winner.size, n * calls_per_unit
    opposite = int(((winner > 0) & (winner != mean_side)).sum()) if mean_side else 0
    return {
        "same": float((winner == truth).mean()),
        "opposite": _share(opposite, runs),
        "decided": _share(int((winner > 0).sum()), runs),
        "decided_at_end": int(res["at_end"].sum()),
        "stopped_early": float((res["used"] < n).mean()),
        "calls_full": full,
        "calls": {f"p{q}": float(np.percentile(used, q)) for q in (50, 80, 90)},
        "share_of_calls": {f"p{q}": float(np.percentile(used, q)) / full for q in (50, 80, 90)},
        "calls_saved_mean": float(1 - used.mean() / full),
    }


# --- 1. the null ----------------------------------------------------------------------


class ScriptedJudge:
    """A seed-protocol judge whose items have a population win rate of exactly 0.5."""

    def __init__(self, n_items: int, *, bias: float, tie: float, seed: int) -> None:
        rng = np.random.default_rng(seed)
        who = rng.permutation(n_items)
        half = n_items // 2
        self.prefers_one = np.zeros(n_items, dtype=bool)
        self.prefers_one[who[:half]] = True
        # 0: its preference, 1: the first position, 2: tie; per (mirrored pair, order).
        events = rng.choice(3, p=[1 - bias - tie, bias, tie], size=(half, 2))
        self.event: dict[tuple[int, Order], int] = {}
        for k, (one, two) in enumerate(zip(who[:half], who[half:], strict=True)):
            self.event[int(one), Order.ORIGINAL] = self.event[int(two), Order.SWAPPED] = events[
                k, 0
            ]
            self.event[int(one), Order.SWAPPED] = self.event[int(two), Order.ORIGINAL] = events[
                k, 1
            ]

    def __call__(self, question: str, answer_a: str, answer_b: str) -> str:
        item = int(question.rsplit(" ", 1)[1])
        order = Order.ORIGINAL if answer_a.startswith("model 1") else Order.SWAPPED
        event = self.event[item, order]
        if event:
            return "A" if event == 1 else "tie"
        return "A" if (order is Order.ORIGINAL) == self.prefers_one[item] else "B"

    def scores(self, rule: str) -> Array:
        out = []
        for item in range(self.prefers_one.size):
            q, one, two = f"question {item}", f"model 1 on {item}", f"model 2 on {item}"
            calls = [
                Call(Order.ORIGINAL, 0, Reply(normalize_verdict(self(q, one, two)))),
                Call(Order.SWAPPED, 0, Reply(normalize_verdict(self(q, two, one)))),
            ]
            resolved = resolve(calls, rule)  # type: ignore[arg-type]
            assert resolved is not None
            out.append(resolved[1])
        return np.array(out)


NULL_SETTINGS = [
    {"items": 1000, "batch": 20, "rule": "conservative", "bias": 0.3, "tie": 0.0},
    {"items": 1000, "batch": 20, "rule": "soft", "bias": 0.2, "tie": 0.15},
    {"items": 200, "batch": 5, "rule": "conservative", "bias": 0.3, "tie": 0.0},
]


def null_part(runs: int, resamples: int, seed: int) -> list[dict[str, Any]]:
    out = []
    for k, s in enumerate(NULL_SETTINGS):
        judge = ScriptedJudge(s["items"], bias=s["bias"], tie=s["tie"], seed=seed + k)
        pop = judge.scores(s["rule"])
        assert pop.sum() * 2 == pop.size, "the scripted population must have mean exactly 0.5"
        # Each run: a fresh file drawn i.i.d. from the population, in random order.
        files = np.random.default_rng(seed + 100 + k).choice(pop, size=(runs, pop.size))
        t0 = time.perf_counter()
        source = adaptive_runs(files, s["batch"])
        t1 = time.perf_counter()
        this_file = adaptive_runs(files, s["batch"], replacement=False)
        t2 = time.perf_counter()
        naive = naive_peeking(files, s["batch"], seed + 200 + k, resamples)
        file_means = files.mean(axis=1)
        out.append({
            "setting": s, "seed": seed + k, "score_values": sorted(set(pop.tolist())),
            "files_off_half": int((file_means != 0.5).sum()),
            "adaptive": _summary(source, 0, pop.size, 2, 0), "adaptive_seconds": t1 - t0,
            "file_sequence": _summary(this_file, 0, pop.size, 2, 0),
            "file_sequence_seconds": t2 - t1,
            "naive_peeking": {"decided": _share(int((naive > 0).sum()), runs),
                              "seconds": time.perf_counter() - t2},
        })  # fmt: skip
    return out


# --- 2. recorded judgments -------------------------------------------------------------


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def prd_pairs(root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Per system pair: conservative-rule scores per question from GPT-4's two orders."""
    folder = root / "data" / "vicuna80" / "ratings-gpt4"
    if not folder.is_dir():
        return [], [f"PRD: no {folder}; PRD part skipped"]
    name = re.compile(r"^answer_(.+)-vs-answer_(.+)-gpt4-reviewer[-_]threeclass\.jsonl$")
    files = {m.group(1, 2): p for p in folder.glob("*.jsonl") if (m := name.match(p.name))}
    pairs, notes = [], []
    for i, a in enumerate(PRD_MODELS):
        for b in PRD_MODELS[i + 1 :]:
            if (a, b) not in files or (b, a) not in files:
                notes.append(f"PRD {a} vs {b}: an order is missing; pair skipped")
                continue
            first = {int(r["question_id"]): r.get("score") for r in _jsonl(files[a, b])}
            second = {int(r["question_id"]): r.get("score") for r in _jsonl(files[b, a])}
            scores, dropped = [], 0
            for q in sorted(set(first) | set(second)):
                if first.get(q) not in PRD_SCORE or second.get(q) not in PRD_SCORE:
                    dropped += 1  # a missing or unreadable review is never a tie
                    continue
                calls = [Call(Order.ORIGINAL, 0, Reply(PRD_SCORE[first[q]])),
                         Call(Order.SWAPPED, 0, Reply(PRD_SCORE[second[q]]))]  # fmt: skip
                resolved = resolve(calls, "conservative")
                assert resolved is not None
                scores.append(resolved[1])
            if dropped:
                notes.append(f"PRD {a} vs {b}: {dropped} questions lack a readable review")
            pairs.append({"pair": f"{a} vs {b}", "scores": np.array(scores), "calls_per_unit": 2})
    return pairs, notes


def llmfao_pairs(root: Path, min_prompts: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Per model pair with enough prompts: the one recorded GPT-4 verdict per prompt."""
    path = root / "gpt4-comparisons.csv"
    if not path.is_file():
        return [], [f"LLMFAO: no {path}; LLMFAO part skipped"]
    by_pair: dict[tuple[str, str], dict[str, float]] = {}
    orders: dict[tuple[str, str, str], set[str]] = {}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            one, two = sorted((row["left"], row["right"]))
            score = {"left": 1.0, "right": 0.0, "tie": 0.5}[row["winner"]]
            by_pair.setdefault((one, two), {})[row["prompt"]] = (
                score if row["left"] == one else 1 - score
            )
            orders.setdefault((one, two, row["prompt"]), set()).add(row["left"])
    both = sum(len(v) == 2 for v in orders.values())
    notes = [f"LLMFAO: {both} of {len(orders)} (pair, prompt) have both orders; one call each"]
    pairs = [
        {"pair": f"{one} vs {two}", "scores": np.array([s[p] for p in sorted(s)]),
         "calls_per_unit": 1}
        for (one, two), s in sorted(by_pair.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        if len(s) >= min_prompts
    ]  # fmt: skip
    notes.append(f"LLMFAO: {len(pairs)} pairs with at least {min_prompts} prompts")
    return pairs, notes


def recorded_part(pairs: list[dict[str, Any]], orders: int, batch: int, seed: int) -> list[Any]:
    out = []
    for k, p in enumerate(pairs):
        pop = p["scores"]
        mean = float(pop.mean())
        ci = bootstrap_mean(pop, n_resamples=2000, seed=seed)
        truth = 1 if ci.low > 0.5 else 2 if ci.high < 0.5 else 0
        side = 1 if mean > 0.5 else 2 if mean < 0.5 else 0
        res = adaptive(pop, orders, batch, seed + k)
        out.append({
            "pair": p["pair"], "units": int(pop.size), "win_rate": mean,
            "bootstrap_ci": ci.to_dict(), "full_run_decision": truth or None, "batch": batch,
            **_summary(res, truth, pop.size, p["calls_per_unit"], side),
        })  # fmt: skip
    return out


# --- 3. large synthetic sets -------------------------------------------------------------


def synthetic_part(n: int, orders: int, batch: int, seed: int) -> list[dict[str, Any]]:
    out = []
    for k, rate in enumerate((0.50, 0.52, 0.55, 0.60, 0.70)):
        wins, ties = round(n * (rate - 0.1)), round(n * 0.2)
        pop = np.repeat([1.0, 0.5, 0.0], [wins, ties, n - wins - ties])
        assert pop.sum() == rate * n
        truth = 1 if rate > 0.5 else 0
        res = adaptive(pop, orders, batch, seed + k)
        var, delta = float(pop.var()), rate - 0.5
        fixed = {}
        for power in (0.8, 0.9):
            n0 = var * (norm.ppf(0.975) + norm.ppf(power)) ** 2 / delta**2 if delta else None
            fixed[f"power_{power:.0%}"] = None if n0 is None else 2 * float(np.ceil(n0))
        out.append({
            "win_rate": rate, "units": n, "score_variance": var, "batch": batch,
            "fixed_design_calls": fixed, **_summary(res, truth, n, 2, truth),
        })  # fmt: skip
    return out


# --- the table ------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _calls(s: dict[str, Any]) -> list[str]:
    return [f"{s['calls'][q]:.0f} ({_pct(s['share_of_calls'][q])})" for q in ("p50", "p80", "p90")]


def _ci(w: dict[str, float]) -> str:
    return f"{_pct(w['share'])} [{_pct(w['ci_low'])}, {_pct(w['ci_high'])}]"


def rows(r: dict[str, Any]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for s in r["null"]:
        st = s["setting"]
        name = f"{st['rule']}, bias {st['bias']}, tie {st['tie']}, batch {st['batch']}"
        a, f = s["adaptive"], s["file_sequence"]
        out.append(["null: default", name, st["items"], a["calls_full"], "0.5 (no winner)",
                    _ci(a["decided"]), a["decided_at_end"], _pct(a["stopped_early"]),
                    *_calls(a), ""])  # fmt: skip
        out.append(["null: file only", name, st["items"], f["calls_full"], "0.5 (no winner)",
                    _ci(f["decided"]), f["decided_at_end"], _pct(f["stopped_early"]),
                    "", "", "", ""])  # fmt: skip
        out.append(["null: naive", name, st["items"], a["calls_full"], "0.5 (no winner)",
                    _ci(s["naive_peeking"]["decided"]), "", "", "", "", "", ""])  # fmt: skip
    for part, key in (("PRD", "prd"), ("LLMFAO", "llmfao")):
        for p in r[key]:
            ci = p["bootstrap_ci"]
            side = p["full_run_decision"] or "-"
            full = f"{side}: {p['win_rate']:.3f} [{ci['low']:.2f}, {ci['high']:.2f}]"
            out.append([part, p["pair"], p["units"], p["calls_full"], full,
                        f"same {_pct(p['same'])}, opposite {_pct(p['opposite']['share'])}",
                        p["decided_at_end"], _pct(p["stopped_early"]), *_calls(p),
                        ""])  # fmt: skip
    for s in r["synthetic"]:
        f = s["fixed_design_calls"]
        fixed = "-" if f["power_80%"] is None else f"{f['power_80%']:.0f} / {f['power_90%']:.0f}"
        out.append(["synthetic", f"win rate {s['win_rate']:.2f}", s["units"], s["calls_full"],
                    f"{s['win_rate']:.2f}", f"decided {_ci(s['decided'])}", s["decided_at_end"],
                    _pct(s["stopped_early"]), *_calls(s), fixed])  # fmt: skip
    return out


HEADERS = ["part", "pair / setting", "units", "full calls", "full-run result",
           "decided [95% CI] / same", "at end", "stopped early", "calls p50", "calls p80",
           "calls p90", "fixed n calls (80%/90%)"]  # fmt: skip


def _medians(parts: list[dict[str, Any]]) -> dict[str, float]:
    """Over the pairs of a part: the median of the per-pair median share of calls."""
    shares = [p["share_of_calls"]["p50"] for p in parts]
    return {"median_share_of_calls": float(np.median(shares)) if shares else float("nan")}


def report(r: dict[str, Any]) -> None:
    st = r["settings"]
    print(
        f"Adaptive stopping, stop_when='decided' at level {LEVEL}: betting confidence sequence "
        f"with replacement (default; Waudby-Smith & Ramdas 2024); {r['seconds']:.0f} s.\n"
        f"Null: {st['null_runs']} runs per setting, each a fresh i.i.d. file from a population "
        "at exactly 0.5; 'decided' counts decisions at the end of the file too ('at end'); "
        "'file only' = population='file' (without replacement); naive = stop when a bootstrap CI "
        f"({st['resamples']} resamples) excludes 0.5 after a batch. Recorded: {st['orders']} "
        f"orders per pair, batch {st['recorded_batch']} questions (PRD), "
        f"{st['llmfao_batch']} prompts (LLMFAO).\nSynthetic: {st['synthetic_orders']} orders, "
        f"batch {st['synthetic_batch']} items; fixed n = calls of a z-test at power 80%/90%. "
        "'same': the run ended with the full run's answer (its bootstrap CI's side, or none); "
        "'opposite': declared the side opposite to the file's win rate."
    )
    print(table(HEADERS, rows(r), left=(0, 1, 4)))
    for note in r["notes"]:
        print(f"note: {note}")
    for key in ("prd", "llmfao"):
        print(f"{key}: median over pairs of the median share of calls used: "
              f"{_pct(r['medians'][key]['median_share_of_calls'])}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prd", type=Path, default=Path("../shared/datasets/prd"))
    parser.add_argument("--llmfao", type=Path, default=Path("../shared/datasets/llmfao"))
    parser.add_argument("--null-runs", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--orders", type=int, default=500)
    parser.add_argument("--recorded-batch", type=int, default=8)
    parser.add_argument("--llmfao-batch", type=int, default=3)
    parser.add_argument("--min-prompts", type=int, default=15)
    parser.add_argument("--synthetic-items", type=int, default=10_000)
    parser.add_argument("--synthetic-orders", type=int, default=500)
    parser.add_argument("--synthetic-batch", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args()
    prd_dir, llmfao_dir = (
        (p if p.is_absolute() else (REPO / p).resolve()) for p in (a.prd, a.llmfao)
    )
    t0 = time.perf_counter()
    prd, notes = prd_pairs(prd_dir)
    fao, fao_notes = llmfao_pairs(llmfao_dir, a.min_prompts)
    result = {
        "null": null_part(a.null_runs, a.resamples, a.seed),
        "prd": recorded_part(prd, a.orders, a.recorded_batch, a.seed),
        "llmfao": recorded_part(fao, a.orders, a.llmfao_batch, a.seed),
        "synthetic": synthetic_part(
            a.synthetic_items, a.synthetic_orders, a.synthetic_batch, a.seed
        ),
        "notes": notes + fao_notes,
        "method": "betting confidence sequence with replacement over the seeded random order "
        "(population='source', the default); the null part also reads the same files with the "
        "sequence without replacement (population='file')",
        "settings": {
            "level": LEVEL,
            "null_runs": a.null_runs,
            "resamples": a.resamples,
            "orders": a.orders,
            "recorded_batch": a.recorded_batch,
            "llmfao_batch": a.llmfao_batch,
            "min_prompts": a.min_prompts,
            "synthetic_orders": a.synthetic_orders,
            "synthetic_batch": a.synthetic_batch,
            "seed": a.seed,
            "prd": str(a.prd),  # as given (relative to the repository unless absolute)
            "llmfao": str(a.llmfao),
            "power_formula": "n = var (z_0.975 + z_power)^2 / (p - 0.5)^2 (the population: no "
            "finite-population correction); calls = 2 n",
        },
        "environment": environment(),
    }
    result["medians"] = {k: _medians(result[k]) for k in ("prd", "llmfao")}
    result["seconds"] = time.perf_counter() - t0
    report(result)
    print(f"wrote {write_json('bench_adaptive', result)}")


if __name__ == "__main__":
    main()
