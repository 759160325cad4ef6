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

from json_snapshot import COMMANDS as SNAPSHOT_COMMANDS
from json_snapshot import J, run_twice, stripped

# json_snapshot's commands (judged battles have no --out file), and two more: a run
# the stop rule ends, and pointwise calibrate on the example made to carry human scores.
COMMANDS: dict[str, list[str]] = {
    **{name: argv for name, argv in SNAPSHOT_COMMANDS.items() if name != "rank-battles"},
    "compare-stop": ["compare", "{ex}/demo_pairs.jsonl", "--judge", J + "knows_facts",
                     "--stop-when", "decided"],
    "calibrate-scores": ["calibrate", "{work}/scored_humans.jsonl", "--judge", J + "scorer"],
}  # fmt: skip
VARYING = {"mean_latency_s", "latency_s", "wall_s"}


def _normalised(path: Path, ex: str, work: str) -> str:
    lines = []
    for line in path.read_text("utf-8").splitlines():
        record = stripped(json.loads(line.replace(ex, "{ex}").replace(work, "{work}")), VARYING)
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
            done = run_twice([exe, *argv], work)
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
