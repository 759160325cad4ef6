"""A panel of Python judges takes ``--timeout``, as the README says each member does.

Before, the command line refused it for a panel of ``python:`` members alone ("a panel
of Python callables has no model ... drop them", exit 2), though the library applies
it to each (``compare(rows, judges=[f, g], backend={"timeout": 1})``) and a panel with
a model member passed it on to its ``python:`` members.
"""

from __future__ import annotations

import json
from typing import Any

from tests.cli._invoke import invoke

HANG = "python:tests.judges.own_judges:async_hangs_on_q0"
QUICK = "python:tests.judges.own_judges:slow_longer"
ROWS = [{"question": f"q{i}", "answer_1": "a longer answer", "answer_2": "short"} for i in range(5)]


def test_a_python_panel_times_out_the_member_that_hangs(write_jsonl: Any) -> None:
    path = write_jsonl(ROWS)
    done = invoke("jury", str(path), "--judge", HANG, "--judge", QUICK, "--timeout", "0.5",
                  "--max-unresolved", "0.5", "--json")  # fmt: skip
    assert done.exit_code == 0, done.output
    said = json.loads(done.stdout)
    assert said["failures"], said
    assert all("BackendTimeout" in reason for reason in said["failures"]), said["failures"]
    assert sum(said["failures"].values()) == 2  # q0, both orders: the rest answered


def test_the_flags_a_python_panel_cannot_use_are_still_refused(write_jsonl: Any) -> None:
    path = write_jsonl(ROWS)
    done = invoke("jury", str(path), "--judge", HANG, "--judge", QUICK, "--temperature", "0")
    assert done.exit_code == 2
    assert "--temperature: a panel of Python callables has no model" in done.output
    assert "--timeout" in done.output  # among the flags it takes
