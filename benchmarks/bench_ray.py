"""Judge calls on Ray (issue 23): the Ray executor against the asyncio executor.

Everything runs on this machine, inside a network namespace that has only loopback
(Ray binds the machine's external address otherwise): run as root, the script
re-execs itself under ``unshare -n`` with ``lo`` up when it is not in one already.
The driver is this process; it runs each batch through ``Executor.execute`` with a
fresh SQLite store on disk and a parser like ``LLMJudge``'s, so hashing, claims,
store writes, limits and parsing are inside every timing.

Four parts, one table each (one JSON file, ``benchmarks/results/bench_ray.json``):

- **HTTP judge.** The scripted OpenAI-compatible server (``tests/server``) as its own
  process, 1 s per call, judging by length. ``--calls`` distinct calls (default
  10,000) at ``--concurrency`` (default 256) in flight, with the ``default``
  template, the lean HTTP client, fairjudge's default retries. Three executors:
  ``asyncio`` (everything in this process), ``ray, 1 node`` (``ray.init`` with 2
  CPUs: one HTTP worker actor) and ``ray, 2 nodes`` (``ray.cluster_utils.Cluster``:
  a head and one more node, 1 CPU each: one HTTP worker actor per node). Columns:
  calls/s, % of the ideal (concurrency / latency), the rate against asyncio's, and
  CPU ms per call of the driver (``time.process_time()``, all its threads), of the
  Ray worker actors, of Ray's own processes (GCS, raylets, their helpers: every
  other process under this one) and of the server. Every CPU figure is read from
  ``/proc`` for this process tree only; other users of the machine are not in it.
- **Embedded judge.** The 40 calls of ``examples/demo_pairs.jsonl`` (20 items, both
  orders) by the embedded model, twice: a first batch (the model loads) and a
  second of 40 new calls (``sample=1``; the weights stay loaded). ``asyncio, 2
  threads``: one ``LocalBackend`` with 2 threads in this process; ``ray, 2 actors x
  1 thread``: the 2-node cluster, one long-lived actor per node with 1 thread each.
  The demo model (``local/qwen2.5-coder-1.5b``) when it is installed, else the
  ``local-test`` model, Gemma 3 270M, or the one ``--model`` names (the table says
  which).
- **Faults.** ``--fault-calls`` (default 2,000) calls on the 2-node cluster at the
  same server and concurrency; when a seeded number of them have settled, one
  worker actor's process is killed (SIGKILL). Reported: the calls in flight at the
  kill (requests the server had seen less calls settled), the calls sent again
  (``RunSummary.repeated``; must be at most those in flight), the calls lost (not
  stored ``ok``; must be 0), and whether every outcome equals a clean run's.
- **Cached rerun.** ``fairjudge compare`` of ``--cached-items`` items (2 calls each)
  fills a store; then the same command, fully cached, with and without
  ``--executor ray`` (best of ``--repeats``, each a process of its own): it must
  make 0 requests, import no Ray (checked in the process), and take the same time
  (wall, and the process's CPU, which a busy machine does not inflate).

The machine's load average is printed with the tables: on a shared machine, the
rates are as good as what the other processes left.

Run: ``python benchmarks/bench_ray.py`` (about 10 minutes on 2 cores);
``--quick`` for a smaller run (2,000 HTTP calls, 500 fault calls, 200 cached items);
``--parts cached`` (or ``http``, ``embedded``) for some of the tables only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import environment, table, write_json  # noqa: E402

from fairjudge._call import CallSpec, Completion  # noqa: E402
from fairjudge.backends import OpenAIBackend  # noqa: E402
from fairjudge.prompts import get_template, parse_verdict  # noqa: E402
from fairjudge.runner import AsyncioExecutor, Batch, RunOptions, RunResult, Store  # noqa: E402
from tests.server import DEFAULT_API_KEY, ServerProcess  # noqa: E402

MODEL = "bench-judge"
WORDS = ["the", "answer", "depends", "on", "careful", "reasoning", "about", "each", "step"]


# -- the namespace -----------------------------------------------------------------------


def loopback_only() -> bool:
    """Whether this network namespace has no interface but ``lo`` (asked of the kernel)."""
    return [name for _, name in socket.if_nameindex()] == ["lo"]


def into_loopback_namespace() -> None:
    """Re-exec this script in a fresh network namespace with only ``lo``, when needed."""
    if loopback_only():
        return
    if os.geteuid() != 0:
        sys.exit(
            "bench_ray.py must run where only loopback exists: run it as root (it then "
            "re-execs itself under `unshare -n`), or inside `unshare -n` yourself"
        )
    os.environ["RAY_DISABLE_USAGE_STATS"] = "1"
    script = 'ip link set lo up && exec "$0" "$@"'
    os.execvp("unshare", ["unshare", "-n", "sh", "-c", script, sys.executable, *sys.argv])


# -- inputs ------------------------------------------------------------------------------


def http_specs(backend: OpenAIBackend, n_calls: int) -> list[CallSpec]:
    """``n_calls`` distinct pairwise calls with the default template (both orders)."""
    template = get_template("default")
    params = backend.default_params(label_only=template.verdict_only)
    specs = []
    for i in range((n_calls + 1) // 2):
        one = " ".join(WORDS[: 3 + i % 11]) + f" (item {i}, system 1)"
        two = " ".join(WORDS[: 3 + (i * 7) % 13]) + f" (item {i}, system 2)"
        question = f"Question {i}: explain step {i % 97} of the proof in plain words."
        for a, b in ((one, two), (two, one)):
            specs.append(CallSpec(
                backend=backend.name, model=backend.model, base_url=backend.base_url,
                messages=template.render(question, a, b), template=template.name,
                template_version=template.version, params=params,
            ))  # fmt: skip
    return specs[:n_calls]


def parse(spec: CallSpec, completion: Completion) -> dict[str, Any]:
    """What ``LLMJudge`` stores for a reply: the verdict (or why there is none)."""
    verdict = parse_verdict(completion.text, "label")
    return {"verdict": getattr(verdict, "value", None)}


# -- CPU of this process tree ------------------------------------------------------------


def _stat(pid: int) -> tuple[int, float]:
    """``(parent pid, CPU seconds)`` of a process, from ``/proc/PID/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu() -> dict[int, float]:
    """CPU seconds of every live process below this one, by pid."""
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stats[int(entry.name)] = _stat(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
    below, frontier = {}, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, cpu) in stats.items():
            if ppid == parent and pid not in below:
                below[pid] = cpu
                frontier.append(pid)
    return below


