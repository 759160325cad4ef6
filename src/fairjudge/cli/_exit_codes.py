"""The exit-code contract: one constant per code, and the table the root ``--help`` shows.

Scripts and CI branch on these codes, so each has one name here that every command
raises, and one line in ``fairjudge --help`` (the README repeats the table). Importing
it costs ``fairjudge --help`` nothing: constants and a string.
"""

from __future__ import annotations

__all__ = [
    "EXIT_BATCH_PENDING",
    "EXIT_BUDGET",
    "EXIT_CODES_HELP",
    "EXIT_COLLAPSE",
    "EXIT_FAILED",
    "EXIT_GATE_FAILED",
    "EXIT_GATE_NOT_APPLIED",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "EXIT_UNRESOLVED",
    "EXIT_USAGE",
]

EXIT_FAILED = 1
"""Judging failed: a fatal backend error, an unreachable server, an unexpected error."""
EXIT_USAGE = 2
"""Bad options, files, judges or missing extras: always said before the first judge call."""
EXIT_GATE_FAILED = 3
"""``calibrate``'s gate failed (Cohen's kappa on labels, Spearman on scores)."""
EXIT_UNRESOLVED = 4
"""More items than ``--max-unresolved`` got no verdict: too few to trust the result."""
EXIT_BUDGET = 5
"""The run stopped early: ``--max-calls``/``--max-cost``, or a Python judge with no store
that could not go on (its finished calls live in the result alone). The result is
partial, and says so."""
EXIT_COLLAPSE = 6
"""``score --fail-on-collapse`` and a collapse alarm tripped."""
EXIT_GATE_NOT_APPLIED = 7
"""``calibrate`` could evaluate no check of its gate: no evidence either way, not a pass."""
EXIT_BATCH_PENDING = 8
"""``--batch-api`` without ``--wait``: batches are pending; the same command collects them."""
EXIT_INTERRUPTED = 130
"""Ctrl-C: every finished call is kept in the store; the same command resumes. A judge
with no store stops instead: what answered is its partial result, saved with ``--out``."""
EXIT_TERMINATED = 143
"""SIGTERM (``docker stop``, Kubernetes, ``timeout``, a CI cancel): as Ctrl-C; 128 + 15."""

EXIT_CODES_HELP = """\b
Exit codes:
  0    success: the figures can be trusted as far as their intervals say
  1    judging failed (every finished call is kept in the store)
  2    usage or input error, said before the first judge call
  3    calibrate's gate failed
  4    too many items unresolved (--max-unresolved)
  5    stopped early by --max-calls/--max-cost, or by a Python judge with no
       store that could not go on: a partial result, marked so
  6    score --fail-on-collapse: a collapse alarm tripped
  7    calibrate's gate could not be applied: no evidence either way
  8    --batch-api without --wait: batches pending; run the command again
  130  interrupted (Ctrl-C); run the same command again to resume (a judge with
       no store: what answered is its partial result, saved with --out)
  143  terminated (SIGTERM): as 130, every finished call kept"""
"""The root ``--help``'s epilog (``\\b`` keeps Click from rewrapping it into one paragraph)."""
