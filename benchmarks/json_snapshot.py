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

``--fresh`` keeps each command's first run on an empty store instead, with its
``calls`` block (what fresh calls report: counts, tokens, cost) and only the clock
readings (``wall_s``, ``backoff_s``, ``mean_latency_s``) removed. A warm snapshot
cannot see a change to what a fresh call reports (stop 39's reasoning-token total
was one); the fresh one can.
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
CLOCKS = {"wall_s", "backoff_s", "mean_latency_s"}


def stripped(value: Any, dropped: set[str] = DROPPED) -> Any:
    """``value`` without the keys in ``dropped``, at any depth."""
    if isinstance(value, dict):
        return {k: stripped(v, dropped) for k, v in value.items() if k not in dropped}
    if isinstance(value, list):
        return [stripped(v, dropped) for v in value]
    return value


def run_twice(cmd: list[str], cwd: str, times: int = 2) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` ``times`` times on one store and return the last run."""
    for _ in range(times):
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    return done


def main(out: Path, fresh: bool = False) -> int:
    import fairjudge.examples

    examples = Path(fairjudge.examples.__file__).parent
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    dropped = CLOCKS if fresh else DROPPED
    with tempfile.TemporaryDirectory() as shared:
        for name, argv in COMMANDS.items():
            args = [a.format(ex=examples) for a in argv] + ["--json"]
            cmd = [str(Path(sys.executable).parent / "fairjudge"), *args]
            if fresh:  # a store of its own: nothing is served from another command's
                with tempfile.TemporaryDirectory() as own:
                    done = run_twice(cmd, own, times=1)
            else:
                done = run_twice(cmd, shared)
            try:
                payload = stripped(json.loads(done.stdout), dropped)
            except json.JSONDecodeError:
                payload = {"exit": done.returncode, "stderr": done.stderr[-2000:]}
                failed += 1
            text = json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False)
            (out / f"{name}.json").write_text(text + "\n", "utf-8")
            print(f"{name:20} exit {done.returncode}  {len(text):>7} bytes")
    return 1 if failed else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    fresh = "--fresh" in args
    paths = [a for a in args if a != "--fresh"]
    if len(paths) != 1:
        sys.exit("usage: python benchmarks/json_snapshot.py [--fresh] OUT_DIR")
    sys.exit(main(Path(paths[0]), fresh=fresh))
