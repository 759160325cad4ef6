"""Providers' batch APIs against online calls, on the emulators (issue 31, item 7).

Everything runs against ``tests/server/_batch_emulator.py`` on 127.0.0.1, in front of
the faithful OpenAI chat emulator (``tests/server/_openai_emulator.py``): each batch
line is answered as an online request would be, and refused as the real API refuses.
Each run is the command line in a process of its own, as a user runs it.

1. **1,000-item compare, online against batch** (``openai/gpt-4o-mini``, the
   ``longer`` scripted judge, 2,000 calls). Online: ``--concurrency 16``, every
   request answered after ``--latency`` seconds (a provider's time per request).
   Batch: ``--batch-api --wait --batch-poll 1``; the emulator keeps the batch
   ``in_progress`` for ``--delay-s`` seconds (a provider's queue), then answers
   every line at once. Rows: HTTP requests the server saw (online: one per call;
   batch: the upload, the create, the polls and the two file reads), wall time,
   and cost at the list price fairjudge's table gives gpt-4o-mini
   (``runner/_prices.py``; the batch rows are billed at half). The two runs'
   ``--json`` are compared, wall time and money aside.
2. **Kill and resume.** A batch run SIGKILLed while it polls (the batch held
   ``in_progress``), then the same command again: batches submitted in all, lines
   answered, and whether the rerun's result is whole.
3. **Refused requests on an unknown model.** ``openai/acme-reasoner``, a reasoning
   model fairjudge's capability table does not know (the emulator refuses
   ``max_tokens``, a temperature other than 1 and logprobs, as OpenAI does): the
   refused requests an online run spends, and a batch run (one call online first,
   whose refusals teach the request the batch then sends).

Run: ``python benchmarks/bench_providers.py`` (1,000 items; about a minute with the
defaults ``--latency 0.1 --delay-s 10``); ``--quick`` (100 items, ``--delay-s 3``).
Writes ``benchmarks/results/bench_providers.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import environment, table, write_json, write_synthetic_items  # noqa: E402

from tests.server import Script  # noqa: E402
from tests.server._batch_emulator import BatchScript, BatchServer  # noqa: E402
from tests.server._openai_emulator import OpenAIEmulator  # noqa: E402

CLI = "from fairjudge.cli import main; main()"
HEADERS = ["run", "calls", "HTTP requests", "wall s", "cost $ (list)", "refused", "batches"]


def compare_argv(
    items: Path, store: Path, server: BatchServer, model: str, *more: str
) -> list[str]:
    where = ["--base-url", server.base_url, "--store", str(store)]
    return [sys.executable, "-c", CLI, "compare", str(items), "--judge", model, *where,
            "--json", "--quiet", *more]  # fmt: skip


def run(argv: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT, timeout=900)
    return done, time.perf_counter() - start


def http_requests(stats: dict[str, int], online: bool) -> int:
    """What the server was asked over HTTP: chat requests (refused ones too), batch endpoints."""
    chat = stats.get("requests", 0) + stats.get("refused", 0)
    if online:
        return chat
    names = ("files_uploaded", "batches_created", "batch_polls", "results_read")
    return sum(stats.get(n, 0) for n in names) + chat - stats.get("batch_requests", 0)


def facts_aside(data: dict[str, Any]) -> dict[str, Any]:
    calls = {
        k: v for k, v in data["calls"].items() if k not in ("wall_s", "cost_usd", "cache_saved_usd")
    }
    return {**data, "calls": calls}


def online_vs_batch(
    args: argparse.Namespace, tmp: Path, server: BatchServer, env: dict[str, str]
) -> list[dict[str, Any]]:
    items = tmp / "items.jsonl"
    write_synthetic_items(items, args.items)
    rows, outputs = [], {}
    for name in ("online", "batch"):
        server.reset()
        if name == "online":
            server.configure(latency=args.latency)
            more = ["--concurrency", "16"]
        else:
            server.configure(latency=0.0)  # a batch's time is the provider's queue
            server.configure_batches(delay_polls=0, delay_s=args.delay_s)
            more = ["--batch-api", "--wait", "--batch-poll", "1"]
        argv = compare_argv(items, tmp / f"{name}.sqlite", server, "openai/gpt-4o-mini", *more)
        done, wall = run(argv, env)
        assert done.returncode == 0, done.stderr[-2000:]
        data = json.loads(done.stdout)
        outputs[name] = data
        stats = server.stats()
        rows.append({
            "run": f"compare {args.items} items, {name}",
            "calls": data["calls"]["made"],
            "http_requests": http_requests(stats, name == "online"),
            "wall_s": round(wall, 2),
            "cost_usd": data["calls"]["cost_usd"],
            "refused": stats.get("refused", 0) + stats.get("batch_refused", 0),
            "batches": stats.get("batches_created", 0),
        })  # fmt: skip
    same = facts_aside(outputs["online"]) == facts_aside(outputs["batch"])
    rows[1]["same_json_as_online"] = same
    rows[1]["cost_ratio"] = rows[1]["cost_usd"] / rows[0]["cost_usd"]
    return rows


def kill_and_resume(
    args: argparse.Namespace, tmp: Path, server: BatchServer, env: dict[str, str]
) -> dict[str, Any]:
    items = tmp / "items.jsonl"
    server.reset()
    server.configure(latency=0.0)
    server.configure_batches(delay_polls=10**9, delay_s=0.0)
    argv = compare_argv(items, tmp / "killed.sqlite", server, "openai/gpt-4o-mini",
                        "--batch-api", "--wait", "--batch-poll", "0.2")  # fmt: skip
    proc = subprocess.Popen(
        argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while server.stats().get("batch_polls", 0) < 3:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the batch run ended before it could be killed")
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    at_kill = dict(server.stats())
    server.configure_batches(delay_polls=0)
    done, wall = run(argv, env)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    stats = server.stats()
    return {
        "run": f"compare {args.items} items, batch killed while polling, then rerun",
        "batches_at_kill": at_kill.get("batches_created", 0),
        "batches": stats.get("batches_created", 0),
        "files_uploaded": stats.get("files_uploaded", 0),
        "lines_answered": stats.get("batch_requests", 0),
        "calls": data["calls"]["made"],
        "not_run": data["n_not_run"],
        "rerun_wall_s": round(wall, 2),
    }


def unknown_model(
    args: argparse.Namespace, tmp: Path, server: BatchServer, env: dict[str, str]
) -> list[dict[str, Any]]:
    items = tmp / "items.jsonl"
    rows = []
    for name, more in (
        ("online", ["--concurrency", "16"]),
        ("batch", ["--batch-api", "--wait", "--batch-poll", "0.2"]),
    ):
        server.reset()
        server.configure(latency=0.0)
        server.configure_batches(delay_polls=0, delay_s=0.0)
        argv = compare_argv(
            items, tmp / f"unknown-{name}.sqlite", server, "openai/acme-reasoner", *more
        )
        done, wall = run(argv, env)
        assert done.returncode in (0, 4), done.stderr[-2000:]
        data = json.loads(done.stdout)
        stats = server.stats()
        rows.append({
            "run": f"unknown reasoning model, {name}",
            "calls": data["calls"]["made"],
            "http_requests": http_requests(stats, name == "online"),
            "wall_s": round(wall, 2),
            "cost_usd": data["calls"]["cost_usd"],
            "refused": stats.get("refused", 0) + stats.get("batch_refused", 0),
            "batches": stats.get("batches_created", 0),
            "call_errors": data["n_call_errors"],
        })  # fmt: skip
    return rows


def money(value: float | None) -> str:
    return "-" if value is None else f"{value:.5f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1, help="online seconds per request")
    parser.add_argument("--delay-s", type=float, default=10.0, help="a batch's time in the queue")
    parser.add_argument("--quick", action="store_true", help="100 items, a 3 s batch delay")
    args = parser.parse_args(argv)
    if args.quick:
        args.items, args.delay_s = 100, 3.0
    app = OpenAIEmulator(Script(judge="longer"), reasoning_models=("acme-reasoner",))
    with (
        tempfile.TemporaryDirectory() as folder,
        BatchServer(batch=BatchScript(), app=app) as server,
    ):
        assert server.api_key is not None
        env = {**os.environ, "OPENAI_API_KEY": server.api_key, "PYTHONPATH": str(ROOT / "src")}
        env.pop("OPENAI_BASE_URL", None)
        tmp = Path(folder)
        rows = online_vs_batch(args, tmp, server, env)
        resume = kill_and_resume(args, tmp, server, env)
        unknown = unknown_model(args, tmp, server, env)
    shown = [[r["run"], r["calls"], r["http_requests"], r["wall_s"], money(r["cost_usd"]),
              r["refused"], r["batches"]] for r in (*rows, *unknown)]  # fmt: skip
    print(table(HEADERS, shown))
    same, ratio = rows[1]["same_json_as_online"], rows[1]["cost_ratio"]
    print(f"\nbatch --json equals online (wall time and money aside): {same}; "
          f"batch cost / online cost = {ratio:.3f}")  # fmt: skip
    print(f"kill while polling, then rerun: {resume['batches_at_kill']} batch at the kill, "
          f"{resume['batches']} in all, {resume['files_uploaded']} upload(s), "
          f"{resume['lines_answered']} lines answered for {resume['calls']} calls, "
          f"{resume['not_run']} not run")  # fmt: skip
    path = write_json("bench_providers", {
        "environment": environment(),
        "settings": {"items": args.items, "latency_s": args.latency, "batch_delay_s": args.delay_s,
                     "model": "openai/gpt-4o-mini", "judge": "longer (scripted)"},
        "online_vs_batch": rows,
        "kill_and_resume": resume,
        "unknown_model": unknown,
    })  # fmt: skip
    print(f"\nwrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
