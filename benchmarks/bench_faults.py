"""Faults and kills: nothing paid is lost, nothing injected is believed.

Setup: the scripted OpenAI-compatible server (``tests/server``) runs as its own
process, a fresh one per scenario (so a hung request of one scenario cannot answer
into the next), judging by length (``longer``) with 20 ms latency per call. 400
synthetic items are judged in both orders (800 calls) with the ``default`` template
by the real command, in a subprocess::

    python -c "from fairjudge.cli import main; main()" compare ITEMS.jsonl \\
        --judge openai/bench --base-url URL --store STORE -q --json \\
        --timeout 2 --concurrency 64

with ``OPENAI_API_KEY`` set to the server's key. The retry policy is fairjudge's
default (8 attempts per call, backoff base 0.5 s, 300 s per call); only the HTTP
timeout is lowered, to 2 s, so a hung request costs 2 s instead of 60 s.

Scenarios (one table row each):

- ``clean``: no faults; the reference wall time.
- ``faults``: per request, 20% 429 (``Retry-After: 0.05``), 5% 500, 2% ``reset``
  (the server reads the request, then resets the TCP connection without a reply),
  1% hang (10 s, longer than ``--timeout``); the draws are seeded.
- ``kill+resume``: the same fault mix on one store, with the command SIGKILLed when
  the store's ``ok`` rows first reach seeded random points (3 kills, each between
  15% and 85% of the calls) and rerun until it exits 0.

Columns: ``ok`` and ``failed`` (rows in the store by status), ``retries`` (the run
summaries' ``retries``, summed over runs that finished; a killed run prints none),
``server req`` (every chat request the server saw, faults included), ``server ok``
(normal replies the server sent: paid-for answers), ``attempts`` (the sum of
``attempts`` over the store's rows, fairjudge's own count of requests), ``summary
req`` (the finished runs' ``requests``), ``repeated`` (requests the server saw,
after a kill, for calls already stored ``ok`` before that kill: these must be 0),
``lost at kill`` (calls the server answered ``ok`` for a run that was then killed,
before the kill or in the 0.3 s after it while their replies were still on their
way, that the store did not hold as ``ok``: paid for, then bought again; at most the
calls in flight, so at most ``--concurrency`` per kill), the wall time of all the
command's runs (kills and restarts included) and that time against ``clean``.

Per-call counts come from the server's ``GET /_stats?prompts=1`` (requests and how
each ended, keyed by the SHA-256 of the user messages, :func:`tests.server.prompt_hash`),
matched to the store's rows through each row's rendered messages. Where the
server's and fairjudge's counts differ, the script lists the calls that differ and
what the server did with their requests; that difference is a finding, not noise.

Whatever a kill costs the next run (calls in flight lost and bought again, any
wait on state a dead process left behind) is in the measured wall time. Calls that
were in flight at a kill (the server had seen them, the store had no ``ok`` row) are
expected to differ between the server's count and the store's: the dead process
never wrote their attempts. The mismatch report lists them apart from the rest.

Chosen for a 2-core machine: concurrency 64, 20 ms latency, ``--timeout 2``, 10 s
hangs, ``Retry-After: 0.05``, fairjudge's default retries; most of the wall time is
process start-up, the bootstrap, and the backoff of the slowest calls.

A second table asks whether ``--max-cost`` holds when the provider counts 1, 4 or 8
times the tokens fairjudge guesses, at ``--concurrency`` 1, 16 and 64: calls made and
spent / max_cost per case (setup and columns in ``benchmarks/_budget.py``, whose
:func:`budget_rows` returns the rows for other benchmarks to print).

Run: ``python benchmarks/bench_faults.py`` (400 items, 3 kills; about a minute);
``--quick`` (100 items, 1 kill; about 20 s); ``--budget-only`` (the budget table
alone; about 20 s).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _budget import HEADERS as BUDGET_HEADERS  # noqa: E402
from _budget import budget_rows, table_row  # noqa: E402
from _common import environment, table, write_json, write_synthetic_items  # noqa: E402

from fairjudge.runner import Store  # noqa: E402
from tests.server import DEFAULT_API_KEY, ServerProcess, prompt_hash  # noqa: E402

FAULTS = {"rate_limit": 0.20, "server_error": 0.05, "reset": 0.02, "hang": 0.01}
CLI = "from fairjudge.cli import main; main()"


# -- inputs ----------------------------------------------------------------------------


def server_args(args: argparse.Namespace, faults: bool) -> list[str]:
    out = ["--judge", "longer", "--latency", str(args.latency), "--seed", str(args.seed)]
    if faults:
        for name, rate in FAULTS.items():
            out += ["--fault", f"{name}={rate}"]
        out += ["--retry-after", args.retry_after, "--hang", str(args.hang)]
    return out


# -- the store and the server ------------------------------------------------------------


def ok_rows(store: Path) -> int:
    """``ok`` rows in the store, read-only (0 while the file or table does not exist)."""
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)
    except sqlite3.Error:
        return 0
    try:
        return int(conn.execute("SELECT COUNT(*) FROM calls WHERE status = 'ok'").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def store_rows(store: Path) -> list[dict[str, Any]]:
    """Every row's key, status, attempts and the hash the server counts it under."""
    rows = []
    with Store(store) as s:
        for r in s.records():
            user = "\n".join(c for role, c in r.spec["messages"] if role == "user")
            rows.append(
                {"key": r.key, "status": r.status, "attempts": r.attempts, "h": prompt_hash(user)}
            )
    return rows