# -- one batch ---------------------------------------------------------------------------


async def run_batch(
    executor: Any, specs: list[CallSpec], backend: Any, store: Store, concurrency: int,
    on_progress: Callable[[int], None] | None = None,
) -> RunResult:  # fmt: skip
    options = RunOptions(concurrency=concurrency, progress="quiet")
    batch = Batch([backend], specs, store, options, parse=parse, on_progress=on_progress)
    return await executor.execute(batch)


def measured(
    label: str, executor: Any, specs: list[CallSpec], backend: Any, folder: Path,
    concurrency: int, latency: float, server: ServerProcess,
) -> dict[str, Any]:  # fmt: skip
    """Run ``specs`` once on ``executor`` and time it: the HTTP table's row."""
    server.reset()
    workers = {w.pid for w in getattr(executor, "workers_report", lambda: ())()}
    before, cpu, wall = tree_cpu(), time.process_time(), time.perf_counter()
    with Store(folder / f"{label.replace(' ', '_').replace(',', '')}.sqlite") as store:
        result = asyncio.run(_closing(run_batch(executor, specs, backend, store, concurrency),
                                      backend))  # fmt: skip
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = tree_cpu()
    workers |= {w.pid for w in getattr(executor, "workers_report", lambda: ())()}
    spent = {pid: after[pid] - before.get(pid, 0.0) for pid in after}
    n = len(specs)
    s = result.summary
    assert (s.made, s.failed, s.not_run) == (n, 0, 0), s.summary()
    assert server.stats().get("requests", 0) == n
    on_workers = sum(v for pid, v in spent.items() if pid in workers)
    on_server = spent.get(server.pid, 0.0)
    on_ray = sum(spent.values()) - on_workers - on_server
    return {
        "executor": label, "calls": n, "wall_s": wall, "calls_per_s": n / wall,
        "ideal_pct": 100 * n / wall / (concurrency / latency),
        "driver_cpu_ms_per_call": 1000 * cpu / n, "workers_cpu_ms_per_call": 1000 * on_workers / n,
        "ray_system_cpu_ms_per_call": 1000 * on_ray / n,
        "server_cpu_ms_per_call": 1000 * on_server / n,
    }  # fmt: skip


async def _closing(work: Any, backend: Any) -> Any:
    try:
        return await work
    finally:
        await backend.aclose()  # the asyncio executor's connections (Ray's are remote)


# -- Ray ---------------------------------------------------------------------------------


def one_node() -> Any:
    import ray

    # "local": a new instance even where /tmp/ray names another cluster on this machine.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level="warning")  # fmt: skip
    return ray


