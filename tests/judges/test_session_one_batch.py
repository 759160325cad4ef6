"""Batches on one session run one at a time: two threads never spend one budget twice."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from fairjudge import Reply
from fairjudge.backends import OpenAIBackend
from fairjudge.judges import JudgeSession, LLMJudge, PairwiseRequest
from fairjudge.runner import RunOptions
from tests.server import JudgeServer


def test_two_threads_share_one_budget(openai_env: JudgeServer, tmp_path: Path) -> None:
    openai_env.configure(latency=0.05)
    options = RunOptions.build(max_calls=12, quiet=True)
    outcomes: list[object] = []
    with JudgeSession(store=tmp_path / "store.sqlite", options=options) as session:
        backend = OpenAIBackend("scripted-judge", base_url=openai_env.base_url)
        judges = [LLMJudge(backend, session=session), LLMJudge(backend, session=session)]

        def work(k: int) -> None:
            requests = [PairwiseRequest(f"q{k}-{i}", "a", "b") for i in range(10)]
            outcomes.append(judges[k].judge_batch(requests))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert session.calls_made == 12
    assert openai_env.count("requests") == 12  # the budget held across both batches
    stopped = [o for o in outcomes if getattr(o, "stopped", None) is not None]
    finished = [o for o in outcomes if getattr(o, "stopped", "") is None]
    assert len(stopped) == 1
    assert len(finished) == 1
    assert all(isinstance(r, Reply) and r.ok for r in finished[0])


def test_async_batches_share_one_budget(openai_env: JudgeServer, tmp_path: Path) -> None:
    openai_env.configure(latency=0.05)
    options = RunOptions.build(max_calls=12, quiet=True)
    with JudgeSession(store=tmp_path / "store.sqlite", options=options) as session:
        backend = OpenAIBackend("scripted-judge", base_url=openai_env.base_url)
        judge = LLMJudge(backend, session=session)

        async def both() -> list[object]:
            batches = [
                judge.ajudge_batch([PairwiseRequest(f"q{k}-{i}", "a", "b") for i in range(10)])
                for k in range(2)
            ]
            return await asyncio.gather(*batches, return_exceptions=True)

        outcomes = asyncio.run(both())
        assert session.calls_made == 12
    assert openai_env.count("requests") == 12
    assert sum(getattr(o, "stopped", None) is not None for o in outcomes) == 1
