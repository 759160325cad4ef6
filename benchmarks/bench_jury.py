"""A jury of five recorded LLM judges against humans on Vicuna-80 (PRD dataset), replayed.

Data (read from a path, never copied): ``data/vicuna80`` of the PRD repository (Li
et al. 2023, "PRD: Peer Rank and Discussion"). For five answering models (Bard,
Claude, GPT-3.5, GPT-4, Vicuna-13B) and each of the 10 pairs, every Vicuna-80
question was reviewed by five LLM reviewers (the same five models) in *both* orders:
``ratings-{reviewer}/answer_{m1}-vs-answer_{m2}-{reviewer}-reviewer*.jsonl``, whose
``score`` is 1 (the answer shown first is better), 2 (the second) or 3 (tie).
Humans rated the same pairs in ``ratings-human`` (three raters per question in most
files, one in the ``claude-vs-*`` files; same 1/2/3 scale).

What runs is the library's real path: each reviewer's records are converted into a
``replay:`` file (question, answer shown first, answer shown second, the review's
text as ``reply`` and its score as ``verdict``, since the reviews end in a bare
1/2/3 that is not a verdict label), and a :class:`~fairjudge.judges.Jury` of five
replay members is run with :func:`~fairjudge.evaluation.evaluate_jury` on the 800
items (10 pairs x 80 questions), debiased by the swap (conservative rule).

Reported against every human rating (one row each, so three raters weigh three
times; CIs resample *questions*): S1 (agreement counting ties), S2 (agreement
where neither side said tie) and Cohen's kappa, for each member alone and for the
panel under ``majority`` and ``mean``; each member's position consistency; the
panel's Fleiss' kappa and effective number of judges; and the juries claim (Verga
et al. 2024): does a panel *without* GPT-4 agree with humans as well as GPT-4 alone?
(paired difference in S1 per human rating, bootstrap clustered by question).

GPT-3.5's folder holds two versions of the GPT-3.5-vs-GPT-4 reviews
(``answer-gpt35-vs-answer-gpt4-...`` with hyphens beside the underscore names every
other file uses); the underscore files are used, the hyphenated re-runs skipped.

Run: ``python benchmarks/bench_jury.py [--data ../shared/datasets/prd]``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import environment, table, write_json

from fairjudge import Item
from fairjudge.evaluation import EvalSettings, JuryResult, evaluate_jury, jury_diagnostics
from fairjudge.judges import Jury, MemberSpec
from fairjudge.stats import bootstrap_mean, judge_agreement

REPO = Path(__file__).resolve().parents[1]
MODELS = ("bard", "claude", "gpt35", "gpt4", "vicuna-13b")
REVIEWERS = ("gpt4", "gpt35", "claude", "bard", "vicuna-13b")
SCORE = {1: "A", 2: "B", 3: "tie"}
HUMAN = {1: "1", 2: "2", 3: "tie"}
FLIP = {"1": "2", "2": "1", "tie": "tie"}


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _pair_files(folder: Path, who: str) -> list[tuple[str, str, Path]]:
    """(model shown first, model shown second, file) for the five models, underscore names."""
    pattern = re.compile(
        rf"^answer_(.+)-vs-answer_(.+)-{re.escape(who)}-reviewer([-_]threeclass)?\.jsonl$"
    )
    out = []
    for path in sorted(folder.glob("answer_*.jsonl")):
        match = pattern.match(path.name)
        if match and match.group(1) in MODELS and match.group(2) in MODELS:
            out.append((match.group(1), match.group(2), path))
    return out


class Vicuna80:
    """Questions, answers, the reviewers' records and the human ratings."""

    def __init__(self, root: Path) -> None:
        self.root = root / "data" / "vicuna80"
        if not self.root.is_dir():
            raise SystemExit(f"no data/vicuna80 under {root}; pass --data PRD_CHECKOUT")
        questions = _jsonl(self.root / "prompts" / "vicuna_questions.jsonl")
        self.questions = {int(q["question_id"]): str(q["text"]) for q in questions}
        self.answers = {
            m: {
                int(a["question_id"]): str(a["text"])
                for a in _jsonl(self.root / "generations" / f"answer_{m}.jsonl")
            }
            for m in MODELS
        }

    def items(self) -> list[Item]:
        """One item per pair (alphabetical order) and question; clustered by question."""
        return [
            Item(
                self.questions[q],
                self.answers[a][q],
                self.answers[b][q],
                id=f"{q}:{a}-vs-{b}",
                cluster=str(q),
                model_1=a,
                model_2=b,
            )
            for i, a in enumerate(MODELS)
            for b in MODELS[i + 1 :]
            for q in sorted(self.questions)
        ]

    def write_replay(self, reviewer: str, path: Path) -> int:
        """The reviewer's records as a replay file; returns the number of recorded calls."""
        rows = []
        for first, second, source in _pair_files(self.root / f"ratings-{reviewer}", reviewer):
            for line, rec in enumerate(_jsonl(source), 1):
                score = rec.get("score")
                if score not in SCORE:
                    raise SystemExit(f"{source}:{line}: score must be 1, 2 or 3; got {score!r}")
                q = int(rec["question_id"])
                rows.append(
                    {
                        "id": f"{q}:{first}-vs-{second}",
                        "question": self.questions[q],
                        "answer_a": self.answers[first][q],
                        "answer_b": self.answers[second][q],
                        "reply": rec.get("text"),
                        "verdict": SCORE[score],
                    }
                )
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return len(rows)

    def human_rows(self, index: dict[str, int]) -> tuple[list[int], list[str], list[int]]:
        """Per human rating: its item, its label in the item's orientation, its question."""
        where, labels, questions = [], [], []
        for first, second, path in _pair_files(self.root / "ratings-human", "human"):
            a, b = sorted((first, second), key=MODELS.index)
            for rec in _jsonl(path):
                q = int(rec["question_id"])
                label = HUMAN[int(rec["score"])]
                where.append(index[f"{q}:{a}-vs-{b}"])
                labels.append(label if first == a else FLIP[label])
                questions.append(q)
        return where, labels, questions


