"""Every judging command's ``--json`` on the shipped examples, for a before/after diff.

A reshape must not change a result. Run this at two commits (a ``git worktree`` for
the old one) and compare the folders: each command's JSON is written with ``calls``
and ``mean_latency_s`` removed (they differ between a first run and a cached rerun,
by design), and each command runs twice on one store so the second, cached run is
the one kept. Offline: the judges are the Python callables in
``fairjudge.examples.judges``, the recorded reviews in the examples folder, and
for the audit (which varies the prompt) the embedded local judge.

    python benchmarks/json_snapshot.py OUT_DIR     # writes OUT_DIR/<name>.json
    diff -r BEFORE_DIR AFTER_DIR                   # empty when nothing changed
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

J = "python:fairjudge.examples.judges:"
COMMANDS: dict[str, list[str]] = {
    "compare": ["compare", "{ex}/demo_pairs.jsonl", "--judge", J + "longer"],
    "compare-soft": ["compare", "{ex}/demo_pairs.jsonl", "--judge", J + "knows_facts",
                     "--rule", "soft"],
    "compare-via-scores": ["compare", "{ex}/calibration.jsonl", "--via-scores",
                           "--judge", J + "scorer"],
    "score": ["score", "{ex}/score_answers.jsonl", "--judge", J + "scorer"],
    "jury": ["jury", "{ex}/demo_pairs.jsonl", "--judge", J + "longer",
             "--judge", J + "knows_facts", "--judge", J + "first_position"],
    "jury-replay": ["jury", "{ex}/demo_pairs.jsonl", "--judge",
                    "replay:{ex}/replay_reviews.jsonl", "--judge", J + "knows_facts",
                    "--judge", J + "longer"],
    "score-jury": ["score-jury", "{ex}/score_answers.jsonl", "--judge", J + "scorer",
                   "--judge", J + "scorer"],
    "rank": ["rank", "{ex}/rank_answers.jsonl", "--judge", J + "longer"],
    "rank-battles": ["rank", "{ex}/battles.jsonl"],
    "calibrate": ["calibrate", "{ex}/calibration.jsonl", "--judge", J + "knows_facts"],
    # The audit varies the judge's prompt, so it needs a model: the embedded one.
    "audit": ["audit", "--limit", "2", "--experiments", "position,framing"],
}  # fmt: skip
DROPPED = {"calls", "mean_latency_s"}


def stripped(value: Any, dropped: set[str] = DROPPED) -> Any:
    """``value`` without the keys in ``dropped``, at any depth."""
    if isinstance(value, dict):
        return {k: stripped(v, dropped) for k, v in value.items() if k not in dropped}
    if isinstance(value, list):
        return [stripped(v, dropped) for v in value]
    return value


def run_twice(cmd: list[str], cwd: str) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` twice on one store and return the second, cached run."""
    for _ in range(2):
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    return done


def main(out: Path) -> int:
    import fairjudge.examples

    examples = Path(fairjudge.examples.__file__).parent
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, argv in COMMANDS.items():
            args = [a.format(ex=examples) for a in argv] + ["--json"]
            done = run_twice([str(Path(sys.executable).parent / "fairjudge"), *args], work)
            try:
                payload = stripped(json.loads(done.stdout))
            except json.JSONDecodeError:
                payload = {"exit": done.returncode, "stderr": done.stderr[-2000:]}
                failed += 1
            text = json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False)
            (out / f"{name}.json").write_text(text + "\n", "utf-8")
            print(f"{name:20} exit {done.returncode}  {len(text):>7} bytes")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
