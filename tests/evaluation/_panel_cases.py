"""Seeded small panels whose diagnostics are pinned to the values of the code before issue 25.

Run as a script with the old package first on ``sys.path`` to write the pinned file::

    git archive 633b969 src/fairjudge | tar -x -C /tmp/old_src
    PYTHONPATH=/tmp/old_src/src:. python -m tests.evaluation._panel_cases \
        tests/evaluation/panel_cases_pinned.jsonl

(633b969: the package before the diagnostics were vectorised). The test
(``test_panel_pinned.py``) computes the same cases with the current code and compares
every number to 1e-12.

Only public names are used, so the same builder runs against both versions.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Any

from fairjudge import Item, Outcome, ScoreItem
from fairjudge.evaluation import (
    EvalSettings,
    evaluate_jury,
    jury_diagnostics,
    score_jury_diagnostics,
    score_with_jury,
)
from fairjudge.judges import CallableJudge, CallablePointwiseJudge, Jury, JuryMember, PointwiseJury
from fairjudge.judges._pointwise import PointwiseMember
from fairjudge.stats import (
    effective_judges,
    fleiss_kappa,
    krippendorff_alpha_ci,
    score_correlation,
)

DIMS = ("accuracy", "relevance", "usefulness")
BOOT = {"n_resamples": 300, "seed": 7}


def _pairwise(k: int, fail_every: int = 0, same_as: int | None = None) -> Callable[..., str]:
    """Verdicts from a seeded latent; ``fail_every``: every n-th call raises."""
    calls = [0]

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        calls[0] += 1
        if fail_every and calls[0] % fail_every == 0:
            raise RuntimeError("scripted failure")
        i = int(question.split()[1])
        who = k if same_as is None else same_as
        x = random.Random(i * 31 + who).gauss(0.0, 1.0) + (0.6 if i % 3 == 0 else -0.2)
        x *= 1 if answer_a.startswith("one") else -1
        return "A" if x > 0.3 else "B" if x < -0.3 else "tie"

    return judge


def _scorer(k: int, skip: float = 0.0, fail: float = 0.0, same_as: int | None = None) -> Any:
    """Scores 1-5 from a latent quality plus member noise; may skip a dimension or fail."""

    def scorer(question: str, answer: str) -> dict[str, int]:
        i = int(answer.split()[1])
        who = k if same_as is None else same_as
        rng = random.Random(i * 131 + who)
        if rng.random() < fail:
            raise RuntimeError("scripted failure")
        base = random.Random(i).gauss(3.0, 1.1)
        out = {}
        for d in DIMS:
            if d == "usefulness" and rng.random() < skip:
                continue
            out[d] = min(5, max(1, round(base + rng.gauss(0.0, 0.5 + 0.3 * who))))
        return out

    return scorer


def _score_items(n: int) -> list[ScoreItem]:
    return [
        ScoreItem(f"question {i // 3}", f"answer {i}", id=f"a{i}", human={"accuracy": 1 + i % 5})
        for i in range(n)
    ]


def _pair_items(n: int) -> list[Item]:
    rng = random.Random(5)
    return [
        Item(f"q {i}", f"one {i}", f"two {i}", id=f"i{i}", cluster=f"c{i // 3}",
             human=rng.choice(list(Outcome)))
        for i in range(n)
    ]  # fmt: skip


def score_panels() -> dict[str, list[PointwiseMember]]:
    """Scoring panels: missing readings and failures; one member never scores; copies."""
    weights = (1.0, 1.25, 1.5, 1.75)
    scorers = [_scorer(k, skip=0.2 * (k == 3), fail=0.05 * (k == 1)) for k in range(4)]
    mixed = [PointwiseMember(f"m{k}", CallablePointwiseJudge(scorers[k]), weights[k])
             for k in range(4)]  # fmt: skip
    silent = [*mixed[:3], PointwiseMember("silent", CallablePointwiseJudge(_scorer(9, fail=1.0)))]
    copies = [
        PointwiseMember(f"c{k}", CallablePointwiseJudge(_scorer(k, same_as=0))) for k in range(3)
    ]
    return {"mixed": mixed, "silent": silent, "copies": copies}


def pair_panels() -> dict[str, list[JuryMember]]:
    """Pairwise panels: failures, a member that always fails, identical members."""
    mixed = [
        JuryMember(
            f"m{k}", CallableJudge(_pairwise(k, fail_every=13 if k == 2 else 0)), 1.0 + k / 4
        )
        for k in range(4)
    ]
    silent = [*mixed[:3], JuryMember("silent", CallableJudge(_pairwise(9, fail_every=1)))]
    copies = [JuryMember(f"c{k}", CallableJudge(_pairwise(k, same_as=0))) for k in range(3)]
    return {"mixed": mixed, "silent": silent, "copies": copies}


def _timeless(value: Any) -> Any:
    """``value`` without the members' latencies (the clock's, not the statistics')."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if not k.endswith("latency_s")}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _safe(fn: Callable[[], Any]) -> Any:
    try:
        return _timeless(fn())
    except Exception as exc:  # the case pins what the old code raised, too
        return {"raised": type(exc).__name__, "message": str(exc)}