def _ci(lo: float, hi: float) -> str:
    return f"[{lo:.3f}, {hi:.3f}]"


def _est(d: dict[str, Any]) -> str:
    """An estimate and its interval, from a ``to_dict()`` with ``estimate`` and ``ci``."""
    return f"{d['estimate']:.3f} {_ci(d['ci']['low'], d['ci']['high'])}"


def _verdict(ci: dict[str, float]) -> str:
    if ci["low"] > 0:
        return "the panel agrees more"
    if ci["high"] < 0:
        return "GPT-4 alone agrees more"
    return "no difference detected"


class Bench:
    """Runs the panels and measures every judge against the human ratings."""

    def __init__(self, data: Vicuna80, folder: Path, rounds: int, seed: int) -> None:
        self.settings = EvalSettings(n_resamples=rounds, seed=seed)
        self.rounds, self.seed = rounds, seed
        self.items = data.items()
        self.files = {r: folder / f"replay_{r}.jsonl" for r in REVIEWERS}
        self.calls = {r: data.write_replay(r, self.files[r]) for r in REVIEWERS}
        self.where, self.human, self.questions = data.human_rows(
            {it.id: k for k, it in enumerate(self.items) if it.id is not None}
        )

    def panel(self, reviewers: tuple[str, ...]) -> JuryResult:
        specs = [MemberSpec(f"replay:{self.files[r]}", name=r) for r in reviewers]
        with Jury.from_specs(specs) as jury:
            return evaluate_jury(jury, self.items, self.settings, aggregation="majority")

    def agreement(self, outcomes: list[str | None]) -> dict[str, Any]:
        rows = [k for k, w in enumerate(self.where) if outcomes[w] is not None]
        verdicts = [str(outcomes[self.where[k]]) for k in rows]
        result = judge_agreement(
            verdicts,
            [self.human[k] for k in rows],
            questions=[self.questions[k] for k in rows],
            n_resamples=self.rounds,
            seed=self.seed,
        )
        return {"n_ratings": len(rows), **result.to_dict()}

    def claim(self, alone: list[str | None], panel: list[str | None]) -> dict[str, Any]:
        """Paired S1 difference per human rating, over ratings of items both resolved."""
        rows = [
            k for k, w in enumerate(self.where) if alone[w] is not None and panel[w] is not None
        ]
        diff = np.array(
            [
                float(panel[self.where[k]] == self.human[k])
                - float(alone[self.where[k]] == self.human[k])
                for k in rows
            ]
        )
        clusters = [self.questions[k] for k in rows]
        ci = bootstrap_mean(diff, clusters, n_resamples=self.rounds, seed=self.seed)
        human = [self.human[k] for k in rows]
        kappa = _kappa_difference(
            [str(alone[self.where[k]]) for k in rows],
            [str(panel[self.where[k]]) for k in rows],
            human, clusters, self.rounds, self.seed,
        )  # fmt: skip
        return {
            "s1_difference": float(diff.mean()), "ci": ci.to_dict(), "n_ratings": len(diff),
            "kappa_difference": kappa,
        }  # fmt: skip


