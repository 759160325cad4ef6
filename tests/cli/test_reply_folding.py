"""Replies that trip case folding or carry lone surrogates, through ``fairjudge compare``.

A server's reply may spell its verdict with a look-alike (``[[tıe]]``, ``verdıct: A``)
or carry a lone surrogate (a JSON ``"\\ud800"``). Each must end as a counted parse
failure in the ``--out`` file, never as a verdict, and the run must finish: before,
the surrogate stopped it with ``UnicodeEncodeError`` when the store wrote the reply.
"""

from __future__ import annotations

from pathlib import Path

from tests.prompts.hostile_replies import BROKEN_TEXT, LOOK_ALIKES, count_process


def test_hostile_replies_are_counted_parse_failures_and_the_run_finishes(
    tmp_path: Path,
) -> None:
    tally, exit_code = count_process(tmp_path)
    assert exit_code == 4  # every item unresolved: too many for --max-unresolved
    assert tally.tracebacks == 0
    assert tally.tried == 2 * (len(LOOK_ALIKES) + len(BROKEN_TEXT))  # both orders
    assert tally.believed == 0
    # Read: the one look-alike with a real [[A]] after it, and the two surrogate
    # replies that end in a real slot, in both orders.
    assert tally.unreadable == tally.tried - 2 * 3
    assert (tmp_path / "report.html").stat().st_size > 0
