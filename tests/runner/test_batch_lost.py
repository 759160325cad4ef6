"""Batches the provider no longer knows, and budgets over batches not collected yet.

A store can hold a batch its key cannot see (handed over from another organisation, a
deleted batch): the provider answers 404 to every poll. Before, a ``--batch-api`` run
stopped on that 404 (exit 1) and an online run refused the calls (exit 2), each sending
the user to the other. Now the batch run marks a batch at least 10 minutes old lost
(its calls stay on record under it) and submits its calls again; a younger one stops
the run and is kept, and any other error keeps the record. And ``max_cost`` /
``max_calls`` count the calls of batches not collected yet, so rerunning while exit 8
stays within the budget.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge._errors import (
    AuthenticationError,
    BackendError,
    BatchPending,
    ConfigError,
    FatalBackendError,
)
from fairjudge.judges import BackendOptions
from fairjudge.runner import BatchExecutor, Prices, RetryPolicy, RunOptions
from tests.server._batch_emulator import BatchServer, provider_batches

PAIRS = Path(__file__).resolve().parents[2] / "src/fairjudge/examples/demo_pairs.jsonl"
ITEMS = [json.loads(line) for line in PAIRS.read_text().splitlines()][:6]
CALLS = 2 * len(ITEMS)
MORE = [json.loads(line) for line in PAIRS.read_text().splitlines()][:7]
JUDGES = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-3-5-haiku-latest"}
GHOST = "batch_doesnotexist000000000000"
HOUR_AGO = (datetime.now(UTC) - timedelta(hours=1)).isoformat(timespec="milliseconds")


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, provider: str) -> Iterator[BatchServer]:
    with provider_batches(monkeypatch, provider, delay_polls=1) as running:  # type: ignore[arg-type]
        yield running


def _anthropic(server: BatchServer) -> bool:
    return server.emulator.inner.__class__.__name__.startswith("Anthropic")


def _judge(server: BatchServer) -> str:
    return JUDGES["anthropic" if _anthropic(server) else "openai"]


def _backend(server: BatchServer) -> BackendOptions:
    return BackendOptions(base_url=server.root if _anthropic(server) else server.base_url)


def _compare(
    server: BatchServer, store: Path, executor: Any = None, *, items: Any = ITEMS, **options: Any
) -> Any:
    return fairjudge.compare(
        items,
        judge=_judge(server),
        backend=_backend(server),
        store=str(store),
        executor=executor,
        options=RunOptions(progress="quiet", **options),
    )


def _ghost(server: BatchServer, store: Path, submitted_at: str | None = HOUR_AGO) -> None:
    """Submit the calls, then rename the recorded batch to one the provider never made.

    ``submitted_at``: its recorded time (an hour ago: a store handed over); None keeps
    the real one, a moment ago (a quick rerun of a killed run).
    """
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE batches SET id = ?", (GHOST,))
        conn.execute("UPDATE batch_calls SET batch_id = ?", (GHOST,))
        if submitted_at is not None:
            conn.execute("UPDATE batches SET submitted_at = ?", (submitted_at,))
    server.reset()


def _batches(store: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(store) as conn:
        return conn.execute(
            "SELECT b.id, b.status, b.collected_at IS NOT NULL, COUNT(c.key) FROM batches b "
            "LEFT JOIN batch_calls c ON c.batch_id = b.id GROUP BY b.id ORDER BY b.submitted_at"
        ).fetchall()


def _rerun_pays_again(server: Any, store: Path) -> Any:
    """The rerun after a batch is lost: every call answered, all in one new batch."""
    result = _compare(server, store, BatchExecutor(poll_s=0.01))
    data = result.to_dict()
    assert (data["n_not_run"], data["calls"]["made"], data["calls"]["failed"]) == (0, CALLS, 0)
    stats = server.stats()
    assert (stats["batches_created"], stats["batch_requests"]) == (1, CALLS)
    return result


def test_a_batch_the_provider_does_not_know_is_lost_and_the_rerun_completes(
    server: BatchServer, tmp_path: Path
) -> None:
    """Before: FatalBackendError on the 404 (exit 1), and online: ConfigError (exit 2)."""
    store = tmp_path / "s.sqlite"
    _ghost(server, store)
    with pytest.raises(ConfigError) as online:  # the online run names the way out
        _compare(server, store)
    assert "a batch the provider no longer knows (a 404" in str(online.value)
    assert "is then marked lost in the store" in str(online.value)
    result = _rerun_pays_again(server, store)
    rows = _batches(store)
    assert rows[0] == (GHOST, "lost", 1, CALLS)  # kept as lost, with its calls
    assert rows[1][1:] in (("completed", 1, CALLS), ("ended", 1, CALLS))
    (note,) = [text for label, text in result.calls.notes if label == "lost batch"]
    assert f"batch {GHOST} ({CALLS} calls)" in note
    assert "HTTP 404" in note
    assert "the key in use cannot see it" in note
    assert "paid for again" in note
    again = _compare(server, store)  # online now: every call is in the store
    assert again.to_dict()["calls"]["cached"] == CALLS


def test_without_wait_the_lost_batchs_calls_are_submitted_and_the_message_says_why(
    server: BatchServer, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    _ghost(server, store)
    with pytest.raises(BatchPending) as pending:
        _compare(server, store, BatchExecutor(wait=False, poll_s=0.01))
    message = str(pending.value)
    assert f"Note: batch {GHOST} ({CALLS} calls), recorded in the store, is not known" in message
    assert "marked lost in the store, and its calls are submitted again and paid" in message
    assert GHOST not in pending.value.batches
    assert server.stats()["batches_created"] == 1
    result = _compare(server, store, BatchExecutor(wait=False, poll_s=0.01))
    assert result.to_dict()["calls"]["made"] == CALLS
    assert server.stats()["batches_created"] == 1


@pytest.mark.parametrize("error", ["500", "401"])
def test_other_errors_keep_the_batch_and_the_rerun_collects_it(
    error: str, server: BatchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 5xx after its retries, or a refused key: the run stops, the record stays."""
    server.configure_batches(delay_polls=3)
    store = tmp_path / "s.sqlite"
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    before = _batches(store)
    if error == "500":
        server.configure_batches(poll_error=500)
        expected: type[BackendError] = BackendError
    else:
        for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            monkeypatch.setenv(name, "sk-another-orgs-key")
        expected = AuthenticationError
    with pytest.raises(expected):
        _compare(server, store, BatchExecutor(poll_s=0.01),
                 retry=RetryPolicy(max_attempts=2, base_delay=0.01))  # fmt: skip
    assert _batches(store) == before  # not lost: still open, every call in it
    server.configure_batches(poll_error=0, delay_polls=0)
    monkeypatch.setenv("OPENAI_API_KEY", str(server.api_key))
    monkeypatch.setenv("ANTHROPIC_API_KEY", str(server.api_key))
    result = _compare(server, store, BatchExecutor(poll_s=0.01))
    assert result.to_dict()["calls"]["made"] == CALLS
    assert server.stats()["batches_created"] == 1


