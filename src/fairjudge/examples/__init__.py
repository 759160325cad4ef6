"""The example inputs and judges of the README, shipped with the package.

Everything here was written by the project itself, small enough to read:

- ``demo_pairs.jsonl``: 20 questions answered by two systems, with the truth in
  ``human`` (``make demo``, ``fairjudge compare``).
- ``calibration.jsonl``: pairs with human labels and scores (``fairjudge calibrate``).
- ``score_answers.jsonl``: two systems' answers to score against a rubric
  (``fairjudge score``, ``score-jury``).
- ``rank_answers.jsonl``: four models' answers in long format (``fairjudge rank``).
- ``battles.jsonl``: already-judged battles, ``model_a``, ``model_b``, ``winner``
  (``fairjudge rank`` with no judge calls).
- ``replay_reviews.jsonl``: recorded verdicts for a ``replay:`` judge.
- :mod:`fairjudge.examples.judges`: deterministic Python judges that need no model,
  e.g. ``--judge python:fairjudge.examples.judges:knows_facts``.

``fairjudge example-data DIR`` copies the files into ``DIR``, to read, edit or
pass to any command. Nothing in the library imports this package.
"""

__all__: list[str] = []
