"""The size of every command's HTML page, and a 10,000-item page's load time in Chromium.

The pages are the demo's (``fairjudge example-data``, judged by the examples' own
``longer`` judge and ``scorer``): compare, rank, calibrate and score as their
commands write them with ``--html``, an audit of a planted Python audit judge on the
built-in suite, and a compare page of 10,000 items of realistic length (the browser
tests' ``ten_thousand_items`` case: ~40-word questions, ~90-word answers, a
paragraph of reasons per call).

``--against REV`` builds the same pages with the package as it was at git revision
``REV`` too (``git archive`` into a temporary folder, run by a child Python with
that tree's ``src`` first on its path), and loads both 10,000-item pages in the same
Chromium, alternately, so the ratio compares like with like.

Run: ``.venv/bin/python benchmarks/bench_pages.py --against 5da2b8b``. Prints a
table and writes ``benchmarks/results/pages.json``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAGES = ("compare", "rank", "calibrate", "score", "audit", "compare_10000")
WORDS = [
    "the",
    "answer",
    "model",
    "judge",
    "value",
    "result",
    "method",
    "case",
    "point",
    "number",
    "data",
    "reason",
    "system",
    "claim",
    "order",
    "test",
    "item",
    "question",
    "error",
    "figure",
    "range",
    "source",
    "step",
]


def explained(question: str, answer_a: str, answer_b: str) -> str:
    """A reply the size of a real judge's: a paragraph of reasons, then the verdict."""
    better = "B" if len(answer_b) > len(answer_a) else "A"
    return (
        f"Answer A has {len(answer_a.split())} words and answer B has "
        f"{len(answer_b.split())}. Both address the question; the {better} answer covers "
        "more of what was asked, states its assumptions, and makes no claim the other "
        "contradicts. Neither contains a factual error I can verify from the question "
        f"alone, so the decision rests on completeness and clarity.\nVerdict: {better}"
    )