def cases() -> dict[str, Any]:
    """Every case's JSON: the command's summary and its diagnostics."""
    out: dict[str, Any] = {}
    for name, members in score_panels().items():
        for n in (60, 1):
            for rule in ("mean", "median"):

                def run(
                    members: list[PointwiseMember] = members, n: int = n, rule: str = rule
                ) -> dict[str, Any]:
                    result = score_with_jury(
                        PointwiseJury(members), _score_items(n), aggregation=rule, **BOOT
                    )
                    return {"result": result.to_dict(),
                            "diagnostics": score_jury_diagnostics(result).to_dict()}  # fmt: skip

                out[f"score-jury {name} n={n} {rule}"] = _safe(run)
    for name, jmembers in pair_panels().items():
        for n in (45, 1):
            for rule in ("majority", "mean"):

                def jrun(
                    members: list[JuryMember] = jmembers, n: int = n, rule: str = rule
                ) -> dict[str, Any]:
                    settings = EvalSettings(n_resamples=BOOT["n_resamples"], seed=BOOT["seed"])
                    result = evaluate_jury(
                        Jury(members), _pair_items(n), settings, aggregation=rule
                    )
                    return {"result": result.to_dict(),
                            "diagnostics": jury_diagnostics(result).to_dict()}  # fmt: skip

                out[f"jury {name} n={n} {rule}"] = _safe(jrun)
    out.update(stats_cases())
    return out


def stats_cases() -> dict[str, Any]:
    """The statistics functions on their own, seeded, with and without questions."""
    rng = random.Random(11)
    n = 80
    questions = [f"q{i // 4}" for i in range(n)]
    ratings = [[rng.choice(["1", "2", "tie", "1"]) for _ in range(4)] for _ in range(n)]
    scores = [[rng.randint(1, 5) if rng.random() > 0.15 else None for _ in range(5)]
              for _ in range(n)]  # fmt: skip
    complete = [[float(v) for v in row] for row in ratings_to_scores(ratings)]
    levels = [float(rng.randint(1, 5)) for _ in range(n)]
    means = [round(rng.gauss(3.0, 1.0), 2) for _ in range(n)]
    out: dict[str, Any] = {}
    for q in (None, questions):
        tag = "questions" if q else "items"
        for metric in ("nominal", "ordinal", "interval"):
            out[f"alpha {metric} {tag}"] = _safe(
                lambda metric=metric, q=q: krippendorff_alpha_ci(
                    scores, metric, questions=q, **BOOT).to_dict())  # fmt: skip
        out[f"fleiss {tag}"] = _safe(
            lambda q=q: fleiss_kappa(ratings, questions=q, **BOOT).to_dict()
        )
        out[f"effective {tag}"] = _safe(
            lambda q=q: effective_judges(complete, questions=q, **BOOT).to_dict()
        )
        out[f"spearman levels-means {tag}"] = _safe(
            lambda q=q: score_correlation(levels, means, questions=q, **BOOT).to_dict()
        )
        out[f"spearman means-means {tag}"] = _safe(
            lambda q=q: score_correlation(means, [m * m for m in means], questions=q,
                                          **BOOT).to_dict())  # fmt: skip
    return out


def ratings_to_scores(ratings: list[list[str]]) -> list[list[float]]:
    """Model 1's score per label (1, ½, 0)."""
    return [[{"1": 1.0, "2": 0.0, "tie": 0.5}[v] for v in row] for row in ratings]


if __name__ == "__main__":
    with open(sys.argv[1], "w", encoding="utf-8") as f:  # one case a line
        for name, value in cases().items():
            f.write(json.dumps({name: value}, sort_keys=True, separators=(",", ":")) + "\n")
