"""The Ray executor against the scripted judge on a two-node loopback cluster.

It must give what the asyncio executor gives (outcomes, store rows), keep the key off
the cluster, carry a backend's errors back with their fields, hold ``rpm`` and
``max_calls`` for the whole cluster, and survive a worker killed mid-run. Run it as
``tests/runner/_ray_cluster.py`` says (a loopback-only network namespace).
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from fairjudge import (
    AuthenticationError,
    ConfigError,
    FatalBackendError,
    MissingExtraError,
    RateLimitError,
)
from fairjudge._call import CallSpec, Completion
from fairjudge.backends import OpenAIBackend
from fairjudge.runner import (
    AsyncioExecutor,
    Batch,
    RayExecutor,
    RetryPolicy,
    RunOptions,
    RunResult,
    Store,
)
from fairjudge.runner import _run as engine
from fairjudge.runner._progress import Snapshot
from tests.runner._ray_cluster import (
    KEY,
    KEY_ENV,
    http_backend,
    session_dir,
    specs_for,
    two_node_cluster,
)
from tests.server import JudgeServer, Script

ROOT = Path(__file__).resolve().parents[2]
FAST = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    yield from two_node_cluster()


@pytest.fixture
def server(cluster: Any) -> Iterator[JudgeServer]:
    with JudgeServer(Script(judge="longer", api_key=KEY)) as judge:
        yield judge


@pytest.fixture(scope="module")
def executor(cluster: Any) -> Iterator[RayExecutor]:
    """One executor for the module's tests: its workers start once (seconds each)."""
    with RayExecutor() as ray_executor:  # this process is connected: the cluster is used
        yield ray_executor


def served(executor: RayExecutor, before: Mapping[int, int] | None = None) -> dict[int, int]:
    """Attempts each worker (by pid) answered, less those it had answered ``before``."""
    before = before or {}
    return {w.pid: w.calls - before.get(w.pid, 0) for w in executor.workers_report()}


def parse(spec: CallSpec, completion: Completion) -> Mapping[str, Any]:
    return {"label": completion.text.strip(), "chars": len(spec.messages[-1][1])}


def execute(
    executor: Any, specs: list[CallSpec], store: Store, backend: Any, **options: Any
) -> RunResult:
    options.setdefault("progress", "quiet")
    options.setdefault("retry", FAST)
    batch = Batch([backend], specs, store, RunOptions(**options), parse=parse)

    async def run() -> RunResult:
        try:
            result: RunResult = await executor.execute(batch)
        finally:
            await backend.aclose()  # the asyncio executor's connections (Ray's are remote)
        return result

    return asyncio.run(run())


def rows(store: Store) -> dict[str, dict[str, Any]]:
    """Every stored row, without what differs between two runs of the same calls."""
    return {
        r.key: r.model_dump(exclude={"latency_s", "created_at", "updated_at"})
        for r in store.records()
    }


def same(outcome: Any) -> tuple[Any, ...]:
    c = outcome.completion
    reply = (c.text, dict(c.top_logprobs or {}), c.input_tokens, c.output_tokens) if c else None
    error = (outcome.error.kind, outcome.error.message) if outcome.error else None
    return outcome.status, reply, error, outcome.cached, outcome.parsed


def test_ray_gives_the_asyncio_results_and_rows(
    server: JudgeServer, executor: RayExecutor, tmp_path: Path
) -> None:
    backend = http_backend(server.base_url)
    specs = specs_for(backend, 60)
    specs += specs[:10]  # duplicates: made once, as on asyncio
    before = served(executor)
    with Store(tmp_path / "asyncio.sqlite") as one, Store(tmp_path / "ray.sqlite") as many:
        expected = execute(AsyncioExecutor(), specs, one, backend, concurrency=8)
        asyncio_requests = server.count("requests")
        got = execute(executor, specs, many, backend, concurrency=8)
        assert server.count("requests") == 2 * asyncio_requests == 120
        assert got.keys == expected.keys
        assert [same(o) for o in got] == [same(o) for o in expected]
        assert {o.completion.text for o in got if o.completion} == {"A", "B", "tie"}
        assert rows(many) == rows(one)
        s, e = got.summary, expected.summary
        assert (s.total, s.made, s.cached, s.failed, s.requests, s.repeated) == (
            e.total,
            e.made,
            e.cached,
            e.failed,
            e.requests,
            0,
        )
        assert "repeated" not in s.to_dict()  # nothing lost: the JSON is asyncio's
    workers = executor.workers_report()
    assert len({w.node for w in workers}) == len(workers) == 2  # one per node
    assert sum(served(executor, before).values()) == 60
    assert all(n > 0 for n in served(executor, before).values())


