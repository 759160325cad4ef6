"""The ``fairjudge`` command line: thin commands over the library.

Each command parses its arguments, builds its options once (:mod:`._options`), calls
the library, and hands the result to :mod:`fairjudge.report`.
"""

from fairjudge.cli._app import app, main

__all__ = ["app", "main"]