def test_a_404_for_a_moment_is_asked_again_and_the_batch_is_not_lost(
    server: BatchServer, tmp_path: Path
) -> None:
    """A provider may answer 404 just after creation (anthropic-sdk-python#1432)."""
    server.configure_batches(delay_polls=3)
    store = tmp_path / "s.sqlite"
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    server.configure_batches(not_found_polls=2, delay_polls=0)  # 2 of the 3 asks
    result = _compare(server, store, BatchExecutor(poll_s=0.01))
    assert result.to_dict()["calls"]["made"] == CALLS
    assert server.stats()["batches_created"] == 1
    assert [row[1] for row in _batches(store)] != ["lost"]
    assert not [label for label, _ in result.calls.notes if label == "lost batch"]


def test_a_batch_this_run_submitted_is_never_lost(server: BatchServer, tmp_path: Path) -> None:
    server.configure_batches(not_found_polls=1)  # the first poll, just after creation
    store = tmp_path / "s.sqlite"
    with pytest.raises(FatalBackendError) as caught:
        _compare(server, store, BatchExecutor(poll_s=0.01))
    assert "HTTP 404" in str(caught.value)
    ((_, status, closed, calls),) = _batches(store)
    assert (status, closed, calls) in (("validating", 0, CALLS), ("submitted", 0, CALLS))