def two_nodes() -> Any:
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False, logging_level="warning")
    cluster.wait_for_nodes()
    return cluster


def http_rows(args: argparse.Namespace, folder: Path) -> tuple[list[dict[str, Any]], Any]:
    """The HTTP table; returns the 2-node cluster, still up, for the parts after it."""
    from fairjudge.runner import RayExecutor

    rows = []
    with ServerProcess("--latency", str(args.latency), "--judge", "longer") as server:
        backend = OpenAIBackend(MODEL, base_url=server.base_url)
        specs = http_specs(backend, args.calls)
        common = (specs, backend, folder, args.concurrency, args.latency, server)
        say(f"HTTP: {len(specs)} calls at concurrency {args.concurrency}, asyncio ...")
        rows.append(measured("asyncio", AsyncioExecutor(), *common))
        say("HTTP: ray, 1 node ...")
        ray = one_node()
        with RayExecutor() as executor:
            asyncio.run(_closing(run_batch(executor, specs[:64], backend, Store(":memory:"), 64),
                                 backend))  # fmt: skip  # actors up before the timing
            rows.append(measured("ray, 1 node", executor, *common))
        ray.shutdown()
        say("HTTP: ray, 2 nodes ...")
        cluster = two_nodes()
        with RayExecutor() as executor:
            asyncio.run(_closing(run_batch(executor, specs[:64], backend, Store(":memory:"), 64),
                                 backend))  # fmt: skip
            rows.append(measured("ray, 2 nodes", executor, *common))
        faults = fault_row(args, server, backend, folder)
    base = rows[0]["calls_per_s"]
    for row in rows:
        row["vs_asyncio"] = row["calls_per_s"] / base
    return [*rows, faults], cluster


# -- faults ------------------------------------------------------------------------------


def fault_row(
    args: argparse.Namespace, server: ServerProcess, backend: OpenAIBackend, folder: Path
) -> dict[str, Any]:
    """2,000 calls on the 2-node cluster, one worker SIGKILLed at a seeded point."""
    from fairjudge.runner import RayExecutor

    specs = http_specs(backend, args.fault_calls)[::-1]  # not the calls timed above
    n = len(specs)
    kill_at = random.Random(args.seed).randint(n // 5, 4 * n // 5)
    say(f"faults: {n} calls, a worker killed after {kill_at} settled ...")
    with RayExecutor() as executor:
        with Store(folder / "clean.sqlite") as store:
            clean = asyncio.run(_closing(
                run_batch(executor, specs, backend, store, args.concurrency), backend))  # fmt: skip
        victim = executor.workers_report()[0]
        server.reset()
        seen = {"settled": 0, "in_flight": -1}

        def on_progress(k: int) -> None:
            seen["settled"] += k
            if seen["in_flight"] < 0 and seen["settled"] >= kill_at:
                os.kill(victim.pid, signal.SIGKILL)
                seen["in_flight"] = server.stats().get("requests", 0) - seen["settled"]

        with Store(folder / "killed.sqlite") as store:
            killed = run_batch(executor, specs, backend, store, args.concurrency, on_progress)
            result = asyncio.run(_closing(killed, backend))
            stored_ok = sum(1 for r in store.records() if r.status == "ok")
        alive = sum(w.alive for w in executor.workers_report())
    same = [_same(o) for o in result] == [_same(o) for o in clean]
    s = result.summary
    return {
        "executor": "ray, 2 nodes, 1 worker killed", "calls": n, "killed_after": kill_at,
        "in_flight_at_kill": seen["in_flight"], "repeated": s.repeated,
        "lost": n - stored_ok, "requests": server.stats().get("requests", 0),
        "equal_to_clean_run": same, "workers_alive_after": alive,
    }  # fmt: skip


def _same(outcome: Any) -> tuple[Any, ...]:
    c = outcome.completion
    return outcome.key, outcome.status, c.text if c else None, outcome.parsed


# -- the embedded judge ------------------------------------------------------------------


def embedded_rows(model: str | None) -> list[dict[str, Any]]:
    """40 demo calls twice (cold, then warm): asyncio with 2 threads, Ray with 2 x 1."""
    from fairjudge._errors import MissingExtraError
    from fairjudge.backends import LocalBackend
    from fairjudge.io import load_items
    from fairjudge.judges import LLMJudge, PairwiseRequest
    from fairjudge.runner import RayExecutor

    items = load_items(ROOT / "src" / "fairjudge" / "examples" / "demo_pairs.jsonl").items
    if model is None:
        model = "qwen2.5-coder-1.5b"
        try:
            LocalBackend.from_name(model, threads=1, quiet=True).close()
        except MissingExtraError:
            model = "gemma-3-270m"  # the local-test extra's model
    rows = []
    for label, threads, executor in (("asyncio, 2 threads", 2, None),
                                     ("ray, 2 actors x 1 thread", 1, RayExecutor())):  # fmt: skip
        say(f"embedded: {label} ({model}) ...")
        backend = LocalBackend.from_name(model, threads=threads, quiet=True)
        judge = LLMJudge(backend, store=":memory:", options=RunOptions(progress="quiet"),
                         executor=executor)  # fmt: skip
        rates = []
        for sample in (0, 1):
            requests = [PairwiseRequest(i.question, a, b, sample=sample)
                        for i in items for a, b in ((i.answer_1, i.answer_2),
                                                    (i.answer_2, i.answer_1))]  # fmt: skip
            wall = time.perf_counter()
            replies = judge.judge_batch(requests)
            rates.append(len(requests) / (time.perf_counter() - wall))
            assert judge.last_run is not None
            assert judge.last_run.made == len(requests)
        judge.close()
        if executor is None:
            loads, served = 1, [2 * len(replies)]
        else:
            report = executor.workers_report()
            loads, served = sum(w.loads for w in report), [w.calls for w in report]
            executor.close()
        rows.append({"executor": label, "model": model, "calls": 2 * len(replies),
                     "cold_calls_per_s": rates[0], "warm_calls_per_s": rates[1],
                     "model_loads": loads, "calls_per_worker": served})  # fmt: skip
    return rows


# -- the cached rerun --------------------------------------------------------------------

_PROBE = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('ray imported:', 'ray' in sys.modules, file=sys.stderr))\n"
    "from fairjudge.cli import main\nmain()\n"
)