def test_a_backend_error_comes_back_with_its_type_and_fields(
    server: JudgeServer, executor: RayExecutor, tmp_path: Path
) -> None:
    backend = http_backend(server.base_url)
    specs = specs_for(backend, 3)
    server.configure(Script(judge="longer", api_key=KEY, fault_sequence=["rate_limit"] * 2,
                            retry_after="0.01"))  # fmt: skip
    with Store(tmp_path / "s.sqlite") as store:
        result = execute(executor, specs, store, backend, concurrency=1)
        assert result.summary.retries == 2  # each 429 was a RateLimitError, retried
        assert result.summary.requests == 5 == server.count("requests")
        assert all(o.ok for o in result)
    server.configure(Script(judge="longer", api_key="sk-another-key-entirely"))
    with Store(tmp_path / "t.sqlite") as store, pytest.raises(AuthenticationError) as raised:
        execute(executor, specs_for(backend, 3, start=3), store, backend, concurrency=1)
    assert KEY not in str(raised.value)


@pytest.mark.parametrize(
    "error",
    [
        RateLimitError("HTTP 429", retry_after=2.5),
        AuthenticationError("HTTP 401"),
        FatalBackendError("no such model"),
    ],
)
def test_backend_errors_pickle_with_their_fields(error: Exception) -> None:
    error.requests = 3  # type: ignore[attr-defined]
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert copy.__dict__ == error.__dict__
    assert copy.retryable == error.retryable  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["openai-lean", "openai-sdk", "anthropic"])