# -- one run of the command --------------------------------------------------------------


def launch(
    items: Path, store: Path, base_url: str, args: argparse.Namespace, tmp: Path, n: int
) -> tuple[subprocess.Popen[bytes], IO[str], IO[str]]:
    cmd = [
        sys.executable, "-c", CLI, "compare", str(items),
        "--judge", "openai/bench", "--base-url", base_url, "--store", str(store),
        "-q", "--json", "--timeout", str(args.timeout), "--concurrency", str(args.concurrency),
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["OPENAI_API_KEY"] = DEFAULT_API_KEY
    env["PYTHONPATH"] = str(ROOT / "src")
    out = (tmp / f"run-{n}.out").open("w")
    err = (tmp / f"run-{n}.err").open("w")
    proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=out, stderr=err)
    return proc, out, err


def finish(
    proc: subprocess.Popen[bytes], out: IO[str], err: IO[str], killed: bool
) -> dict[str, Any]:
    out.close()
    err.close()
    run: dict[str, Any] = {"rc": proc.returncode, "killed": killed}
    if killed:
        return run
    text = Path(out.name).read_text()
    try:
        payload = json.loads(text)
    except ValueError:
        run["stdout_tail"] = text[-2000:]
        run["stderr_tail"] = Path(err.name).read_text()[-2000:]
        return run
    run["calls"] = payload.get("calls")
    if "error" in payload:
        run["error"] = payload["error"]
    return run


def scenario(
    name: str, args: argparse.Namespace, items: Path, tmp: Path, faults: bool, kills: int
) -> dict[str, Any]:
    """Run the command against a fresh server until it exits 0, killing it ``kills`` times."""
    rng = random.Random(f"{args.seed}-{name}")
    n_calls = 2 * args.items
    thresholds = sorted(int(rng.uniform(0.15, 0.85) * n_calls) for _ in range(kills))
    store = tmp / f"{name.replace('+', '-')}.sqlite"
    runs: list[dict[str, Any]] = []
    snapshots: list[dict[str, Any]] = []  # one per kill
    wall = 0.0
    with ServerProcess(*server_args(args, faults)) as server:
        print(f"{name}: {n_calls} calls, kills at ok rows {thresholds} ...", file=sys.stderr)
        while len(runs) < kills + args.max_reruns:
            threshold = thresholds[len(snapshots)] if len(snapshots) < len(thresholds) else None
            proc, out, err = launch(items, store, server.base_url, args, tmp, len(runs))
            start = time.perf_counter()
            killed = False
            while proc.poll() is None:
                if threshold is not None and ok_rows(store) >= threshold:
                    proc.send_signal(signal.SIGKILL)
                    killed = True
                    break
                time.sleep(0.02)
            proc.wait()
            wall += time.perf_counter() - start
            run = finish(proc, out, err, killed) | {"wall_s": time.perf_counter() - start}
            runs.append(run)
            print(f"  run {len(runs)}: {run_line(run)}", file=sys.stderr)
            if killed:
                time.sleep(0.3)  # let the server read what the dead process had sent
                ok_keys = {r["key"] for r in store_rows(store) if r["status"] == "ok"}
                snapshots.append(
                    {"ok_keys": ok_keys, "counts": server.prompt_counts(), "threshold": threshold}
                )
            elif run["rc"] == 0:
                break
        stats = server.stats()
        final_counts = server.prompt_counts()
    return measure(name, runs, snapshots, stats, final_counts, store_rows(store), wall)