def cached_rows(args: argparse.Namespace, folder: Path) -> list[dict[str, Any]]:
    """A fully cached ``compare``, with and without ``--executor ray``: best of repeats."""
    items = folder / "cached_items.jsonl"
    with items.open("w", encoding="utf-8") as f:
        for i in range(args.cached_items):
            f.write(json.dumps({"id": str(i), "question": f"q{i}?", "answer_1": "a" * (1 + i % 9),
                                "answer_2": "b" * (1 + i % 7)}) + "\n")  # fmt: skip
    rows = []
    with ServerProcess("--judge", "longer") as server:
        env = {**os.environ, "OPENAI_API_KEY": DEFAULT_API_KEY, "PYTHONPATH": str(ROOT / "src")}
        argv = [sys.executable, "-c", _PROBE, "compare", str(items), "--judge", "openai/bench",
                "--base-url", server.base_url, "--store", str(folder / "cached.sqlite"),
                "--json", "--quiet", "--concurrency", "64"]  # fmt: skip
        subprocess.run(argv, env=env, check=True, capture_output=True)
        server.reset()
        runs: dict[str, dict[str, Any]] = {
            label: {"extra": extra, "wall": [], "cpu": [], "ray": set()}
            for label, extra in (("asyncio", []), ("--executor ray", ["--executor", "ray"]))
        }
        for _ in range(args.repeats):  # taking turns: a load that comes and goes hits both
            for run in runs.values():
                wall, cpu = time.perf_counter(), _children_cpu()
                done = subprocess.run([*argv, *run["extra"]], env=env, capture_output=True,
                                      text=True)  # fmt: skip
                run["wall"].append(time.perf_counter() - wall)
                run["cpu"].append(_children_cpu() - cpu)
                assert done.returncode == 0, done.stderr
                assert json.loads(done.stdout)["calls"]["cached"] == 2 * args.cached_items
                run["ray"].add(done.stderr.strip().splitlines()[-1])
        for label, run in runs.items():
            rows.append({"executor": label, "calls": 2 * args.cached_items,
                         "ray": " / ".join(sorted(run["ray"])), "best_wall_s": min(run["wall"]),
                         "best_cpu_s": min(run["cpu"])})  # fmt: skip
        assert server.stats().get("requests", 0) == 0
    return rows