def test_a_pickled_backend_carries_no_key_and_reads_it_where_it_lands(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fairjudge.backends import AnthropicBackend

    monkeypatch.setenv(KEY_ENV, KEY)
    url = "http://127.0.0.1:9/v1"
    backend: Any = (
        AnthropicBackend("claude", base_url=url, api_key_env=KEY_ENV, timeout=7.0)
        if kind == "anthropic"
        else http_backend(url, timeout=7.0, transport=kind.removeprefix("openai-"))
    )
    blob = pickle.dumps(backend)
    assert KEY.encode() not in blob
    cloudpickle = pytest.importorskip("ray.cloudpickle")  # what the executor sends
    assert KEY.encode() not in cloudpickle.dumps(backend)
    monkeypatch.setenv(KEY_ENV, "sk-the-workers-own-key-0000")
    copy = pickle.loads(blob)
    assert type(copy) is type(backend)
    assert repr(copy) == repr(backend)
    assert copy.default_params(label_only=True) == backend.default_params(label_only=True)
    assert copy._settings() == backend._settings()


def test_a_pickled_local_backend_is_its_settings_not_its_loaded_model(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    from fairjudge.backends import LocalBackend

    backend = LocalBackend(tmp_path / "m.gguf", model_id="m@0123456789ab", threads=1, n_ctx=512)
    copy = pickle.loads(pickle.dumps(backend))
    assert (copy.model_path, copy.model, copy.threads, copy.n_ctx) == (
        tmp_path / "m.gguf",
        "m@0123456789ab",
        1,
        512,
    )
    assert copy.load_s is None  # it loads on its first call, where it landed
    unset = LocalBackend(tmp_path / "m.gguf", model_id="m@0123456789ab")
    assert pickle.loads(pickle.dumps(unset))._threads_asked is None  # its machine's cores


def test_no_file_of_the_ray_session_holds_the_key(
    server: JudgeServer, executor: RayExecutor, tmp_path: Path
) -> None:
    backend = http_backend(server.base_url)
    server.configure(Script(judge="longer", api_key=KEY, fault_sequence=["server_error"]))
    with Store(tmp_path / "s.sqlite") as store:
        result = execute(executor, specs_for(backend, 20), store, backend, concurrency=4)
    assert result.summary.made == 20
    assert server.count("requests") == 21  # a 500, retried: an error travelled back
    leaks = [
        str(path)
        for path in session_dir().rglob("*")
        if path.is_file() and not path.is_socket() and KEY.encode() in _read(path)
    ]
    assert leaks == []


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:  # a socket, a pipe, a file gone meanwhile
        return b""


def test_every_attempt_on_every_node_is_granted_by_the_drivers_bucket(
    server: JudgeServer, executor: RayExecutor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    granted = []
    real = engine.TokenBucket.reserve

    def reserve(self: Any, amount: float, now: float) -> float:
        granted.append(amount)
        return real(self, amount, now)

    monkeypatch.setattr(engine.TokenBucket, "reserve", reserve)
    backend = http_backend(server.base_url)
    server.configure(Script(judge="longer", api_key=KEY, fault_sequence=["rate_limit"] * 3,
                            retry_after="0.01"))  # fmt: skip
    before = served(executor)
    with Store(tmp_path / "s.sqlite") as store:
        result = execute(executor, specs_for(backend, 40), store, backend,
                         concurrency=8, rpm=60_000)  # fmt: skip
    requests = server.count("requests")
    assert requests == 43 == result.summary.requests == len(granted)  # 3 retried 429s
    made = list(served(executor, before).values())
    assert sum(made) == 43
    assert len(made) == 2
    assert all(n > 0 for n in made)  # both nodes made attempts, all granted here


def test_max_calls_is_exact_across_the_cluster(
    server: JudgeServer, executor: RayExecutor, tmp_path: Path
) -> None:
    backend = http_backend(server.base_url, max_connections=4)
    with Store(tmp_path / "s.sqlite") as store:
        result = execute(executor, specs_for(backend, 30), store, backend,
                         concurrency=6, max_calls=11)  # fmt: skip
        assert result.stopped == "max_calls"
        s = result.summary
        assert (s.made, s.not_run, server.count("requests"), store.count()) == (11, 19, 11, 11)
        again = execute(executor, specs_for(backend, 30), store, backend, concurrency=6)
    assert (again.summary.cached, again.summary.made) == (11, 19)


def test_a_worker_killed_mid_run_costs_only_its_calls_in_flight(
    cluster: Any, tmp_path: Path
) -> None:
    with JudgeServer(Script(judge="longer", api_key=KEY, latency=0.05)) as server, \
            RayExecutor() as executor:  # fmt: skip
        backend = http_backend(server.base_url)
        specs = specs_for(backend, 120)
        with Store(tmp_path / "clean.sqlite") as store:
            clean = execute(executor, specs, store, backend, concurrency=8)
        server.reset()
        victim = executor.workers_report()[0]
        killed = threading.Event()

        def kill_after(n: int) -> None:
            until(lambda: server.count("ok") >= n)
            os.kill(victim.pid, signal.SIGKILL)
            killed.set()

        killer = threading.Thread(target=kill_after, args=(30,), daemon=True)
        killer.start()
        with Store(tmp_path / "killed.sqlite") as store:
            result = execute(executor, specs, store, backend, concurrency=8)
            stored = store.count()
        killer.join(timeout=30)
        assert killed.is_set()
        after = executor.workers_report()
        with Store(tmp_path / "next.sqlite") as store:  # the next batch: no worker to replace
            later = execute(executor, specs_for(backend, 20, start=500), store, backend)
        workers = executor.workers_report()
    s = result.summary
    assert 1 <= s.repeated <= 8  # the victim's calls in flight: at most the concurrency
    assert (s.made, s.failed, s.not_run, stored) == (120, 0, 0, 120)  # 0 lost
    assert s.requests == 120 + s.repeated
    assert [same(o) for o in result] == [same(o) for o in clean]
    # Replaced during the batch, on the victim's node (still up): it ends with 2 alive.
    assert [w.alive for w in after] == [True, True, False]
    assert after[2].pid == victim.pid
    assert after[1].pid not in {victim.pid, after[0].pid}
    assert after[1].node == victim.node
    assert len({w.node for w in after[:2]}) == 2
    assert [(w.pid, w.alive) for w in workers] == [(w.pid, w.alive) for w in after]
    assert later.summary.made == 20
    assert workers[1].calls > 0  # the replacement took its share
    assert "sent again after a worker was lost" in s.summary()


def test_ray_is_not_imported_until_a_batch_needs_the_cluster() -> None:
    code = (
        "import sys, fairjudge, fairjudge.runner, fairjudge.judges, fairjudge.backends\n"
        "from fairjudge.runner import RayExecutor\n"
        "executor = RayExecutor(workers=2)\n"
        "assert executor.workers_report() == ()\n"
        "executor.close()\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


def test_bad_worker_counts_name_the_parameter() -> None:
    with pytest.raises(ConfigError, match="workers must be a positive integer; got 0") as e:
        RayExecutor(workers=0)
    assert e.value.params == ("workers",)


@pytest.mark.local_model
def test_an_embedded_judge_loads_once_per_node_and_answers_as_in_one_process(
    cluster: Any, tmp_path: Path
) -> None:
    pytest.importorskip("xllamacpp")
    from fairjudge.backends import LocalBackend
    from fairjudge.prompts import get_template

    try:
        gemma = LocalBackend.from_name("gemma-3-270m", threads=1, n_ctx=1024, quiet=True)
    except MissingExtraError as exc:
        pytest.skip(str(exc))
    template = get_template("default")
    specs = [
        CallSpec(
            backend=gemma.name,
            model=gemma.model,
            messages=template.render(f"What is {i} + {i}?", str(2 * i), str(2 * i + 1)),
            template=template.name,
            template_version=template.version,
            params=gemma.default_params(label_only=True),
        )
        for i in range(8)
    ]
    with Store(tmp_path / "one.sqlite") as one, Store(tmp_path / "ray.sqlite") as many:
        expected = execute(AsyncioExecutor(), specs, one, gemma, concurrency=4)
        with RayExecutor() as executor, Store(":memory:") as fresh:
            got = execute(executor, specs, many, gemma, concurrency=4)
            again = execute(executor, specs[:2], fresh, gemma, concurrency=4)
            workers = executor.workers_report()
        assert [same(o) for o in got] == [same(o) for o in expected]
        assert rows(many) == rows(one)
    assert again.summary.made == 2
    assert len(workers) == 2  # one actor per node for the model, nothing else
    assert len({w.node for w in workers}) == 2
    assert {w.serves for w in workers} == {gemma.model}
    assert [w.loads for w in workers] == [1, 1]  # loaded once per node, kept for the batch after
    assert sum(w.calls for w in workers) == 10
    assert all(w.calls > 0 for w in workers)
    gemma.close()


class Recorder:
    """A progress display that keeps what it is shown."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, Snapshot]] = []

    def start(self, snapshot: Snapshot) -> None:
        self.shown.append(("start", snapshot))

    def update(self, snapshot: Snapshot) -> None:
        self.shown.append(("update", snapshot))

    def finish(self, snapshot: Snapshot) -> None:
        self.shown.append(("finish", snapshot))


def test_progress_shows_the_workers_alive_and_the_calls_each_made(
    server: JudgeServer, executor: RayExecutor, tmp_path: Path
) -> None:
    backend = http_backend(server.base_url)
    display = Recorder()
    before = served(executor)
    with Store(tmp_path / "s.sqlite") as store:
        execute(executor, specs_for(backend, 30), store, backend, concurrency=4, progress=display)
    kind, last = display.shown[-1]
    calls = [w.calls for w in executor.workers_report()]
    assert kind == "finish"
    assert last.detail == f"workers 2/2 alive, calls per worker {calls[0]} · {calls[1]}"
    assert sum(served(executor, before).values()) == 30
    assert last.final_line().endswith(f"; {last.detail}")
    assert display.shown[0][1].detail.startswith("workers 2/2 alive")


def test_a_cancelled_run_cancels_the_attempts_on_the_workers_and_keeps_the_finished(
    executor: RayExecutor, cluster: Any, tmp_path: Path
) -> None:
    # The first 6 requests are answered; every later one hangs until the client gives up.
    script = Script(judge="longer", api_key=KEY, fault_sequence=[None] * 6 + ["hang"] * 50)
    with JudgeServer(script) as server, Store(tmp_path / "s.sqlite") as store:
        # A model the capability table knows. For an unknown one the driver sends one
        # attempt alone (the probe) and holds the others until it is answered, so the
        # six slots would not all be on the server at the cancel.
        backend = OpenAIBackend(
            "gpt-4o-mini", base_url=server.base_url, api_key_env=KEY_ENV, timeout=600.0
        )
        batch = Batch([backend], specs_for(backend, 40), store,
                      RunOptions(concurrency=6, progress="quiet"), parse=parse)  # fmt: skip

        async def interrupted() -> None:
            task = asyncio.ensure_future(executor.execute(batch))
            # Every slot's attempt is on the server before the cancel (else it proves less).
            assert await asyncio.to_thread(until, lambda: server.count("hang") == 6)
            task.cancel()  # what Ctrl-C does to the batch (EventLoopThread.run)
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(interrupted())
        assert store.count() == store.count(status="ok") == 6  # every finished call kept
        import ray

        handles = [w.handle for w in executor._pool.shared]  # type: ignore[union-attr]
        # Cancelling an actor's task is asynchronous: wait for it (or for 60 s at most).
        until(lambda: not any(ray.get([h.busy.remote() for h in handles])), limit=60)
        assert ray.get([h.busy.remote() for h in handles]) == [0, 0]  # else 600 s hanging
    assert server.count("requests") == 12  # the 6 answered and the 6 cancelled: no more


def test_a_cancel_reaches_the_probe_and_the_calls_held_behind_it_send_nothing(
    executor: RayExecutor, cluster: Any, tmp_path: Path
) -> None:
    import ray

    # An unknown model: the driver sends one attempt (the probe) to one worker and
    # holds the others until a reply shows the server answered it. Every request
    # hangs, so one attempt is on a worker and five wait on the driver.
    script = Script(judge="longer", api_key=KEY, fault_sequence=["hang"] * 50)
    with JudgeServer(script) as server, Store(tmp_path / "s.sqlite") as store:
        backend = http_backend(server.base_url, timeout=600.0)
        batch = Batch([backend], specs_for(backend, 40), store,
                      RunOptions(concurrency=6, progress="quiet"), parse=parse)  # fmt: skip

        def busy() -> list[int]:
            pool = executor._pool
            handles = [w.handle for w in pool.shared] if pool is not None else []
            return sorted(ray.get([h.busy.remote() for h in handles]))

        async def interrupted() -> None:
            task = asyncio.ensure_future(executor.execute(batch))
            held = lambda: server.count("hang") == 1 and busy() == [0, 1]  # noqa: E731
            assert await asyncio.to_thread(until, held)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(interrupted())
        until(lambda: busy() == [0, 0], limit=60)
        assert busy() == [0, 0]  # the probe ended on its worker
        assert store.count() == 0
    # The calls held on the driver were cancelled there, before any reached a worker.
    assert server.count("requests") == 1


def until(condition: Callable[[], bool], limit: float = 120.0) -> bool:
    """Wait for ``condition``, polling; give up after ``limit`` seconds: whether it came."""
    waited = 0.0
    while not condition() and waited < limit:
        threading.Event().wait(0.01)
        waited += 0.01
    return condition()


def test_a_driver_killed_mid_run_loses_only_its_calls_in_flight_and_resumes(
    cluster: Any, executor: RayExecutor, tmp_path: Path
) -> None:
    store_path = tmp_path / "s.sqlite"
    with JudgeServer(Script(judge="longer", api_key=KEY, latency=0.05)) as server:
        backend = http_backend(server.base_url)
        args = [cluster.address, server.base_url, str(store_path), "80", "4"]
        driver = subprocess.Popen(
            [sys.executable, "-m", "tests.runner._ray_driver", *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            until(lambda: server.count("ok") >= 20 or driver.poll() is not None)
            driver.send_signal(signal.SIGKILL)
        finally:
            driver.wait(timeout=60)
            assert driver.stdout is not None
            driver.stdout.close()
        assert driver.returncode == -signal.SIGKILL  # killed mid-run, not finished
        with Store(store_path) as store:
            kept = store.count()
            resumed = execute(executor, specs_for(backend, 80), store, backend, concurrency=4)
            assert store.count() == 80
        sent = server.count("requests")
    # A slot frees only once its row is committed, so of the 20 answered, only those
    # still in flight (4 at most: answered, not yet stored) can be missing.
    assert kept >= 20 - 4
    assert (resumed.summary.cached, resumed.summary.made) == (kept, 80 - kept)
    assert sent - 80 <= 4  # paid twice: at most the killed driver's calls in flight


def test_a_worker_that_cannot_build_the_backend_stops_the_batch_saying_why(
    executor: RayExecutor, server: JudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fairjudge.backends import AnthropicBackend

    # Set here, after the nodes started: the driver has the key, the workers do not.
    monkeypatch.setenv("FAIRJUDGE_DRIVER_ONLY_KEY", KEY)
    backend = AnthropicBackend(
        "claude", base_url=server.base_url, api_key_env="FAIRJUDGE_DRIVER_ONLY_KEY"
    )
    with Store(tmp_path / "s.sqlite") as store, pytest.raises(FatalBackendError) as raised:
        execute(executor, specs_for(backend, 3), store, backend)
    message = str(raised.value)
    assert "could not set up the backend for anthropic/claude" in message
    assert "set $FAIRJUDGE_DRIVER_ONLY_KEY" in message
    assert KEY not in message
    assert server.count("requests") == 0


def _local_driver(base_url: str, env: Mapping[str, str]) -> tuple[dict[str, Any], str]:
    """Run :mod:`tests.runner._ray_local` (6 calls); what it printed, and its stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.runner._ray_local", base_url, "6"],
        capture_output=True, text=True, cwd=ROOT, env=dict(env), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_no_address_starts_a_fresh_local_ray_even_while_another_runs(
    cluster: Any, server: JudgeServer
) -> None:
    # The module's cluster runs in this process and /tmp/ray names it (the default
    # address file of ray.init()): a driver built without an address must not join it,
    # nor refuse (Ray's "num_cpus ... must not be provided" when it tries to).
    assert (Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster").exists()
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    own, stderr = _local_driver(server.base_url, env)
    theirs = sorted(n["NodeID"] for n in ray_nodes() if n["Alive"])
    assert own["made"] == 6
    assert own["gcs"] != cluster.address
    assert len(own["nodes"]) == 1
    assert not set(own["nodes"]) & set(theirs)
    assert stderr == ""  # not a line of Ray's start-up or shutdown
    # Closed, the executor stopped its Ray gracefully: nothing it spawned runs on. (Shut
    # down after the thread that started it ended, Ray's agents ran on for a minute.)
    assert own["spawned"] >= 3
    assert own["left"] == []
    # RAY_ADDRESS, Ray's convention for "the cluster this program belongs to", is followed.
    joined, _ = _local_driver(server.base_url, {**env, "RAY_ADDRESS": cluster.address})
    assert joined["made"] == 6
    assert joined["nodes"] == theirs


def ray_nodes() -> list[dict[str, Any]]:
    import ray

    return list(ray.nodes())


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("127.0.0.1:{closed}", "no Ray cluster answers at 127.0.0.1:{closed}"),
        ("ray://127.0.0.1:{closed}", "no Ray cluster answers at 127.0.0.1:{closed}"),
        ("no-port-here", "is no Ray address; give auto, HOST:PORT"),
    ],
)
def test_an_address_where_no_cluster_answers_is_a_config_error_at_once(
    address: str, says: str
) -> None:
    pytest.importorskip("ray")
    from fairjudge.runner._ray import start_ray

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    address, says = address.format(closed=closed), says.format(closed=closed)

    class NoRay:  # ray.init must not be reached: Ray itself would wait for minutes
        def init(self, **settings: Any) -> None:
            raise AssertionError(f"ray.init{settings}")

    with pytest.raises(ConfigError) as raised:
        start_ray(NoRay(), address, None)
    assert says in str(raised.value)
    assert str(raised.value).startswith(f"address={address!r}")
    assert raised.value.params == ("address",)
