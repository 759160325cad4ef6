"""The exit-code contract as the root ``--help`` shows it.

Its own module so that :mod:`fairjudge.cli._app` stays within the module size, and
importing it costs ``fairjudge --help`` nothing (a string constant).
"""

from __future__ import annotations

__all__ = ["EXIT_CODES_HELP"]

EXIT_CODES_HELP = """\b
Exit codes:
  0    success: the figures can be trusted as far as their intervals say
  1    judging failed (every finished call is kept in the store)
  2    usage or input error, said before the first judge call
  3    calibrate's gate failed
  4    too many items unresolved (--max-unresolved)
  5    stopped by --max-calls/--max-cost: a partial result, marked so
  6    score --fail-on-collapse: a collapse alarm tripped
  7    calibrate's gate could not be applied: no evidence either way
  8    --batch-api without --wait: batches pending; run the command again
  130  interrupted (Ctrl-C); run the same command again to resume"""
"""The root ``--help``'s epilog: the exit-code contract of ``cli._app``'s docstring, short.

Scripts branch on these codes; a user reading ``fairjudge --help`` should not need the
README to learn them. Only the root shows it (a command's own help has no epilog).
``\\b`` keeps Click from rewrapping the lines into one paragraph.
"""
