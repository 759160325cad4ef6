"""Quality of the embedded local judge on human-labelled pairs, method by method.

Runs the default local judge on LLMBar Natural (100 items, no ties) and on a seeded
100-item sample of PandaLM's test set (label = the 3 annotators' majority; no
majority counts as a tie), and compares:

- single order      one call per item, in each order in turn: the accuracy of one
                    call when the answers are placed at random (the mean over the
                    original and the swapped order, read from the swaps' calls, no
                    new calls). This is the fair baseline;
- single order, as given  one call, answers in the dataset's order only. Shown for
                    reference: its accuracy says as much about the sample's label
                    layout as about the judge (a judge that says "A" scores the
                    share of items labelled 1), so it can flatter or handicap;
- conservative swap the seed protocol (2 calls; disagreement is a tie);
- lenient swap      the same 2 calls; a preference plus a tie is that preference;
- soft swap         the same 2 calls; mean P(answer 1 better) over both orders;
- 4 balanced rounds 2 calls per order, sampled at temperature 1, majority vote.

Accuracy counts ties as MT-Bench's setup S1 does: a tie verdict agrees only with a
tie label, and a swap-inconsistent judgment is a tie. It is over resolved items: an
item with a call that failed or did not parse (a sampled round can draw a token
that is not a verdict) is counted in "unresolved", never as a tie. Every call goes through the
store, so a rerun (or a resumed run) costs nothing.

    .venv/bin/python benchmarks/bench_local_quality.py [--n 100] [--judge local/...]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import environment, table, write_json

from fairjudge import Item, Judgment, Outcome, evaluate_pairs
from fairjudge.judges._pairwise import LLMJudge
from fairjudge.judges._registry import BackendOptions, resolve_judge
from fairjudge.runner import RunOptions

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
LABELS = {"1": Outcome.ONE, "2": Outcome.TWO, "0": Outcome.TIE}


def load_llmbar(folder: Path, n: int, seed: int) -> list[Item]:
    data = json.loads((folder / "Dataset/LLMBar/Natural/dataset.json").read_text("utf-8"))
    indexed = list(enumerate(data))
    if n < len(indexed):
        indexed = sorted(random.Random(seed).sample(indexed, n), key=lambda pair: pair[0])
    return [
        Item(
            d["input"],
            d["output_1"],
            d["output_2"],
            id=f"llmbar-{i}",
            human=LABELS[str(d["label"])],
        )
        for i, d in indexed
    ]


def load_pandalm(folder: Path, n: int, seed: int) -> list[Item]:
    data = json.loads((folder / "data/testset-v1.json").read_text("utf-8"))
    picked = random.Random(seed).sample(data, n)
    items = []
    for d in picked:
        votes = [str(d[f"annotator{k}"]) for k in (1, 2, 3)]
        top = max(set(votes), key=votes.count)
        label = LABELS[top] if votes.count(top) >= 2 else Outcome.TIE
        question = d["instruction"] + (f"\n\n{d['input']}" if d.get("input") else "")
        items.append(
            Item(question, d["response1"], d["response2"], id=f"pandalm-{d['idx']}", human=label)
        )
    return items


METHODS: list[tuple[str, dict[str, Any]]] = [
    ("single order, as given", {"rounds": 1, "rule": "conservative"}),
    ("conservative swap", {"rounds": 2, "rule": "conservative"}),
    ("lenient swap", {"rounds": 2, "rule": "lenient"}),
    ("soft swap", {"rounds": 2, "rule": "soft"}),
    ("4 balanced rounds", {"rounds": 4, "rule": "lenient", "sampled": True}),
]


def single_call_accuracy(swaps: list[Judgment]) -> dict[str, Any]:
    """One call's accuracy with the answers placed at random: every call of the swaps.

    Each item was judged once in each order, so the mean over all calls is the mean of
    the original-order and the swapped-order accuracy. A call that failed or did not
    parse counts in "unresolved", never as a tie.
    """
    calls = [(c, j.item.human) for j in swaps for c in j.calls]
    read = [(c.preferred, human) for c, human in calls if c.preferred is not None]
    correct = sum(preferred == human for preferred, human in read)
    return {
        "accuracy": correct / len(read) if read else float("nan"),
        "correct": correct,
        "n": len(read),
        "unresolved": len(calls) - len(read),
        "calls_per_item": 1,
        "derived_from": "conservative swap",
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    sets = {
        "LLMBar-Natural": load_llmbar(args.llmbar, args.n, args.seed),
        "PandaLM": load_pandalm(args.pandalm, args.n, args.seed),
    }
    options = RunOptions(progress="quiet" if args.quiet else "auto")
    greedy = resolve_judge(
        args.judge,
        backend_options=BackendOptions(threads=args.threads),
        store=args.store,
        options=options,
    )
    sampled_params = {"temperature": 1.0, "max_tokens": 1, "top_logprobs": 20}
    backend = getattr(greedy, "backend", None)
    sampled: Any = greedy
    if isinstance(greedy, LLMJudge):  # one session, one model in memory: shared passes
        sampled = LLMJudge(greedy.backend, session=greedy.session, params=sampled_params)
    rows: list[list[str]] = []
    results: dict[str, dict[str, Any]] = {}
    for set_name, items in sets.items():
        set_rows: list[list[str]] = []
        swaps: list[Judgment] = []
        for method, opts in METHODS:
            judge = sampled if opts.get("sampled") else greedy
            passes_before = getattr(backend, "forward_passes", 0)
            start = time.perf_counter()
            r = evaluate_pairs(
                judge, items, rounds=opts["rounds"], rule=opts["rule"], seed=args.seed
            )
            elapsed = time.perf_counter() - start
            passes = getattr(backend, "forward_passes", 0) - passes_before
            if method == "conservative swap":
                swaps = list(r.judgments)
            done = [j for j in r.judgments if j.outcome is not None]
            correct = sum(j.outcome == j.item.human for j in done)
            acc = correct / len(done) if done else float("nan")
            calls = sum(len(j.calls) for j in r.judgments)
            made = getattr(getattr(judge, "last_run", None), "made", None)
            entry = {
                "accuracy": acc,
                "correct": correct,
                "n": len(done),
                "unresolved": r.n_unresolved,
                "consistency": r.position_consistency.estimate if r.position_consistency else None,
                "first_position": (
                    r.first_position_calls.estimate if r.first_position_calls else None
                ),
                "calls_per_item": calls / len(items),
                "seconds": elapsed,
                "new_calls": made,
                "forward_passes": passes,
            }
            results[f"{set_name}/{method}"] = entry
            set_rows.append(
                [
                    set_name,
                    method,
                    f"{acc:.3f}",
                    f"{correct}/{len(done)}",
                    f"{r.n_unresolved}",
                    "-"
                    if entry["consistency"] is None or opts["rounds"] == 1
                    else f"{entry['consistency']:.3f}",
                    f"{entry['first_position']:.3f}"
                    if entry["first_position"] is not None
                    else "-",
                    f"{entry['calls_per_item']:.0f}",
                    f"{made if made is not None else '-'}",
                    f"{passes}",
                    f"{elapsed:.0f}s",
                ]
            )
            print(f"{set_name:15} {method:18} acc={acc:.3f} ({elapsed:.0f}s)", flush=True)
        entry = single_call_accuracy(swaps)
        entry["first_position"] = results[f"{set_name}/conservative swap"]["first_position"]
        results[f"{set_name}/single order"] = entry
        rows.append(
            [set_name, "single order", f"{entry['accuracy']:.3f}",
             f"{entry['correct']}/{entry['n']} calls", f"{entry['unresolved']}", "-",
             f"{entry['first_position']:.3f}" if entry["first_position"] is not None else "-",
             "1", "0", "0", "-"]
        )  # fmt: skip
        rows += set_rows
    headers = [
        "dataset",
        "method",
        "accuracy",
        "correct",
        "unresolved",
        "consistency",
        "first-pos",
        "calls/item",
        "new calls",
        "forward passes",
        "time",
    ]
    print()
    print(table(headers, rows))
    for set_name in sets:
        soft = results[f"{set_name}/soft swap"]["accuracy"]
        fair = results[f"{set_name}/single order"]["accuracy"]
        given = results[f"{set_name}/single order, as given"]["accuracy"]
        print(
            f"{set_name}: soft swap vs single order: {(soft - fair) * 100:+.1f} points"
            f" (target: >= +5); vs single order as given: {(soft - given) * 100:+.1f}"
        )
    return {
        "results": results,
        "judge": args.judge,
        "n": args.n,
        "seed": args.seed,
        "environment": environment(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--n", type=int, default=100, help="items per dataset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--llmbar", type=Path, default=SHARED / "llmbar")
    parser.add_argument("--pandalm", type=Path, default=SHARED / "pandalm")
    parser.add_argument(
        "--store", type=Path, default=ROOT / "benchmarks" / "results" / "quality_store.sqlite"
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    payload = run(args)
    print(f"wrote {write_json('bench_local_quality', payload)}")


if __name__ == "__main__":
    main()
