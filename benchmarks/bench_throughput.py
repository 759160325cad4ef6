"""Judge-call throughput: fairjudge's runner against a bare ``AsyncOpenAI`` client.

Setup: the scripted OpenAI-compatible server (``tests/server``) runs as its own process
with a fixed latency of 1 s per call (real judge calls take 0.5-5 s), judging by
length and returning top-20 logprobs. 2,000 items are rendered with the ``default``
template in both orders: 4,000 calls.

For each concurrency (16, 64, 256), in one run:

- ``bare``: the official ``AsyncOpenAI`` client (SDK retries off) behind an
  ``asyncio.Semaphore`` of that size, one task per call, ``chat.completions.create``
  with the same messages and parameters, in two configurations: the SDK as it comes
  (``bare AsyncOpenAI``: its own HTTP client, whose pool keeps up to 100 connections
  alive) and, above ``POOL_PER_CLIENT`` (64) in flight, the calls handed in turn to
  ``ceil(concurrency / 64)`` clients, each keeping its share of connections alive
  (``bare AsyncOpenAI, N clients``). The SDK's HTTP pool (httpcore) probes every
  idle connection (a ``poll`` each) whenever a request starts or ends, so its CPU per
  call grows with the number of idle connections, and at concurrency 256 on 2 cores
  the bare client is CPU-bound (several ms per call): several small pools cost it less
  CPU per call, most of all on a loaded machine, where more connections sit idle. One
  pool of ``concurrency`` kept alive, which this benchmark used to give it, is no
  faster than the SDK's default and costs more CPU per call (more idle connections to
  probe). ``vs best bare`` compares with the faster bare configuration of the same
  kind in the same run; being CPU-bound, the bare client's share of the ideal rate
  falls further than fairjudge's as the machine gets busier (see ``--rounds``).
- ``runner-sdk``: ``fairjudge.runner.run_calls`` with ``OpenAIBackend(transport="sdk")``
  (the SDK path), a fresh SQLite store on disk, and a parser like ``LLMJudge``'s
  (verdict + probabilities): hashing, store writes and parsing are all inside the timing.
- ``runner``: the same with the default transport (``"lean"`` for this server: the
  plain asyncio HTTP/1.1 client), on its own fresh store.
- ``cached``: the lean ``run_calls`` again on its store; must make 0 requests.
- ``backend`` (``--clients`` only): ``OpenAIBackend.complete`` (lean) behind a
  semaphore, no runner, to split the runner's cost from the backend's.

Whole commands (``commands``), for ``--command-items`` items (2 calls each) at each
concurrency, each a process of its own, timed from spawn to exit (wall) with the CPU
of that process (user + system, all threads): what a user waits for at the terminal,
start-up, imports, input and report included.

- ``bare AsyncOpenAI (process)``: a small program that imports the SDK and sends the
  same calls (same messages and parameters) as above, in the same configurations.
- ``fairjudge compare (process)``: ``fairjudge compare ITEMS --judge openai/...
  --json -q --concurrency C`` on a fresh store.
- ``fairjudge compare, cached rerun (process)``: the same command again; must make
  0 requests.

And start-up, best of 5: ``fairjudge --help``, ``fairjudge compare --help`` and, for
the bare client, ``python -c "import openai"``.

Fully cached reruns (``--cached-items``, default 500 and 5,000 items: 1,000 and 10,000
calls): one uncached ``compare`` fills a store, then the same command reruns
``--repeats`` times; each rerun must make 0 requests and print the uncached run's
``--json`` byte for byte (its ``calls`` block aside). With ``--baseline-src`` (the
``src`` folder of an earlier fairjudge, e.g. from ``git worktree add``), start-up and
the cached reruns are timed for that tree too, the two taking turns: a before/after
table from one run on one machine.

Before anything is timed, the bare client and both runner transports make a few
calls each (untimed, on a throwaway store), so the client measured first does not pay
for what the SDK, the lean client and the store build on first use.

Reported: calls/s against the ideal (concurrency / latency), the share of the best bare
client's rate, client CPU per call (``time.process_time()`` of this process, all
threads), the server's CPU per call, and the kernel's listen-queue overflow counter
(``TcpExtListenOverflows``), which must not move: if it does, the server was the
bottleneck and the numbers are void.

Run: ``python benchmarks/bench_throughput.py`` (about 15 minutes);
``--items 200 --concurrency 64`` for a quick run, ``--clients commands`` for the whole
commands alone. ``--rounds N`` runs every client N times at each concurrency, taking
turns (fresh stores each time), and shows each one's median run with the range: on a
shared machine one run of each is not enough to compare them.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import openai  # noqa: E402
from _common import environment, table, write_json  # noqa: E402
from _process import (  # noqa: E402
    BARE_PROGRAM,
    FAIRJUDGE,
    Finished,
    best_of,
    command_env,
    run_process,
    write_calls,
    write_items,
)

from fairjudge._call import CallSpec, Completion  # noqa: E402
from fairjudge.backends._http_errors import pooled_http_client  # noqa: E402
from fairjudge.backends._openai import OpenAIBackend, Transport  # noqa: E402
from fairjudge.prompts import get_template, parse_verdict, probabilities_from_logprobs  # noqa: E402
from tests.server import DEFAULT_API_KEY, ServerProcess  # noqa: E402

MODEL = "bench-judge"
POOL_PER_CLIENT = 64
"""Connections per bare client in its spread configuration (see the module docstring)."""
WORDS = ["the", "answer", "depends", "on", "careful", "reasoning", "about", "each", "step"]


# -- inputs ----------------------------------------------------------------------------


def build_items(n_items: int) -> list[tuple[str, str, str]]:
    """``n_items`` synthetic items: (question, answer 1, answer 2)."""
    return [
        (
            f"Question {i}: explain step {i % 97} of the proof in plain words.",
            " ".join(WORDS[: 3 + i % 11]) + f" (item {i}, system 1)",
            " ".join(WORDS[: 3 + (i * 7) % 13]) + f" (item {i}, system 2)",
        )
        for i in range(n_items)
    ]


def build_specs(backend: OpenAIBackend, n_items: int) -> list[CallSpec]:
    """Both orders of ``n_items`` synthetic items, rendered with the default template."""
    template = get_template("default")
    params = backend.default_params(label_only=template.verdict_only)
    specs = []
    for question, one, two in build_items(n_items):
        for a, b in ((one, two), (two, one)):
            specs.append(
                CallSpec(
                    backend=backend.name,
                    model=backend.model,
                    base_url=backend.base_url,
                    messages=template.render(question, a, b),
                    template=template.name,
                    template_version=template.version,
                    params=params,
                )
            )
    return specs


def parse(spec: CallSpec, completion: Completion) -> dict[str, Any]:
    """What ``LLMJudge`` stores for a reply: the verdict and its probabilities."""
    verdict = parse_verdict(completion.text, "label")
    if not hasattr(verdict, "value"):
        return {"verdict": None, "failure": "parse_failure"}
    probs = probabilities_from_logprobs(completion.top_logprobs or {})
    return {"verdict": verdict.value, "probabilities": probs.to_dict() if probs else None}


# -- measurement -----------------------------------------------------------------------


def listen_overflows() -> int:
    """``TcpExtListenOverflows``: SYNs dropped because an accept queue was full."""
    lines = Path("/proc/net/netstat").read_text().splitlines()
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            table_ = dict(zip(names.split()[1:], values.split()[1:], strict=True))
            return int(table_["ListenOverflows"])
    return -1


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) of another process, from ``/proc/PID/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(
    label: str,
    concurrency: int,
    n_calls: int,
    server: ServerProcess,
    latency: float,
    work: Callable[[], Awaitable[None]],
) -> dict[str, Any]:
    server.reset()
    overflows, server_cpu = listen_overflows(), process_cpu(server.pid)
    cpu, wall = time.process_time(), time.perf_counter()
    await work()
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    stats = server.stats()
    ideal = concurrency / latency
    return {
        "client": label,
        "concurrency": concurrency,
        "calls": n_calls,
        "requests": stats.get("requests", 0),
        "connections": stats.get("connections", 0),
        "max_in_flight": stats.get("max_in_flight", 0),
        "wall_s": wall,
        "calls_per_s": n_calls / wall,
        "ideal_calls_per_s": ideal,
        "pct_ideal": 100 * n_calls / wall / ideal,
        "cpu_ms_per_call": 1000 * cpu / n_calls,
        "server_cpu_ms_per_call": 1000 * (process_cpu(server.pid) - server_cpu) / n_calls,
        "listen_overflows": listen_overflows() - overflows,
    }


# -- the clients -----------------------------------------------------------------------


def bare_configs(concurrency: int) -> list[int]:
    """The bare client's configurations at ``concurrency``, as numbers of clients.

    One (the SDK as it comes) always; ``ceil(concurrency / POOL_PER_CLIENT)`` too where
    that is more than one, since the SDK's pool costs more CPU per call the larger it is.
    """
    spread = math.ceil(concurrency / POOL_PER_CLIENT)
    return [1, spread] if spread > 1 else [1]


def bare_label(n_clients: int) -> str:
    return "bare AsyncOpenAI" + (f", {n_clients} clients" if n_clients > 1 else "")


async def bare_client(
    specs: Sequence[CallSpec], base_url: str, concurrency: int, n_clients: int = 1
) -> None:
    """The baseline: the official SDK, a semaphore, one task per call.

    One client is the SDK as it comes, with its own HTTP client and pool. Several take
    the calls in turn, each with a pool of its share of ``concurrency`` kept alive.
    """

    def make(http_client: Any = None) -> openai.AsyncOpenAI:
        extra = {} if http_client is None else {"http_client": http_client}
        return openai.AsyncOpenAI(
            base_url=base_url, api_key=DEFAULT_API_KEY, max_retries=0, timeout=60.0, **extra
        )

    size = math.ceil(concurrency / n_clients)
    clients = (
        [make()]
        if n_clients == 1
        else [make(pooled_http_client(openai, size, 60.0)) for _ in range(n_clients)]
    )
    turn = itertools.cycle(clients)
    semaphore = asyncio.Semaphore(concurrency)

    async def one(spec: CallSpec) -> str | None:
        async with semaphore:
            reply = await next(turn).chat.completions.create(
                model=spec.model,
                messages=[{"role": r, "content": c} for r, c in spec.messages],
                **spec.params,
            )
            return reply.choices[0].message.content

    try:
        texts = await asyncio.gather(*(one(s) for s in specs))
    finally:
        for client in clients:
            await client.close()
    assert all(texts), "the bare client got an empty reply"


async def warm_up(specs: Sequence[CallSpec], base_url: str, tmp: Path) -> None:
    """A few untimed calls through every client, so that none is timed paying for first use."""
    await bare_client(specs[:4], base_url, 2, n_clients=2)
    for transport in ("sdk", "lean"):
        backend = OpenAIBackend(MODEL, base_url=base_url, transport=transport)
        await runner(backend, specs[:4], tmp / f"warm-up-{transport}.sqlite", 2)
        await backend.aclose()


async def backend_only(backend: OpenAIBackend, specs: Sequence[CallSpec], concurrency: int) -> None:
    semaphore = asyncio.Semaphore(concurrency)

    async def one(spec: CallSpec) -> Completion:
        async with semaphore:
            return await backend.complete(spec)

    await asyncio.gather(*(one(s) for s in specs))


async def runner(
    backend: OpenAIBackend, specs: Sequence[CallSpec], store_path: Path, concurrency: int
) -> dict[str, Any]:
    """fairjudge's engine, as ``LLMJudge`` drives it: store, hashing, retries, parsing."""
    from fairjudge.runner import RunOptions, Store, run_calls

    with Store(store_path) as store:
        result = await run_calls(
            backend,
            specs,
            store=store,
            options=RunOptions(concurrency=concurrency, progress="quiet"),
            parse=parse,
        )
    summary = result.summary
    return {"made": summary.made, "cached": summary.cached, "failed": summary.failed}


