"""``--rounds`` past 100, or a plan past a million calls with no ``--max-calls``: exit 2 first.

``--rounds 1000000`` on the 20 demo items once planned 40 million calls, grew to 22 GB
and printed nothing. Now the flag is refused before the judge opens, a plan past the
limit names its count and the flag that runs it, and a SIGTERM during a large plan
still stops the run at once, with exit 143, before any call is sent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fairjudge.evaluation import _settings
from tests.cli._invoke import invoke
from tests.server import DEFAULT_API_KEY, JudgeServer

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "src" / "fairjudge" / "examples" / "demo_pairs.jsonl")  # 20 items


def _compare(server: JudgeServer, store: Path, *flags: str):  # type: ignore[no-untyped-def]
    return invoke("compare", DEMO, "--judge", "openai/gpt-4o-mini", "--base-url",
                  server.base_url, "--store", str(store), "--quiet", *flags)  # fmt: skip


def test_rounds_past_100_exit_2_before_any_call(openai_env: JudgeServer, tmp_path: Path) -> None:
    done = _compare(openai_env, tmp_path / "s.sqlite", "--rounds", "1000000")
    assert done.exit_code == 2, done.output
    text = " ".join(done.output.split())
    assert "--rounds must be at most 100; got 1000000" in text
    assert "use 4 to 20" in text
    assert openai_env.count("requests") == 0


def test_a_plan_past_the_limit_names_its_count_and_max_calls_runs_it(
    openai_env: JudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_settings, "MAX_PLANNED_CALLS", 30)  # the demo's 20 items x 2 = 40
    done = _compare(openai_env, tmp_path / "s.sqlite")
    assert done.exit_code == 2, done.output
    text = " ".join(done.output.split())
    assert "this run would plan 40 judge calls (20 items x --rounds 2), more than the 30" in text
    assert "set --max-calls N to run it with a cap on the new calls" in text
    assert openai_env.count("requests") == 0
    done = _compare(openai_env, tmp_path / "s.sqlite", "--max-calls", "1000")
    assert done.exit_code == 0, done.output
    assert openai_env.count("requests") == 40


def test_a_panel_s_plan_counts_its_judges(
    openai_env: JudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_settings, "MAX_PLANNED_CALLS", 60)  # 40 calls a judge, 80 in all
    store = str(tmp_path / "s.sqlite")
    done = invoke("jury", DEMO, "--judge", "openai/gpt-4o-mini", "--judge", "openai/gpt-4o",
                  "--base-url", openai_env.base_url, "--store", store)  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "would plan 80 judge calls (20 items x --rounds 2 x 2 judges)" in " ".join(
        done.output.split()
    )
    assert openai_env.count("requests") == 0


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc for memory")
def test_sigterm_while_a_large_plan_is_built_exits_143_at_once(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    # 9,000 items x 100 rounds = 900,000 calls: under the limit, and about 1 KB each,
    # so the run's memory grows for many seconds before the first call could be sent.
    rows = [{"question": f"q{i}?", "answer_1": "a longer answer", "answer_2": "short"}
            for i in range(9000)]  # fmt: skip
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    argv = [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare",
            str(items), "--judge", "openai/gpt-4o-mini", "--base-url", judge_server.base_url,
            "--store", str(tmp_path / "s.sqlite"), "--rounds", "100"]  # fmt: skip
    env = {**os.environ, "OPENAI_API_KEY": DEFAULT_API_KEY, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while _rss_kb(proc.pid) < 150_000:  # past the imports (~60 MB): calls are being built
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the plan never grew"
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    assert took < 5, f"{took:.1f} s from SIGTERM to exit"
    assert "interrupted by SIGTERM" in err
    assert judge_server.count("requests") == 0  # stopped while planning: nothing was sent
