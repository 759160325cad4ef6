"""Every judging command's ``--out`` file on the shipped examples, for a before/after diff.

The ``--out`` twin of ``json_snapshot.py``: each command runs twice on one store (the
second, cached run is kept) with ``--out``, offline on the same judges. The files are
kept byte for byte except the fields that vary by design, which are normalised:

- the header's ``command`` (paths of the examples and of the scratch folder become
  ``{ex}`` and ``{work}``), and ``config_file`` likewise;
- the header's ``calls`` and every ``mean_latency_s``/``latency_s``/``wall_s`` (a
  first run and a cached rerun differ; an audit's summary record keeps its calls).

``run-config`` runs ``fairjudge run`` on a config file that ``--save-config`` wrote,
so the header's ``config`` and ``config_file`` are compared too.

    python benchmarks/out_snapshot.py OUT_DIR [NAME...]  # writes OUT_DIR/<name>.jsonl
    diff -r BEFORE_DIR AFTER_DIR                  # empty when nothing changed
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
    "compare-stop": ["compare", "{ex}/demo_pairs.jsonl", "--judge", J + "knows_facts",
                     "--stop-when", "decided"],
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
    "calibrate": ["calibrate", "{ex}/calibration.jsonl", "--judge", J + "knows_facts"],
    "calibrate-scores": ["calibrate", "{work}/scored_humans.jsonl", "--judge", J + "scorer"],
    # The audit varies the judge's prompt, so it needs a model: the embedded one.
    "audit": ["audit", "--limit", "2", "--experiments", "position,framing"],
}  # fmt: skip
VARYING = {"mean_latency_s", "latency_s", "wall_s"}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _normalised(path: Path, ex: str, work: str) -> str:
    lines = []
    for line in path.read_text("utf-8").splitlines():
        record = _strip(json.loads(line.replace(ex, "{ex}").replace(work, "{work}")))
        if isinstance(record.get("fairjudge"), dict):  # the header's calls: cached or not
            record["fairjudge"].pop("calls", None)
        lines.append(json.dumps(record, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _humans(ex: Path, work: Path) -> None:
    """The score example with human scores, so pointwise calibrate has labels."""
    rows = [json.loads(x) for x in (ex / "score_answers.jsonl").read_text("utf-8").splitlines()]
    for i, row in enumerate(rows):
        row |= {"human_accuracy": 1 + i % 5, "human_relevance": 3, "human_usefulness": 2 + i % 3}
    (work / "scored_humans.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _run(cmd: list[str], work: str) -> subprocess.CompletedProcess[str]:
    for _ in range(2):  # the second run is the cached one
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    return done


def main(out: Path, only: list[str]) -> int:
    import fairjudge.examples

    examples = Path(fairjudge.examples.__file__).parent
    out.mkdir(parents=True, exist_ok=True)
    exe = str(Path(sys.executable).parent / "fairjudge")
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        _humans(examples, Path(work))
        cases = {k: [a.format(ex=examples, work=work) for a in v] for k, v in COMMANDS.items()}
        config = Path(work) / "eval.toml"
        cases["run-config"] = ["run", str(config), "--allow-python-judges"]
        for name, args in cases.items():
            if only and name not in only:
                continue
            target = Path(work) / f"{name}.jsonl"
            if name == "run-config":  # --save-config writes the file and runs nothing
                saved = [*cases["compare-soft"], "--out", str(target), "--save-config",
                         str(config)]  # fmt: skip
                subprocess.run([exe, *saved], capture_output=True, text=True, cwd=work)
                argv = args
            else:
                argv = [*args, "--out", str(target)]
            done = _run([exe, *argv], work)
            if not target.exists():
                failed += 1
                (out / f"{name}.jsonl").write_text(f"exit {done.returncode}\n{done.stderr}")
                print(f"{name:20} exit {done.returncode}  NO FILE")
                continue
            text = _normalised(target, str(examples), work)
            (out / f"{name}.jsonl").write_text(text, "utf-8")
            print(f"{name:20} exit {done.returncode}  {len(text):>7} bytes")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2:]))