def test_only_the_providers_own_not_found_body_is_a_lost_batch() -> None:
    """Each body goes through the one reader of error bodies (``error_detail``)."""
    from fairjudge.backends._batch_api import no_anthropic_batch, no_openai_batch, no_openai_file
    from fairjudge.backends._openai_wire import error_detail

    def said(body: Any) -> Any:
        return error_detail(body if isinstance(body, bytes) else json.dumps(body).encode())

    real = {"error": {"message": f"No batch found with id '{GHOST}'.",
                      "type": "invalid_request_error", "param": None, "code": None}}  # fmt: skip
    assert no_openai_batch(said(real))
    assert no_openai_batch(said({"error": {"message": "?", "code": "batch_not_found"}}))
    assert not no_openai_batch(said({"detail": "Not Found"}))  # a server with no batch API
    assert not no_openai_batch(said({"error": {"message": "Invalid URL (GET /v1/batches/x)"}}))
    assert not no_openai_batch(said(b"<html>404</html>"))
    file = {"error": {"message": "No such File object: file-abc123",
                      "type": "invalid_request_error", "param": "id", "code": None}}  # fmt: skip
    assert no_openai_file(said(file))
    assert not no_openai_file(said(real))
    assert not no_openai_file(said({"error": {"message": "Invalid URL (GET /v1/files/x)"}}))
    found = {"type": "error", "error": {"type": "not_found_error", "message": "Not found"}}
    assert no_anthropic_batch(said(found))
    assert not no_anthropic_batch(said({"type": "error", "error": {"type": "api_error"}}))
    assert not no_anthropic_batch(said(b"Not Found"))


@pytest.mark.parametrize("budget", [{"max_calls": 4}, {"max_cost": 0.0002}])
def test_reruns_while_batches_run_submit_nothing_past_the_budget(
    budget: dict[str, Any], server: BatchServer, tmp_path: Path
) -> None:
    """Before: each rerun submitted another budget's worth (4 reruns, 4 batches)."""
    server.configure_batches(delay_polls=50)
    store = tmp_path / "s.sqlite"
    messages = []
    for _ in range(4):
        with pytest.raises(BatchPending) as pending:
            _compare(server, store, BatchExecutor(wait=False), prices=Prices(1.0, 1.0), **budget)
        messages.append(" ".join(str(pending.value).split()))
    stats = server.stats()
    assert stats["batches_created"] == 1
    with sqlite3.connect(store) as conn:
        (submitted,) = conn.execute("SELECT COUNT(*) FROM batch_calls").fetchone()
    assert 0 < submitted < CALLS
    if "max_calls" in budget:
        assert submitted == 4
    for message in messages:
        assert f"Committed and not collected yet: {submitted} calls in 1 batch(es), " in message
        assert "worst case $0.0" in message
    assert "budget is reached" in messages[-1]
    server.configure_batches(delay_polls=0)  # the batches end: reruns collect, then submit
    codes = []
    for _ in range(2 * CALLS):
        try:
            result = _compare(
                server, store, BatchExecutor(wait=False), prices=Prices(1.0, 1.0), **budget
            )
        except BatchPending:
            codes.append(8)
            continue
        if result.to_dict()["n_not_run"] == 0:
            break
    else:
        pytest.fail(f"never finished: {codes}")
    assert server.stats()["batch_requests"] == CALLS  # each call once