def _cohen(pred: np.ndarray, truth: np.ndarray, weight: np.ndarray) -> float:
    """Cohen's kappa of two label codes (0..2), each row weighted (bootstrap counts)."""
    total = weight.sum()
    observed = weight[pred == truth].sum() / total
    p = np.array([weight[pred == c].sum() for c in range(3)]) / total
    t = np.array([weight[truth == c].sum() for c in range(3)]) / total
    expected = float(p @ t)
    return float((observed - expected) / (1 - expected))


def _kappa_difference(
    alone: list[str],
    panel: list[str],
    human: list[str],
    clusters: list[str],
    rounds: int,
    seed: int,
) -> dict[str, Any]:
    """kappa(panel, humans) - kappa(alone, humans) on the same ratings, with a paired
    bootstrap over questions (both kappas computed on each resample)."""
    codes = {"1": 0, "2": 1, "tie": 2}
    a, b, h = (np.array([codes[v] for v in x]) for x in (alone, panel, human))
    index: dict[str, int] = {}
    cluster = np.array([index.setdefault(c, len(index)) for c in clusters])
    k = len(index)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(k, np.full(k, 1 / k), size=rounds)
    ones = np.ones(len(h))
    point = _cohen(b, h, ones) - _cohen(a, h, ones)
    diffs = [_cohen(b, h, d[cluster].astype(float)) - _cohen(a, h, d[cluster].astype(float))
             for d in draws]  # fmt: skip
    low, high = np.quantile(diffs, [0.025, 0.975])
    return {"estimate": point, "ci": {"low": float(low), "high": float(high)}}


def _outcomes(result: JuryResult) -> list[str | None]:
    return [j.outcome.value if j.outcome is not None else None for j in result.judgments]


def _member_outcomes(result: JuryResult, k: int) -> list[str | None]:
    return [j.outcome.value if j.outcome is not None else None for j in result.members[k].judgments]


def _row(name: str, a: dict[str, Any], consistency: str = "") -> list[Any]:
    s1, s2 = a["s1"], a["s2"]
    kappa, kci = a["kappa"], a["kappa_ci"]
    return [
        name,
        f"{s1['estimate']:.3f} {_ci(s1['ci']['low'], s1['ci']['high'])}",
        f"{s2['estimate']:.3f} {_ci(s2['ci']['low'], s2['ci']['high'])}",
        f"{kappa:.3f} {_ci(kci['low'], kci['high'])}",
        consistency,
    ]


