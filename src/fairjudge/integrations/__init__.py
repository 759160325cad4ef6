"""fairjudge inside other tools: each integration is a client of the public library.

An integration sits on the top layer, beside the CLI and the pytest plugin: it calls
fairjudge's templates, parsers, protocol and statistics the way a user's code would,
and nothing below imports it. Each one lives in its own module and needs its own
extra, so importing this package loads none of them:

- :mod:`fairjudge.integrations.inspect`: scorers for Inspect AI's ``inspect eval``, and
  a judge backend that calls an Inspect model (``pip install 'fairjudge[inspect]'``).
"""

__all__: list[str] = []
