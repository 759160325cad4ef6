"""A rejected request is that call's error, and the run goes on.

A backend that rejects everything stops after a few calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge import FatalBackendError, RequestRejected
from fairjudge._call import CallSpec
from fairjudge.runner import RetryPolicy, RunOptions, Store, run_calls
from tests.runner._fakes import FakeBackend, make_spec

FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.002)


async def _run(backend: FakeBackend, specs: list[CallSpec], store: Store):  # type: ignore[no-untyped-def]
    options = RunOptions(progress="quiet", retry=FAST, concurrency=4)
    return await run_calls(backend, specs, store=store, options=options)


def test_a_rejected_request_is_that_calls_error_and_the_run_goes_on(tmp_path: Path) -> None:
    import asyncio

    specs = [make_spec(i) for i in range(20)]
    bad = specs[7].key

    def script(spec: CallSpec, attempt: int) -> str | BaseException:
        return RequestRejected("HTTP 400: context length exceeded") if spec.key == bad else "A"

    backend = FakeBackend(script)
    with Store(tmp_path / "s.sqlite") as store:
        result = asyncio.run(_run(backend, specs, store))
        assert result.summary.made == 20
        assert result.summary.failed == 1
        assert result[bad].error is not None
        assert result[bad].error.kind == "RequestRejected"
        assert backend.attempts[bad] == 1  # never retried: the same request fails again
        assert store.count(status="ok") == 19


def test_a_backend_that_rejects_everything_stops_after_a_few(tmp_path: Path) -> None:
    import asyncio

    backend = FakeBackend(lambda spec, attempt: RequestRejected("HTTP 400: unknown field 'x'"))
    with Store(tmp_path / "s.sqlite") as store:
        with pytest.raises(FatalBackendError, match="were all rejected and none was accepted"):
            asyncio.run(_run(backend, [make_spec(i) for i in range(200)], store))
        assert backend.calls < 20  # not 200
