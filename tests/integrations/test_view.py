"""Inspect's log viewer serves the pairwise scorer's results: ``inspect view`` on 127.0.0.1.

The viewer's page reads each log through its own HTTP API; this test asks that API
for the log the way the page does and finds what the page shows: each sample's score
with its explanation and both raw replies, the metrics, and the unscored count.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

pytest.importorskip(
    "inspect_ai", reason="needs the inspect extra: pip install 'fairjudge[inspect]'"
)

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.solver import generate

from fairjudge.integrations.inspect import pairwise_scorer
from tests.integrations.quiet import QUIET
from tests.integrations.scripted import PairJudge, answering
from tests.integrations.test_cli import inspect_command

pytestmark = QUIET

OUTPUTS = {"Capital of France?": "Paris, on the Seine.", "Is water wet?": "Yes, it is."}
BASELINES = {"Capital of France?": "Paris", "Is water wet?": "Mostly."}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(client: httpx.Client, url: str, proc: subprocess.Popen[str]) -> httpx.Response:
    for _ in range(600):  # up to about a minute for the server to start
        assert proc.poll() is None, proc.communicate()[0]
        try:
            return client.get(url).raise_for_status()
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"inspect view did not answer at {url}")


@pytest.mark.slow
def test_the_viewer_serves_each_scores_explanation_and_the_metrics(tmp_path: Path) -> None:
    judge = PairJudge(rules={"Is water wet?": "garbage-swapped"})
    task = Task(
        dataset=[Sample(input=q, target=BASELINES[q], id=i) for i, q in enumerate(OUTPUTS, 1)],
        solver=generate(),
        scorer=pairwise_scorer(get_model("mockllm/model", custom_outputs=judge, memoize=False)),
    )
    logs = tmp_path / "logs"
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=answering(OUTPUTS), memoize=False),
        log_dir=str(logs),
        display="none",
    )
    assert log.status == "success", log.error
    port = free_port()
    proc = subprocess.Popen(
        [*inspect_command(), "view", "start", "--log-dir", str(logs),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False) as client:
            listed = wait_for(client, "/api/log-files", proc).json()
            [entry] = listed["files"]
            served = client.get(f"/api/logs/{quote(entry['name'], safe='')}").raise_for_status()
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    shown = served.json()
    scores = {s["id"]: s["scores"]["pairwise_scorer"] for s in shown["samples"]}
    assert scores[1]["value"] == 1.0
    assert scores[1]["explanation"].startswith("win (conservative rule: both orders agreed)")
    assert [c["raw"] for c in scores[1]["metadata"]["calls"]] == ["A", "B"]
    assert scores[2]["reason"] == "grader_failed"
    assert scores[2]["metadata"]["calls"][1]["raw"] == "Both answers have merits; hard to say."
    [result] = shown["results"]["scores"]
    assert result["unscored_samples"] == 1
    assert result["metrics"]["win_rate"]["value"] == 1.0
