"""The ``fairjudge`` command line."""

from fairjudge.cli._app import app, main

__all__ = ["app", "main"]