# -- whole commands --------------------------------------------------------------------


def process_row(
    label: str,
    concurrency: int,
    n_calls: int,
    server: ServerProcess,
    latency: float,
    args: list[str],
    env: dict[str, str],
) -> dict[str, Any]:
    """Run one command as a process against the server; its row."""
    server.reset()
    overflows, server_cpu = listen_overflows(), process_cpu(server.pid)
    done: Finished = run_process(args, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{label} failed ({done.returncode}): {done.stderr[-2000:]}")
    stats = server.stats()
    ideal = concurrency / latency
    return {
        "client": label,
        "kind": "process",
        "concurrency": concurrency,
        "calls": n_calls,
        "requests": stats.get("requests", 0),
        "connections": stats.get("connections", 0),
        "wall_s": done.wall_s,
        "cpu_s": done.cpu_s,
        "calls_per_s": n_calls / done.wall_s,
        "ideal_calls_per_s": ideal,
        "pct_ideal": 100 * n_calls / done.wall_s / ideal,
        "cpu_ms_per_call": 1000 * done.cpu_s / n_calls,
        "server_cpu_ms_per_call": 1000 * (process_cpu(server.pid) - server_cpu) / n_calls,
        "listen_overflows": listen_overflows() - overflows,
    }


def command_rows(
    args: argparse.Namespace,
    server: ServerProcess,
    tmp: Path,
    concurrency: int,
    trees: dict[str, dict[str, str]],
    turn: int = 0,
) -> list[dict[str, Any]]:
    """The bare client, ``fairjudge compare`` and its cached rerun, each as a process.

    With a baseline tree in ``trees``, its ``compare`` runs too, on a store of its own.
    """
    env = trees[""]
    items = build_items(args.command_items)
    items_file = write_items(tmp / f"items-{concurrency}.jsonl", items)
    probe = OpenAIBackend(MODEL, base_url=server.base_url)
    specs = build_specs(probe, args.command_items)
    calls = [
        {"model": s.model, "messages": [{"role": r, "content": c} for r, c in s.messages],
         "params": dict(s.params)}
        for s in specs
    ]  # fmt: skip
    calls_file = write_calls(tmp / f"calls-{concurrency}.json", calls)
    n = len(specs)
    bare = [sys.executable, "-c", BARE_PROGRAM, str(calls_file), server.base_url, str(concurrency)]

    def compare_on(store: str) -> list[str]:
        return [
            *FAIRJUDGE, "compare", str(items_file), "--judge", f"openai/{MODEL}",
            "--base-url", server.base_url, "--store", str(tmp / store),
            "--json", "-q", "--concurrency", str(concurrency),
        ]  # fmt: skip

    compare = compare_on(f"cmd-store-{concurrency}-{turn}.sqlite")
    runs = {
        **{f"{bare_label(k)} (process)": [*bare, str(k)] for k in bare_configs(concurrency)},
        "fairjudge compare (process)": compare,
        "fairjudge compare, cached rerun (process)": compare,  # the same command again
    }
    rows = [
        process_row(label, concurrency, n, server, args.latency, command, env)
        for label, command in runs.items()
    ]
    assert rows[-1]["requests"] == 0, "the cached rerun made requests"
    for suffix, other in trees.items():
        if suffix:  # the baseline, on a fresh store of its own
            command = compare_on(f"cmd-store-{concurrency}-{turn}-{suffix.strip(' []')}.sqlite")
            label = f"fairjudge compare (process){suffix}"
            rows.append(process_row(label, concurrency, n, server, args.latency, command, other))
    return rows


def startup_rows(trees: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """Start-up, best of 5: fairjudge's help beside the bare client's own import.

    ``trees`` maps a label suffix ("" for this checkout) to its command environment.
    """
    runs = {
        "fairjudge --help": [*FAIRJUDGE, "--help"],
        "fairjudge compare --help": [*FAIRJUDGE, "compare", "--help"],
    }
    rows = []
    for label, command in runs.items():
        for suffix, env in trees.items():
            best = best_of(5, command, env)
            rows.append(
                {"client": label + suffix, "kind": "startup", "wall_s": best.wall_s,
                 "cpu_s": best.cpu_s}
            )  # fmt: skip
    bare = best_of(5, [sys.executable, "-c", "import openai"], trees[""])
    rows.append(
        {"client": "bare: python -c 'import openai'", "kind": "startup", "wall_s": bare.wall_s,
         "cpu_s": bare.cpu_s}
    )  # fmt: skip
    return rows


def _result_json(done: Finished) -> str:
    """A compare run's ``--json`` without its ``calls`` block (which describes the run)."""
    doc = json.loads(done.stdout)
    doc.pop("calls")
    return json.dumps(doc, indent=2)


def cached_rows(
    sizes: Sequence[int],
    server: ServerProcess,
    tmp: Path,
    trees: dict[str, dict[str, str]],
    repeats: int,
) -> list[dict[str, Any]]:
    """Fully cached ``compare`` reruns as whole commands: median and best of ``repeats``.

    For each size, one uncached run (this checkout) fills a store; then each tree
    reruns the same command ``repeats`` times, the trees taking turns so that a busy
    moment of the shared machine falls on both. Every rerun must make 0 requests and
    print the uncached run's result byte for byte (the ``calls`` block aside).
    """
    rows = []
    for size in sizes:
        items_file = write_items(tmp / f"cached-items-{size}.jsonl", build_items(size))
        command = [
            *FAIRJUDGE, "compare", str(items_file), "--judge", f"openai/{MODEL}",
            "--base-url", server.base_url, "--store", str(tmp / f"cached-{size}.sqlite"),
            "--json", "-q", "--concurrency", "256",
        ]  # fmt: skip
        print(f"  cached reruns: {2 * size} calls ...", file=sys.stderr, flush=True)
        fresh = run_process(command, trees[""])
        if fresh.returncode != 0:
            raise RuntimeError(f"compare failed: {fresh.stderr[-2000:]}")
        expected = _result_json(fresh)
        runs: dict[str, list[Finished]] = {suffix: [] for suffix in trees}
        for _ in range(repeats):
            for suffix, env in trees.items():
                server.reset()
                done = run_process(command, env)
                if done.returncode != 0:
                    raise RuntimeError(f"cached compare failed: {done.stderr[-2000:]}")
                assert server.stats().get("requests", 0) == 0, "a cached rerun made requests"
                assert json.loads(done.stdout)["calls"]["made"] == 0
                if _result_json(done) != expected:
                    raise RuntimeError(f"cached rerun{suffix} printed another result")
                runs[suffix].append(done)
        for suffix, done_runs in runs.items():
            walls = sorted(r.wall_s for r in done_runs)
            cpus = sorted(r.cpu_s for r in done_runs)
            rows.append(
                {
                    "client": f"fairjudge compare, cached rerun{suffix}",
                    "kind": "cached",
                    "calls": 2 * size,
                    "repeats": repeats,
                    "wall_s": walls[len(walls) // 2],
                    "best_wall_s": walls[0],
                    "cpu_s": cpus[len(cpus) // 2],
                    "uncached_wall_s": fresh.wall_s,
                    "identical_to_uncached": True,
                }
            )
    return rows


# -- main ------------------------------------------------------------------------------


async def rows_at(
    args: argparse.Namespace,
    clients: set[str],
    server: ServerProcess,
    specs: Sequence[CallSpec],
    tmp: Path,
    c: int,
    turn: int,
    trees: dict[str, dict[str, str]],
) -> list[dict[str, Any]]:
    """One turn of every client at concurrency ``c``, each on fresh stores of its own."""
    n = len(specs)
    rows: list[dict[str, Any]] = []
    for k in bare_configs(c) if "bare" in clients else []:
        rows.append(
            await measure(
                bare_label(k),
                c,
                n,
                server,
                args.latency,
                lambda k=k: bare_client(specs, server.base_url, c, k),
            )
        )
    if "backend" in clients:
        backend = OpenAIBackend(MODEL, base_url=server.base_url, max_connections=c)
        row = await measure(
            "OpenAIBackend only",
            c,
            n,
            server,
            args.latency,
            lambda b=backend: backend_only(b, specs, c),
        )
        await backend.aclose()
        rows.append(row)
    runs: list[tuple[str, Transport, str]] = []
    if "runner-sdk" in clients:
        runs.append(("fairjudge runner (sdk)", "sdk", "sdk"))
    if "runner" in clients:
        runs += [
            ("fairjudge runner (lean)", "lean", "lean"),
            ("fairjudge cached rerun", "lean", "lean"),
        ]
    for label, transport, store_name in runs:
        store_path = tmp / f"store-{store_name}-{c}-{turn}.sqlite"
        backend = OpenAIBackend(
            MODEL, base_url=server.base_url, max_connections=c, transport=transport
        )
        outcome: dict[str, Any] = {}

        async def work(
            b: OpenAIBackend = backend,
            path: Path = store_path,
            out: dict[str, Any] = outcome,
        ) -> None:
            out.update(await runner(b, specs, path, c))

        row = await measure(label, c, n, server, args.latency, work)
        await backend.aclose()
        rows.append(row | outcome)
    if "commands" in clients:
        print(f"  whole commands, {2 * args.command_items} calls ...", file=sys.stderr)
        rows += command_rows(args, server, tmp, c, trees, turn)
    return rows


def median_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per client: its run with the median rate (the lower one of an even
    count), with every run's rate and CPU beside it (``runs_calls_per_s``, ...)."""
    by_client: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        by_client.setdefault(run["client"], []).append(run)
    rows = []
    for same in by_client.values():
        ordered = sorted(same, key=lambda r: r["calls_per_s"])
        row = dict(ordered[(len(ordered) - 1) // 2])
        row["runs_calls_per_s"] = [r["calls_per_s"] for r in same]
        row["runs_cpu_ms_per_call"] = [r["cpu_ms_per_call"] for r in same]
        rows.append(row)
    return rows


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    os.environ["OPENAI_API_KEY"] = DEFAULT_API_KEY
    clients = set(args.clients.split(","))
    rows: list[dict[str, Any]] = []
    server_args = ["--latency", str(args.latency), "--judge", "longer"]
    env = command_env(ROOT, DEFAULT_API_KEY) if "commands" in clients else {}
    trees = {"": env}
    if env and args.baseline_src is not None:
        trees[" [baseline]"] = command_env(ROOT, DEFAULT_API_KEY, args.baseline_src)
    if env:
        rows += startup_rows(trees)
    with ServerProcess(*server_args) as server, tempfile.TemporaryDirectory() as tmp:
        probe = OpenAIBackend(MODEL, base_url=server.base_url)
        specs = build_specs(probe, args.items)
        await probe.aclose()
        n = len(specs)
        await warm_up(specs, server.base_url, Path(tmp))
        for c in args.concurrency:
            print(f"concurrency {c}: {n} calls per client ...", file=sys.stderr, flush=True)
            runs_at_c: list[dict[str, Any]] = []
            for turn in range(max(1, args.rounds)):
                runs_at_c += await rows_at(args, clients, server, specs, Path(tmp), c, turn, trees)
            rows += median_rows(runs_at_c)
            for row in rows:
                if row.get("concurrency") == c:
                    print(f"  {row['client']}: {row['calls_per_s']:.1f} calls/s", file=sys.stderr)
        if "commands" in clients and args.cached_items:
            rows += cached_rows(args.cached_items, server, Path(tmp), trees, args.repeats)
    return {"rows": rows}


def compare(rows: list[dict[str, Any]]) -> None:
    """Add the ratios the targets are stated in (process rows against process rows).

    The bare client's figure is its best configuration's: the fastest bare row of the
    same kind at the same concurrency (``bare_reference`` names it). The ratio to the
    SDK as it comes (one client) is kept beside it, as ``throughput_vs_bare_defaults``.
    """
    by = {(r["client"], r.get("concurrency")): r for r in rows}
    best: dict[tuple[bool, int], dict[str, Any]] = {}
    for r in rows:
        if r["client"].startswith("bare AsyncOpenAI"):
            key = (r.get("kind") == "process", r["concurrency"])
            if key not in best or r["calls_per_s"] > best[key]["calls_per_s"]:
                best[key] = r
    for r in rows:
        if r.get("kind") in ("startup", "cached"):
            continue
        process = r.get("kind") == "process"
        c = r["concurrency"]
        bare = best.get((process, c))
        defaults = by.get(("bare AsyncOpenAI (process)" if process else "bare AsyncOpenAI", c))
        uncached = by.get(
            ("fairjudge compare (process)" if process else "fairjudge runner (lean)", c)
        )
        if bare and r is not bare:
            r["bare_reference"] = bare["client"]
            r["throughput_vs_bare"] = r["calls_per_s"] / bare["calls_per_s"]
            r["cpu_vs_bare"] = r["cpu_ms_per_call"] / bare["cpu_ms_per_call"]
        if defaults and r is not defaults:
            r["throughput_vs_bare_defaults"] = r["calls_per_s"] / defaults["calls_per_s"]
        if uncached and "cached rerun" in r["client"]:
            r["speedup_vs_uncached"] = uncached["wall_s"] / r["wall_s"]


def _load(avg: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in avg)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000, help="items (2 calls each)")
    parser.add_argument(
        "--concurrency",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[16, 64, 256],
        help="comma-separated, e.g. 16,64,256",
    )
    parser.add_argument("--latency", type=float, default=1.0, help="server seconds per call")
    parser.add_argument(
        "--clients",
        default="bare,runner-sdk,runner,commands",
        help="any of bare,runner-sdk,runner,backend,commands (comma-separated)",
    )
    parser.add_argument(
        "--command-items",
        type=int,
        default=500,
        help="items (2 calls each) for the whole-command rows",
    )
    parser.add_argument(
        "--cached-items",
        type=lambda s: [int(x) for x in s.split(",") if x],
        default=[500, 5000],
        help="items (2 calls each) for the cached-rerun table, comma-separated; '' for none",
    )
    parser.add_argument("--repeats", type=int, default=3, help="cached reruns per tree")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="turns of every client at each concurrency, taking turns; the median is shown",
    )
    parser.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        help="the src folder of an earlier fairjudge (e.g. from `git worktree add`): "
        "start-up and cached reruns are timed for it too, in the same run",
    )
    args = parser.parse_args(argv)

    load_before = os.getloadavg()
    result = asyncio.run(bench(args))
    rows = result["rows"]
    compare(rows)

    def spread(row: dict[str, Any]) -> str:
        """`` (lowest-highest)`` % of ideal over the rounds, when there were several."""
        rates = row.get("runs_calls_per_s", [])
        if len(rates) < 2:
            return ""
        ideal = row["ideal_calls_per_s"]
        return f" ({100 * min(rates) / ideal:.0f}-{100 * max(rates) / ideal:.0f})"

    def pct(row: dict[str, Any], key: str, scale: float = 100) -> str:
        return f"{scale * row[key]:.0f}%" if key in row else "-"

    headers = [
        "client",
        "conc",
        "calls/s",
        "% ideal" + (f" (range of {args.rounds})" if args.rounds > 1 else ""),
        "vs best bare",
        "vs bare defaults",
        "CPU ms/call",
        "CPU vs best bare",
        "server ms/call",
        "wall s",
        "requests",
        "overflows",
    ]
    body = [
        [
            r["client"],
            r["concurrency"],
            f"{r['calls_per_s']:.1f}",
            f"{r['pct_ideal']:.0f}%" + spread(r),
            pct(r, "throughput_vs_bare"),
            pct(r, "throughput_vs_bare_defaults"),
            f"{r['cpu_ms_per_call']:.2f}",
            f"{r['cpu_vs_bare']:.2f}x" if "cpu_vs_bare" in r else "-",
            f"{r['server_cpu_ms_per_call']:.2f}",
            f"{r['wall_s']:.{2 if r.get('kind') == 'process' else 1}f}"
            + (f" ({r['speedup_vs_uncached']:.0f}x faster)" if "speedup_vs_uncached" in r else ""),
            r["requests"],
            r["listen_overflows"],
        ]
        for r in rows
        if r.get("kind") not in ("startup", "cached")
    ]
    print(table(headers, body))
    print(
        "vs best bare: against the faster bare configuration of the same kind (in-process or"
        " process) at that concurrency;\nvs bare defaults: against one AsyncOpenAI client as"
        f" it comes. Load average before/after: {_load(load_before)} / {_load(os.getloadavg())}."
    )
    cached = [
        [r["client"], r["calls"], f"{r['wall_s']:.2f}", f"{r['best_wall_s']:.2f}",
         f"{r['cpu_s']:.2f}", f"{r['uncached_wall_s']:.2f}", "yes"]
        for r in rows
        if r.get("kind") == "cached"
    ]  # fmt: skip
    if cached:
        print(f"\nfully cached reruns as whole commands, {args.repeats} each, trees taking turns")
        headers = ["command", "calls", "median wall s", "best wall s", "median CPU s",
                   "uncached wall s", "same --json"]  # fmt: skip
        print(table(headers, cached))
    startup = [
        [r["client"], f"{r['wall_s']:.3f}", f"{r['cpu_s']:.3f}"]
        for r in rows
        if r.get("kind") == "startup"
    ]
    if startup:
        print("\nstart-up, best of 5, spawn to exit")
        print(table(["command", "wall s", "CPU s"], startup))
    path = write_json(
        "bench_throughput",
        {
            "benchmark": "bench_throughput",
            "items": args.items,
            "calls_per_client": 2 * args.items,
            "latency_s": args.latency,
            "concurrency": args.concurrency,
            "openai_sdk": openai.__version__,
            "loadavg_before": load_before,
            "loadavg_after": os.getloadavg(),
            "environment": environment(),
            "rows": rows,
        },
    )
    print(f"\nwrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