@pytest.mark.parametrize("submitted_at", [None, ""], ids=["a-moment-ago", "no-time"])
def test_a_young_batch_the_provider_does_not_know_stops_the_run_and_is_kept(
    submitted_at: str | None, server: BatchServer, tmp_path: Path
) -> None:
    """A quick rerun of a killed run meets a 404 for a moment (anthropic-sdk-python#1432).

    Before: three 404s ``poll_s`` apart (here 0.02 s) lost it, deleted its calls and
    paid for them again. Now a batch under 10 minutes old, or of no readable time, is
    kept and the run stops (exit 1), saying when it would be lost.
    """
    store = tmp_path / "s.sqlite"
    _ghost(server, store, submitted_at=submitted_at)
    before = _batches(store)
    with pytest.raises(FatalBackendError) as caught:
        _compare(server, store, BatchExecutor(poll_s=0.01))
    said = str(caught.value)
    assert f"the provider does not know batch {GHOST} ({CALLS} calls, recorded in the " in said
    assert "HTTP 404" in said
    assert "anthropic-sdk-python#1432" in said
    if submitted_at is None:
        assert "is treated as lost only once it is 10 minutes old: run the same " in said
    else:
        assert "records no readable time of its submission ('')" in said
        assert (
            f"UPDATE batches SET status = 'lost', collected_at = datetime() WHERE id = '{GHOST}'"
            in said
        )
    assert _batches(store) == before  # open, every call in it
    assert server.stats().get("batches_created", 0) == 0  # nothing paid twice


def test_a_lost_batchs_calls_stay_in_the_store_as_lost(server: BatchServer, tmp_path: Path) -> None:
    """Before: its batch_calls rows were deleted, so the store forgot what was submitted."""
    store = tmp_path / "s.sqlite"
    _ghost(server, store)
    with sqlite3.connect(store) as conn:
        keys = sorted(k for (k,) in conn.execute("SELECT key FROM batch_calls"))
    _compare(server, store, BatchExecutor(poll_s=0.01))
    with sqlite3.connect(store) as conn:
        lost = conn.execute(
            "SELECT c.key FROM batch_calls c JOIN batches b ON b.id = c.batch_id "
            "WHERE b.status = 'lost' AND b.id = ? ORDER BY c.key",
            (GHOST,),
        ).fetchall()
    assert [k for (k,) in lost] == keys
    assert len(keys) == CALLS