def run_line(run: dict[str, Any]) -> str:
    text = f"rc {run['rc']}{' (SIGKILL)' if run['killed'] else ''}, {run['wall_s']:.1f} s"
    if run.get("calls"):
        c = run["calls"]
        text += f", made {c['made']} cached {c['cached']} requests {c['requests']}"
    if run.get("error"):
        text += f", error {run['error']}"
    return text


# -- what the counts say -----------------------------------------------------------------


def measure(
    name: str,
    runs: list[dict[str, Any]],
    snapshots: list[dict[str, Any]],
    stats: dict[str, int],
    final_counts: dict[str, dict[str, int]],
    rows: list[dict[str, Any]],
    wall: float,
) -> dict[str, Any]:
    key_hash = {r["key"]: r["h"] for r in rows}
    requests_at = [s["counts"].get("requests", {}) for s in snapshots]
    requests_at.append(final_counts.get("requests", {}))
    repeated = repeated_keys = lost = 0
    in_flight: set[str] = set()  # hashes the server had seen but not stored ok, at a kill
    for k, snap in enumerate(snapshots):
        before, after = requests_at[k], requests_at[k + 1]
        answered = snap["counts"].get("ok", {})
        for key in snap["ok_keys"]:
            h = key_hash[key]
            extra = after.get(h, 0) - before.get(h, 0)
            repeated += extra
            repeated_keys += extra > 0
        ok_hashes = {key_hash[key] for key in snap["ok_keys"]}
        lost += sum(1 for h, n in answered.items() if n and h not in ok_hashes)
        in_flight.update(h for h in before if h not in ok_hashes)
    finished = [r["calls"] for r in runs if r.get("calls")]
    attempts = sum(r["attempts"] for r in rows)
    return {
        "scenario": name,
        "runs": len(runs),
        "kills": sum(r["killed"] for r in runs),
        "exit_codes": [r["rc"] for r in runs],
        "ok": sum(r["status"] == "ok" for r in rows),
        "failed": sum(r["status"] == "error" for r in rows),
        "retries": sum(c["retries"] for c in finished),
        "server_requests": stats.get("requests", 0),
        "server_ok": stats.get("ok", 0),
        "store_attempts": attempts,
        "summary_requests": sum(c["requests"] for c in finished),
        "repeated_after_kill": repeated,
        "repeated_keys": repeated_keys,
        "lost_at_kill": lost,
        "wall_s": wall,
        "calls_wall_s": sum(c["wall_s"] for c in finished),
        "backoff_s": sum(c.get("backoff_s") or 0.0 for c in finished),
        "server_stats": stats,
        "in_flight_at_kill": len(in_flight),
        "mismatches": mismatches(rows, final_counts, skip=set()),
        "mismatches_not_in_flight_at_kill": mismatches(rows, final_counts, skip=in_flight),
        "runs_detail": runs,
    }


def mismatches(
    rows: list[dict[str, Any]], counts: dict[str, dict[str, int]], skip: set[str]
) -> dict[str, Any]:
    """Calls (but those in ``skip``) whose request counts differ: server against store."""
    requests = counts.get("requests", {})
    stored = {r["h"] for r in rows}
    more = fewer = extra = 0
    outcomes: Counter[str] = Counter()  # what the server did, over the differing calls
    examples: list[dict[str, Any]] = []
    for r in rows:
        seen = requests.get(r["h"], 0)
        if seen == r["attempts"] or r["h"] in skip:
            continue
        more += seen > r["attempts"]
        fewer += seen < r["attempts"]
        extra += seen - r["attempts"]
        ended = {n: c[r["h"]] for n, c in counts.items() if n != "requests" and r["h"] in c}
        outcomes.update(ended)
        if len(examples) < 5:
            examples.append({"server": seen, "attempts": r["attempts"], "server_outcomes": ended})
    unstored = sum(n for h, n in requests.items() if h not in stored)
    return {
        "calls_server_saw_more": more,
        "calls_server_saw_fewer": fewer,
        "server_minus_attempts": extra,
        "server_outcomes_of_those_calls": dict(outcomes),
        "requests_for_calls_not_in_store": unstored,
        "examples": examples,
    }