def _children_cpu() -> float:
    """User + system CPU seconds of this process's finished children (robust to load)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# -- main --------------------------------------------------------------------------------


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=10_000, help="HTTP calls per executor")
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--latency", type=float, default=1.0, help="server seconds per call")
    parser.add_argument("--fault-calls", type=int, default=2000)
    parser.add_argument("--cached-items", type=int, default=500, help="items (2 calls each)")
    parser.add_argument("--repeats", type=int, default=3, help="cached reruns per executor")
    parser.add_argument("--seed", type=int, default=23, help="where the worker is killed")
    parser.add_argument(
        "--model", help="the embedded judge (local/<name>) [default: the demo model when "
        "installed, else gemma-3-270m]",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="a smaller run (see the docstring)")
    parser.add_argument(
        "--parts", default="http,embedded,cached",
        help="which tables to run (http includes the faults)",
    )  # fmt: skip
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    if args.quick:
        args.calls, args.fault_calls, args.cached_items = 2000, 500, 200
    into_loopback_namespace()
    os.environ["RAY_DISABLE_USAGE_STATS"] = "1"
    os.environ["OPENAI_API_KEY"] = DEFAULT_API_KEY  # before Ray starts: its workers read it
    load = [os.getloadavg()]
    http: list[dict[str, Any]] = []
    embedded: list[dict[str, Any]] = []
    cluster = None
    with tempfile.TemporaryDirectory() as tmp:
        cached = cached_rows(args, Path(tmp)) if "cached" in parts else []
        try:
            if "http" in parts:
                http, cluster = http_rows(args, Path(tmp))
            if "embedded" in parts:
                cluster = cluster or two_nodes()
                embedded = embedded_rows(args.model)
        finally:
            if cluster is not None:
                import ray

                ray.shutdown()
                cluster.shutdown()
    load.append(os.getloadavg())
    report(args, http, embedded, cached, load)


def report(
    args: argparse.Namespace, http: list[dict[str, Any]], embedded: list[dict[str, Any]],
    cached: list[dict[str, Any]], load: list[tuple[float, float, float]],
) -> None:  # fmt: skip
    if http:
        http_tables(args, http)
    if embedded:
        print(f"\nEmbedded judge ({embedded[0]['model']}): 40 demo calls, then 40 more (warm)")
        print(table(
            ["executor", "calls/s (with load)", "calls/s (warm)", "model loads",
             "calls per worker"],
            [[r["executor"], f"{r['cold_calls_per_s']:.2f}", f"{r['warm_calls_per_s']:.2f}",
              r["model_loads"], r["calls_per_worker"]] for r in embedded],
        ))  # fmt: skip
    if cached:
        print(f"\nFully cached rerun of compare ({cached[0]['calls']} calls), best of "
              f"{args.repeats}")  # fmt: skip
        cells = [[r["executor"], f"{r['best_wall_s']:.2f}", f"{r['best_cpu_s']:.2f}", r["ray"]]
                 for r in cached]  # fmt: skip
        print(table(["executor", "wall s", "CPU s", "ray"], cells))
    print(f"\nload average (1, 5, 15 min): before {load[0]}, after {load[1]}; "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    path = write_json("bench_ray", {
        "environment": environment(), "args": vars(args), "load_average": load,
        "http": http[:-1], "faults": http[-1] if http else None, "embedded": embedded,
        "cached": cached,
    })  # fmt: skip
    print(f"wrote {path}")


def http_tables(args: argparse.Namespace, http: list[dict[str, Any]]) -> None:
    timed, faults = http[:-1], http[-1]
    print(f"\nHTTP judge: {args.calls} calls, concurrency {args.concurrency}, "
          f"{args.latency:g} s per call (ideal {args.concurrency / args.latency:.0f} calls/s); "
          "CPU ms per call")  # fmt: skip
    print(table(
        ["executor", "calls/s", "% ideal", "vs asyncio", "driver", "workers", "ray system",
         "server"],
        [[r["executor"], f"{r['calls_per_s']:.1f}", f"{r['ideal_pct']:.0f}%",
          f"{r['vs_asyncio']:.0%}", f"{r['driver_cpu_ms_per_call']:.2f}",
          f"{r['workers_cpu_ms_per_call']:.2f}", f"{r['ray_system_cpu_ms_per_call']:.2f}",
          f"{r['server_cpu_ms_per_call']:.2f}"] for r in timed],
    ))  # fmt: skip
    print(f"\nFaults: {faults['calls']} calls on 2 nodes, a worker SIGKILLed after "
          f"{faults['killed_after']} settled (seed {args.seed})")  # fmt: skip
    print(table(
        ["in flight at kill", "repeated", "lost", "server requests", "equal to clean run"],
        [[faults["in_flight_at_kill"], faults["repeated"], faults["lost"], faults["requests"],
          faults["equal_to_clean_run"]]], left=(),
    ))  # fmt: skip


if __name__ == "__main__":
    main()