def run(data_dir: Path, rounds: int, seed: int) -> dict[str, Any]:
    data = Vicuna80(data_dir)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_jury_") as tmp:
        bench = Bench(data, Path(tmp), rounds, seed)
        full = bench.panel(REVIEWERS)
        without = bench.panel(tuple(r for r in REVIEWERS if r != "gpt4"))
    judged = time.perf_counter() - t0
    members: dict[str, Any] = {}
    for k, name in enumerate(REVIEWERS):
        pc = full.members[k].position_consistency
        assert pc is not None
        members[name] = {
            "recorded_calls": bench.calls[name],
            "position_consistency": pc.to_dict(),
            "human_agreement": bench.agreement(_member_outcomes(full, k)),
        }
    panels: dict[str, Any] = {}
    for label, result in (("all five", full), ("without gpt4", without)):
        for rule in ("majority", "mean"):
            panels[f"{label}, {rule}"] = bench.agreement(_outcomes(result.with_aggregation(rule)))
    diag = jury_diagnostics(full)
    if isinstance(diag.effective, str) or isinstance(diag.fleiss, str):
        raise SystemExit(f"panel diagnostics not computed: {diag.effective} / {diag.fleiss}")
    gpt4 = _member_outcomes(full, REVIEWERS.index("gpt4"))
    return {
        "data": str(data_dir),
        "n_items": full.n_items,
        "n_unresolved": full.n_unresolved,
        "n_human_ratings": len(bench.human),
        "seconds": time.perf_counter() - t0,
        "judging_seconds": judged,
        "members": members,
        "panels": panels,
        "fleiss_kappa": diag.fleiss.to_dict(),
        "agreement_matrix": dict(zip(REVIEWERS, map(list, diag.agreement), strict=True)),
        "effective_judges": {
            **diag.effective.to_dict(),
            "ci": [diag.effective.ci.low, diag.effective.ci.high],  # resampled by question
        },
        "juries_claim": {
            rule: bench.claim(gpt4, _outcomes(without.with_aggregation(rule)))
            for rule in ("majority", "mean")
        },
        "settings": {"rule": "conservative", "rounds": 2, "n_resamples": rounds, "seed": seed},
        "environment": environment(),
    }


def report(r: dict[str, Any]) -> None:
    print(
        f"Jury of 5 replayed LLM reviewers vs humans, Vicuna-80 (PRD): {r['n_items']} items "
        f"(10 pairs x 80 questions, {r['n_unresolved']} unresolved), "
        f"{r['n_human_ratings']} human ratings; both orders replayed, "
        f"conservative rule; 95% CIs from {r['settings']['n_resamples']} bootstrap rounds over "
        f"questions; {r['seconds']:.1f} s"
    )
    print("S1/S2/kappa over every human rating (3 raters = 3 rows); S2 where neither said tie")
    rows = [
        _row(
            n,
            m["human_agreement"],
            _est(m["position_consistency"]),
        )
        for n, m in r["members"].items()
    ]
    rows += [_row(f"panel: {n}", a) for n, a in r["panels"].items()]
    print(
        table(
            ["judge", "S1 (with ties)", "S2 (no ties)", "Cohen's kappa", "position consistency"],
            rows,
        )
    )
    fk, eff = r["fleiss_kappa"], r["effective_judges"]
    print(
        f"panel agreement: Fleiss' kappa {_est({'estimate': fk['kappa'], 'ci': fk['ci']})}; "
        f"effective number of judges {eff['estimate']:.2f} of 5 {_ci(*eff['ci'])}"
    )
    for rule, c in r["juries_claim"].items():
        print(
            f"juries claim ({rule}): panel without GPT-4 minus GPT-4 alone, S1 "
            f"{c['s1_difference']:+.3f} {_ci(c['ci']['low'], c['ci']['high'])}: {_verdict(c['ci'])}"
        )
        kd = c["kappa_difference"]
        print(
            f"juries claim ({rule}): panel without GPT-4 minus GPT-4 alone, Cohen's kappa "
            f"{kd['estimate']:+.3f} {_ci(kd['ci']['low'], kd['ci']['high'])}: {_verdict(kd['ci'])}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("../shared/datasets/prd"),
        help="PRD checkout; relative paths are taken from the repository root",
    )
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    data_dir = args.data if args.data.is_absolute() else (REPO / args.data).resolve()
    result = run(data_dir, args.rounds, args.seed)
    report(result)
    print(f"wrote {write_json('bench_jury', result)}")


if __name__ == "__main__":
    main()