def test_committed_money_stays_committed_while_its_batch_runs(
    server: BatchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: each poll loop ended with ``committed = 0`` though the batch still ran."""
    from fairjudge.runner._batch import BatchRun

    follow, after = BatchRun._follow, []

    async def watched(run: BatchRun, batches: list[Any], **kwargs: Any) -> list[Any]:
        running = await follow(run, batches, **kwargs)
        after.append((len(running), run.committed))
        return running

    monkeypatch.setattr(BatchRun, "_follow", watched)
    server.configure_batches(delay_polls=50)
    store = tmp_path / "s.sqlite"
    budget = {"prices": Prices(1.0, 1.0), "max_cost": 1.0}
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False), **budget)
    running, committed = after[-1]
    assert running == 1
    assert committed > 0  # this run's batch: its estimate is still held
    server.configure_batches(delay_polls=0)
    _compare(server, store, BatchExecutor(poll_s=0.01), **budget)
    assert after[-1] == (0, 0.0)


def test_an_earlier_runs_batch_collected_later_in_the_round_is_not_this_runs_spending(
    server: BatchServer, tmp_path: Path
) -> None:
    """An earlier run's batch still running at the first poll, collected in the round's
    later polls, while another process holds the other calls (so a second round comes).

    Before: its cost went into the second round's budget (``spent``, not ``resumed``),
    which then held back the calls it had room for.
    """
    store, elsewhere = tmp_path / "s.sqlite", tmp_path / "keys.sqlite"
    first, rest = ITEMS[:3], ITEMS[3:]
    fairjudge.compare(rest, judge=_judge(server), backend=_backend(server), store=str(elsewhere),
                      options=RunOptions(progress="quiet"))  # fmt: skip
    with sqlite3.connect(elsewhere) as conn:
        held = [k for (k,) in conn.execute("SELECT key FROM calls")]
    server.configure_batches(delay_polls=50)
    with pytest.raises(BatchPending):
        fairjudge.compare(first, judge=_judge(server), backend=_backend(server), store=str(store),
                          executor=BatchExecutor(wait=False),
                          options=RunOptions(progress="quiet"))  # fmt: skip
    with sqlite3.connect(store) as conn:  # another process makes the rest, for a second
        conn.executemany(
            "INSERT INTO claims VALUES (?, ?, ?)",
            [(k, "another-host/ns:1-abcd", time.time() + 1.0) for k in held],
        )
    server.configure_batches(delay_polls=2)  # running at the first poll, then ended
    # Room for the rest at their estimate (6 x ~$0.000057), not for the earlier batch's
    # $0.00018 besides.
    budget = 0.00042
    result = fairjudge.compare(
        ITEMS, judge=_judge(server), backend=_backend(server), store=str(store),
        executor=BatchExecutor(poll_s=0.05),
        options=RunOptions(progress="quiet", prices=Prices(1.0, 1.0), max_cost=budget),
    )  # fmt: skip
    data = result.to_dict()
    assert data["n_not_run"] == 0, data


def test_a_lost_batch_answered_none_of_its_calls(server: BatchServer, tmp_path: Path) -> None:
    """A lost batch's rows stay, but an error row of its calls is not its answer.

    Here a call of the lost batch ended in a refused request made elsewhere (online):
    the batch run makes it again, as for any call no collected batch answered, rather
    than serve that error as the lost batch's.
    """
    store = tmp_path / "s.sqlite"
    _ghost(server, store)
    _compare(server, store, BatchExecutor(poll_s=0.01))
    with sqlite3.connect(store) as conn:
        (key,) = conn.execute("SELECT key FROM batch_calls WHERE batch_id = ? LIMIT 1", (GHOST,))
        conn.execute("DELETE FROM batch_calls WHERE batch_id <> ?", (GHOST,))
        conn.execute(
            "UPDATE calls SET status = 'error', error_kind = 'RequestRejected', "
            "error_message = 'refused online' WHERE key = ?",
            key,
        )
    result = _compare(server, store, BatchExecutor(poll_s=0.01))
    calls = result.to_dict()["calls"]
    assert (calls["made"], calls["failed"]) == (1, 0)


def _ended_batch(server: BatchServer, store: Path, *, keep_results: bool = True) -> str:
    """Submit the calls, then end their batch at the provider (one poll, as a dashboard).

    ``keep_results=False``: then the provider no longer keeps its results, as the real
    APIs do: OpenAI's output file deleted (``DELETE /v1/files/{id}``), Anthropic's batch
    archived (``archived_at`` set, 29 days on). Returns the batch id.
    """
    import httpx

    server.configure_batches(delay_polls=50)
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    ((batch_id, *_),) = _batches(store)
    server.configure_batches(delay_polls=0)
    anthropic = _anthropic(server)
    headers = (
        {"x-api-key": str(server.api_key), "anthropic-version": "2023-06-01"}
        if anthropic
        else {"Authorization": f"Bearer {server.api_key}"}
    )
    path = "/v1/messages/batches/" if anthropic else "/v1/batches/"
    with httpx.Client(base_url=server.root, headers=headers) as http:
        ended = http.get(path + batch_id).json()
        assert ended.get("processing_status", ended.get("status")) in ("ended", "completed")
        if not keep_results and anthropic:
            server.emulator.archive(batch_id)
        elif not keep_results:
            deleted = http.delete(f"/v1/files/{ended['output_file_id']}")
            assert deleted.json()["deleted"] is True
    server.reset()
    return str(batch_id)


def test_a_batch_whose_results_are_gone_is_lost_and_its_calls_made_again(
    server: BatchServer, tmp_path: Path
) -> None:
    """Before: the download's 404 stopped every run (exit 1), with no way out."""
    store = tmp_path / "s.sqlite"
    batch_id = _ended_batch(server, store, keep_results=False)
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE batches SET submitted_at = ?", (HOUR_AGO,))
    result = _rerun_pays_again(server, store)
    rows = _batches(store)
    assert rows[0] == (batch_id, "lost", 1, CALLS)  # on record, as lost
    (note,) = [text for label, text in result.calls.notes if label == "lost batch"]
    assert (
        f"the results of batch {batch_id} ({CALLS} calls), recorded in the store, are no " in note
    )
    gone = "was archived at" if _anthropic(server) else "No such File object: file-"
    assert gone in note
    assert "0 replies were still read and are stored" in note
    assert "its other calls are submitted again and paid for again" in note


def test_results_missing_for_a_moment_are_asked_again_and_collected(
    server: BatchServer, tmp_path: Path
) -> None:
    """anthropic-sdk-python#1432 saw an ended batch's results answer 404 for a moment."""
    store = tmp_path / "s.sqlite"
    batch_id = _ended_batch(server, store)
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE batches SET submitted_at = ?", (HOUR_AGO,))
    server.configure_batches(not_found_results=2)  # 2 of the 3 asks
    result = _compare(server, store, BatchExecutor(poll_s=0.01))
    assert result.to_dict()["calls"]["made"] == CALLS
    assert server.stats().get("batches_created", 0) == 0  # nothing paid twice
    assert _batches(store)[0][:2] == (batch_id, "ended" if _anthropic(server) else "completed")
    assert not [label for label, _ in result.calls.notes if label == "lost batch"]


def test_a_young_batch_whose_results_are_gone_stops_and_says_how_to_give_it_up(
    server: BatchServer, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    batch_id = _ended_batch(server, store)
    server.configure_batches(not_found_results=99)
    with pytest.raises(FatalBackendError) as caught:
        _compare(server, store, BatchExecutor(poll_s=0.01))
    said = str(caught.value)
    assert f"does not know the results of batch {batch_id} ({CALLS} calls, recorded" in said
    assert "To give it up now (you deleted it, or know it will not come back), mark it" in said
    assert "(its results file was deleted or expired, or its results were archived)" in said
    assert _batches(store)[0][1:3] in (("completed", 0), ("ended", 0))  # kept, open
    command = said.rsplit("mark it lost and run the same command again: ", 1)[1]
    with sqlite3.connect(store) as conn:  # the command as given, its SQL run
        conn.execute(shlex.split(command)[2])
    server.configure_batches(not_found_results=0)
    result = _compare(server, store, BatchExecutor(poll_s=0.01))
    assert result.to_dict()["calls"]["made"] == CALLS
    assert server.stats()["batches_created"] == 1
    assert _batches(store)[0][:2] == (batch_id, "lost")


def test_this_runs_own_batch_whose_results_are_missing_stops_and_is_kept(
    server: BatchServer, tmp_path: Path
) -> None:
    server.configure_batches(not_found_results=99)
    store = tmp_path / "s.sqlite"
    with pytest.raises(FatalBackendError) as caught:
        _compare(server, store, BatchExecutor(poll_s=0.01))
    assert "which this run submitted" in str(caught.value)
    ((_, status, closed, calls),) = _batches(store)
    assert (closed, calls) == (0, CALLS)
    assert status in ("completed", "ended")


def test_the_give_up_command_quotes_an_odd_batch_id(server: BatchServer, tmp_path: Path) -> None:
    """Before: ``WHERE id = 'batch_it's'`` was printed, an SQL error (or worse) when run."""
    odd = "batch_it's; DROP TABLE calls; --"
    store = tmp_path / "s.sqlite"
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE batches SET id = ?, submitted_at = ''", (odd,))
        conn.execute("UPDATE batch_calls SET batch_id = ?", (odd,))
    with pytest.raises(FatalBackendError) as caught:
        _compare(server, store, BatchExecutor(poll_s=0.01))
    command = str(caught.value).rsplit("paid for again: ", 1)[1]
    argv = shlex.split(command)
    assert argv[:2] == ["sqlite3", str(store)]
    with sqlite3.connect(store) as conn:
        conn.executescript(argv[2])
        rows = conn.execute("SELECT id, status FROM batches").fetchall()
        (calls,) = conn.execute("SELECT COUNT(*) FROM calls").fetchone()
    assert rows == [(odd, "lost")]
    assert calls >= 0  # the calls table is still there


@pytest.mark.parametrize("provider", ["openai"])
def test_replies_still_kept_are_stored_and_only_the_rest_are_made_again(
    server: BatchServer, tmp_path: Path
) -> None:
    """OpenAI's error file deleted, its output file kept: the replies in it are not paid twice."""
    import httpx

    store = tmp_path / "s.sqlite"
    server.configure(fault_sequence=["server_error"])  # one line of the batch fails: 500
    batch_id = _ended_batch(server, store)
    with httpx.Client(
        base_url=server.base_url, headers={"Authorization": f"Bearer {server.api_key}"}
    ) as http:
        ended = http.get(f"/batches/{batch_id}").json()
        assert ended["request_counts"] == {"total": CALLS, "completed": CALLS - 1, "failed": 1}
        assert http.delete(f"/files/{ended['error_file_id']}").json()["deleted"] is True
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE batches SET submitted_at = ?", (HOUR_AGO,))
    server.configure(fault_sequence=())
    server.reset()
    result = _compare(server, store, BatchExecutor(poll_s=0.01))
    data = result.to_dict()
    assert (data["n_not_run"], data["calls"]["made"], data["calls"]["failed"]) == (0, CALLS, 0)
    stats = server.stats()
    assert (stats["batches_created"], stats["batch_requests"]) == (1, 1)  # only the one
    (note,) = [text for label, text in result.calls.notes if label == "lost batch"]
    assert f"{CALLS - 1} replies were still read and are stored" in note
    assert "its error file: " in note
    assert _batches(store)[0][:2] == (batch_id, "lost")


def test_a_batch_given_up_with_abandon_is_lost_at_once_and_its_calls_made_again(
    server: BatchServer, tmp_path: Path
) -> None:
    """Before: a batch deleted on the console held its calls for 10 minutes, and one
    that runs (too slow) had no way out but an hand-written SQL update."""
    store = tmp_path / "s.sqlite"
    server.configure_batches(delay_polls=50)
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    ((batch_id, *_),) = _batches(store)  # submitted a moment ago, still running
    server.configure_batches(delay_polls=0)
    server.reset()
    executor = BatchExecutor(poll_s=0.01, abandon=[batch_id])
    result = _compare(server, store, executor)
    assert result.to_dict()["calls"]["made"] == CALLS
    stats = server.stats()
    assert (stats["batches_created"], stats["batch_requests"]) == (1, CALLS)
    assert stats.get("batch_polls", 0) == 1  # the new batch's; the abandoned one unasked
    rows = _batches(store)
    assert rows[0] == (batch_id, "lost", 1, CALLS)
    (note,) = [text for label, text in result.calls.notes if label == "lost batch"]
    assert f"batch {batch_id} ({CALLS} calls), recorded in the store, is given up as " in note
    assert "its calls are submitted again and paid for again" in note
    assert executor.abandon == ()  # once: a later run of the session polls as usual
    executor = BatchExecutor(poll_s=0.01, abandon=[batch_id])
    again = _compare(server, store, executor, items=MORE)  # with calls to make
    (note,) = [text for label, text in again.calls.notes if label == "lost batch"]
    assert f"batch {batch_id} was lost already (" in note
    assert server.stats()["batches_created"] == 2  # only the new item's calls


def test_abandon_refuses_a_batch_it_cannot_give_up(server: BatchServer, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    server.configure_batches(delay_polls=50)
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    ((batch_id, *_),) = _batches(store)
    typo = BatchExecutor(poll_s=0.01, abandon=["batch_typo"])
    with pytest.raises(ConfigError) as unknown:
        _compare(server, store, typo)
    assert typo.abandon == ("batch_typo",)  # refused, not spent: refused again
    with pytest.raises(ConfigError, match="batch_typo"):
        _compare(server, store, typo)
    said = str(unknown.value)
    assert "abandon: cannot give up batch 'batch_typo': the store does not record it" in said
    assert f"The batches not collected yet there: {batch_id}" in said
    assert unknown.value.params == ("abandon",)
    server.configure_batches(delay_polls=0)
    _compare(server, store, BatchExecutor(poll_s=0.01))  # collected
    with pytest.raises(ConfigError) as collected:  # a run with calls to make
        _compare(server, store, BatchExecutor(poll_s=0.01, abandon=[batch_id]), items=MORE)
    assert f"cannot give up batch '{batch_id}': it was collected (" in str(collected.value)
    assert "its replies are in the store" in str(collected.value)
    assert _batches(store)[0][1] != "lost"
    for wrong in ("batch_abc", [""], [3]):
        with pytest.raises(ConfigError, match="abandon takes a list of batch ids"):
            BatchExecutor(abandon=wrong)  # type: ignore[arg-type]