def large_items(n: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(seed)

    def text(k: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(k))

    return [
        {"id": f"item-{i:05d}", "question": text(rng.randint(20, 60)) + "?",
         "answer_1": text(rng.randint(40, 140)), "answer_2": text(rng.randint(40, 140)),
         "category": rng.choice(["math", "code", "writing", "facts"])}
        for i in range(n)
    ]  # fmt: skip


class PlantedAudit:
    """An audit judge of two Python functions: prefers the first answer on some questions."""

    name = "python/planted"

    def pairwise(self, template: str) -> Any:
        from fairjudge.judges import CallableJudge

        def fn(question: str, a: str, b: str) -> str:
            if len(question) % 3 == 0:
                return "A"
            return "A" if len(a) > len(b) else "B" if len(b) > len(a) else "tie"

        return CallableJudge(fn, name=self.name)

    def pointwise(self, rubric: str) -> Any:
        from fairjudge.judges import CallablePointwiseJudge
        from fairjudge.prompts import get_rubric

        spec = get_rubric(rubric)
        low, high = spec.scale

        def fn(question: str, answer: str) -> dict[str, int]:
            base = low + (len(answer.split()) + (rubric == "basic")) % (high - low + 1)
            return {d.name: base for d in spec.dimensions}

        return CallablePointwiseJudge(fn, rubric=rubric, name=self.name)


def build(out: Path) -> None:
    """Write every page into ``out`` with the ``fairjudge`` this interpreter imports."""
    from typer.testing import CliRunner

    import fairjudge
    from fairjudge.audit import AuditSettings, audit, builtin_items
    from fairjudge.cli import app
    from fairjudge.evaluation import EvalSettings
    from fairjudge.report import page_html
    from fairjudge.report._page_audit import audit_page

    out.mkdir(parents=True, exist_ok=True)
    demo = out / "demo"
    runner = CliRunner()
    done = runner.invoke(app, ["example-data", str(demo)])
    assert done.exit_code == 0, done.output
    longer, scorer = (
        "python:fairjudge.examples.judges:longer",
        "python:fairjudge.examples.judges:scorer",
    )
    for kind, args in (
        ("compare", ["compare", str(demo / "demo_pairs.jsonl"), "--judge", longer]),
        ("rank", ["rank", str(demo / "rank_answers.jsonl"), "--judge", longer]),
        ("calibrate", ["calibrate", str(demo / "calibration.jsonl"), "--judge", longer]),
        ("score", ["score", str(demo / "score_answers.jsonl"), "--judge", scorer]),
    ):
        done = runner.invoke(app, [*args, "--html", str(out / f"{kind}.html"), "-q"])
        assert done.exit_code in (0, 3), (kind, done.output)
    report = audit(PlantedAudit(), builtin_items(), settings=AuditSettings(n_resamples=200))
    (out / "audit.html").write_text(page_html(audit_page(report, calls_made=0)), "utf-8")
    large = fairjudge.compare(large_items(10_000), explained,
                              settings=EvalSettings(n_resamples=100))  # fmt: skip
    large.to_html(out / "compare_10000.html")


def build_at(rev: str, out: Path) -> None:
    """Build the pages with the package as it was at ``rev``."""
    tree = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    try:
        archive = subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, check=True,
                                 capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        env = {**os.environ, "PYTHONPATH": str(tree / "src")}
        subprocess.run([sys.executable, __file__, "--build", str(out)], env=env, check=True)
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def load_times(paths: dict[str, Path], repeats: int) -> dict[str, list[float]]:
    """Seconds from navigation to the explorer's first row, each page in turn, ``repeats`` times."""
    from playwright.sync_api import sync_playwright

    from tests.report.conftest import CHROMIUM_ARGS, chromium_path

    times: dict[str, list[float]] = {name: [] for name in paths}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        for _ in range(repeats):
            for name, path in paths.items():
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                start = time.perf_counter()
                page.goto(path.resolve().as_uri())
                page.wait_for_selector("body[data-ready='1']", state="attached")
                page.wait_for_selector("#fj-list li")
                times[name].append(time.perf_counter() - start)
                context.close()
        browser.close()
    return times


def main() -> None:
    from benchmarks._common import environment, table, write_json

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", help="git revision to compare with (its pages built too)")
    parser.add_argument("--repeats", type=int, default=5, help="loads of each 10,000-item page")
    parser.add_argument("--build", type=Path, help=argparse.SUPPRESS)  # the child's job
    args = parser.parse_args()
    if args.build is not None:
        build(args.build)
        return
    work = Path(tempfile.mkdtemp(prefix="bench-pages-out-"))
    try:
        build(work / "now")
        trees = {"now": work / "now"}
        if args.against:
            build_at(args.against, work / "before")
            trees["before"] = work / "before"
        sizes = {t: {p: (folder / f"{p}.html").stat().st_size for p in PAGES}
                 for t, folder in trees.items()}  # fmt: skip
        big = {t: folder / "compare_10000.html" for t, folder in trees.items()}
        loads = load_times(big, args.repeats)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    median = {t: statistics.median(v) for t, v in loads.items()}
    rows = []
    for page in PAGES:
        now = sizes["now"][page]
        row: list[Any] = [page]
        if "before" in sizes:
            before = sizes["before"][page]
            row += [f"{before:,}", f"{now:,}", f"{now / before:.3f}"]
        else:
            row += [f"{now:,}"]
        rows.append(row)
    headers = ["page", "bytes before", "bytes now", "ratio"] if args.against else ["page", "bytes"]
    print(table(headers, rows))
    print()
    load_rows = [[t, f"{median[t] * 1000:.0f}", ", ".join(f"{s * 1000:.0f}" for s in loads[t])]
                 for t in loads]  # fmt: skip
    print(table(["10,000-item page", "median load ms", "each load ms"], load_rows))
    if "before" in median:
        print(f"\nload time ratio now/before: {median['now'] / median['before']:.3f}")
    write_json("pages", {
        "environment": environment(),
        "against": args.against,
        "repeats": args.repeats,
        "bytes": sizes,
        "load_seconds": loads,
        "load_median_seconds": median,
        "load_ratio": median["now"] / median["before"] if "before" in median else None,
    })  # fmt: skip


if __name__ == "__main__":
    main()
