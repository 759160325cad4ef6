"""Human Bradley-Terry leaderboard of the 9 models on Vicuna-80 (PRD dataset).

Data: ``data/vicuna80/ratings-human/answer_{m1}-vs-answer_{m2}-human-reviewer_threeclass.jsonl``
from the PRD repository (Li et al. 2023, "PRD: Peer Rank and Discussion"). Each line
is one human rating of model 1's answer (shown first) against model 2's on one
Vicuna-80 question: ``score`` 1 = first better, 2 = second better, 3 = tie. Most
files hold three raters per question (three lines per ``question_id``); the
``claude-vs-*`` files hold one. Every rating becomes one battle.

The leaderboard is fitted with ties as half a win, anchored at the first model
alphabetically (1000), with 95% intervals from 2,000 bootstrap rounds that
resample *questions*: the ratings of one question (three raters, several model
pairs) share its difficulty, so they are not independent. The battle-level
interval is shown alongside for comparison.

Run: ``python benchmarks/bench_human_rankings.py [--data ../shared/datasets/prd]``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import environment, table, write_json

from fairjudge.stats._bradley_terry import bradley_terry

REPO = Path(__file__).resolve().parents[1]
PATTERN = re.compile(r"^answer_(.+)-vs-answer_(.+)-human-reviewer_threeclass\.jsonl$")
SCORE_TO_OUTCOME = {1: "1", 2: "2", 3: "tie"}


def load(data_dir: Path) -> dict[str, list[Any]]:
    folder = data_dir / "data" / "vicuna80" / "ratings-human"
    files = sorted(p for p in folder.glob("*threeclass.jsonl") if PATTERN.match(p.name))
    if not files:
        raise SystemExit(f"no *threeclass.jsonl human ratings under {folder}")
    out: dict[str, list[Any]] = {"model_a": [], "model_b": [], "outcomes": [], "questions": []}
    for path in files:
        match = PATTERN.match(path.name)
        assert match is not None
        first, second = match.group(1), match.group(2)
        for line_no, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if row["score"] not in SCORE_TO_OUTCOME:
                raise SystemExit(f"{path}:{line_no}: score must be 1, 2 or 3; got {row['score']!r}")
            out["model_a"].append(first)
            out["model_b"].append(second)
            out["outcomes"].append(SCORE_TO_OUTCOME[row["score"]])
            out["questions"].append(int(row["question_id"]))
    out["n_files"] = [len(files)]
    return out


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
    d = load(data_dir)

    t0 = time.perf_counter()
    by_question = bradley_terry(
        d["model_a"],
        d["model_b"],
        d["outcomes"],
        questions=d["questions"],
        n_resamples=args.rounds,
        seed=args.seed,
    )
    seconds = time.perf_counter() - t0
    by_battle = bradley_terry(
        d["model_a"], d["model_b"], d["outcomes"], n_resamples=args.rounds, seed=args.seed
    )

    outcomes = Counter(d["outcomes"])
    print(
        f"Human Bradley-Terry leaderboard, Vicuna-80 (PRD): {by_question.n_battles} ratings from "
        f"{d['n_files'][0]} files, {len(by_question.models)} models, "
        f"{by_question.n_questions} questions; {outcomes['1']} first-better, "
        f"{outcomes['2']} second-better, {outcomes['tie']} ties"
    )
    print(
        f"Ties as half a win; {by_question.anchor} pinned at 1000; 95% intervals from "
        f"{args.rounds} bootstrap rounds (seed {args.seed}); fit + bootstrap {seconds:.2f} s"
    )
    rows = []
    for r in by_question.ratings:
        b = by_battle.rating(r.model)
        rows.append(
            [
                r.rank,
                r.model,
                f"{r.rating:.0f}",
                f"[{r.ci.low:.0f}, {r.ci.high:.0f}]",
                f"{r.rank_ci.low:.0f}-{r.rank_ci.high:.0f}",
                f"[{b.ci.low:.0f}, {b.ci.high:.0f}]",
                r.n_battles,
                f"{r.wins}/{r.losses}/{r.ties}",
            ]
        )
    print(
        table(
            [
                "rank",
                "model",
                "rating",
                "95% CI (questions)",
                "rank CI",
                "95% CI (battles)",
                "ratings",
                "W/L/T",
            ],
            rows,
            left=(1,),
        )
    )
    if by_question.n_degenerate_resamples:
        print(f"{by_question.n_degenerate_resamples} degenerate bootstrap rounds")
    path = write_json(
        "bench_human_rankings",
        {
            "data": str(data_dir),
            "n_ratings": by_question.n_battles,
            "outcomes": dict(outcomes),
            "seconds": seconds,
            "clustered_by_question": by_question.to_dict(),
            "resampling_battles": by_battle.to_dict(),
            "environment": environment(),
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