# -- main ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 items, 1 kill")
    parser.add_argument("--items", type=int, help="items (2 calls each) [400; quick 100]")
    parser.add_argument("--kills", type=int, help="SIGKILLs in kill+resume [3; quick 1]")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.02, help="server seconds per call")
    parser.add_argument("--timeout", type=float, default=2.0, help="the command's --timeout")
    parser.add_argument("--hang", type=float, default=10.0, help="seconds a hang lasts")
    parser.add_argument("--retry-after", default="0.05")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-reruns", type=int, default=5, help="reruns allowed beyond kills")
    parser.add_argument("--budget-only", action="store_true", help="only the --max-cost table")
    args = parser.parse_args(argv)
    if args.items is None:
        args.items = 100 if args.quick else 400
    if args.kills is None:
        args.kills = 1 if args.quick else 3

    if args.budget_only:
        budget_table(budget_rows(), args)
        return
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as tmp_name:
        tmp = Path(tmp_name)
        items = tmp / "items.jsonl"
        write_synthetic_items(items, args.items)
        rows.append(scenario("clean", args, items, tmp, faults=False, kills=0))
        rows.append(scenario("faults", args, items, tmp, faults=True, kills=0))
        if args.kills:
            rows.append(scenario("kill+resume", args, items, tmp, faults=True, kills=args.kills))
    clean = rows[0]["wall_s"]
    for r in rows:
        r["wall_vs_clean"] = r["wall_s"] / clean

    headers = [
        "scenario", "runs", "ok", "failed", "retries", "server req", "server ok",
        "attempts", "summary req", "repeated", "lost at kill", "wall s", "vs clean",
    ]  # fmt: skip
    body = [
        [
            r["scenario"], r["runs"], r["ok"], r["failed"], r["retries"], r["server_requests"],
            r["server_ok"], r["store_attempts"], r["summary_requests"],
            r["repeated_after_kill"] if r["kills"] else "-",
            r["lost_at_kill"] if r["kills"] else "-",
            f"{r['wall_s']:.1f}", f"{r['wall_vs_clean']:.2f}x",
        ]
        for r in rows
    ]  # fmt: skip
    print(table(headers, body))
    print()
    for r in rows:
        gap = r["server_requests"] - r["store_attempts"]
        faults = {k: v for k, v in r["server_stats"].items() if k in {*FAULTS, "ok", "requests"}}
        print(f"{r['scenario']}: server {faults}; server req - store attempts = {gap:+d}")
        parts = [("", r["mismatches"])]
        if r["kills"]:
            print(f"  runs: {'; '.join(run_line(x) for x in r['runs_detail'])}")
            print(f"  calls in flight at a kill: {r['in_flight_at_kill']}")
            parts.append((" (not in flight at a kill)", r["mismatches_not_in_flight_at_kill"]))
        for label, m in parts:
            print(
                f"  calls the server saw more often{label}: {m['calls_server_saw_more']} "
                f"(+{m['server_minus_attempts']} requests), less often: "
                f"{m['calls_server_saw_fewer']}; what the server did with their requests: "
                f"{m['server_outcomes_of_those_calls']}"
            )
    budget = budget_rows()
    path = write_json(
        "bench_faults",
        {
            "benchmark": "bench_faults",
            "items": args.items,
            "calls": 2 * args.items,
            "faults": FAULTS,
            "options": {k: v for k, v in vars(args).items()},
            "command": f"python -c '{CLI}' compare ITEMS --judge openai/bench --base-url URL "
            f"--store STORE -q --json --timeout {args.timeout} --concurrency {args.concurrency}",
            "environment": environment(),
            "rows": rows,
            "budget_rows": budget,
        },
    )
    print()
    budget_table(budget, None)
    print(f"\nwrote {path.relative_to(ROOT)}")


def budget_table(rows: list[dict[str, Any]], args: argparse.Namespace | None) -> None:
    """Print the ``--max-cost`` table; with ``args``, also write it as its own JSON."""
    print("--max-cost 0.01 against a provider counting `ratio` times the guessed tokens:")
    print(table(BUDGET_HEADERS, [table_row(r) for r in rows]))
    if args is not None:
        payload = {"benchmark": "bench_faults --budget-only", "environment": environment()}
        path = write_json("bench_faults_budget", payload | {"budget_rows": rows})
        print(f"\nwrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
