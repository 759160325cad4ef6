"""fairjudge in a test suite: a pytest plugin whose assertions read as statistics.

Installed with ``pip install 'fairjudge[pytest]'``, pytest loads it by itself (the
``pytest11`` entry point ``fairjudge``; ``-p fairjudge.testing`` loads it by hand,
``-p no:fairjudge`` turns it off). A test asks for the ``fairjudge_judge`` fixture::

    def test_candidate_is_not_worse(fairjudge_judge):
        run = fairjudge_judge.compare("answers/candidate.jsonl")
        run.assert_not_worse(margin=0.05)    # lower bound of model 2's win rate > 0.45

The judge, store, concurrency and seed come from the ini file (``fairjudge_judge =
openai/gpt-4o-mini``), the command line (``--fairjudge-judge``), the test's marker
(``@pytest.mark.fairjudge(seed=3)``) or the call. A rerun is served from the store
at no cost; ``--fairjudge-record`` keeps every call in a recording file and
``--fairjudge-replay`` answers every call from it, so CI needs no API key.

The plugin is a client of the public functions (:func:`fairjudge.compare`,
:func:`fairjudge.score`), like the command line, and sits on its layer. See
``docs/pytest.md``.
"""

from fairjudge.testing._plugin import fairjudge_judge as fairjudge_judge
from fairjudge.testing._plugin import pytest_addoption as pytest_addoption
from fairjudge.testing._plugin import pytest_configure as pytest_configure
from fairjudge.testing._plugin import pytest_terminal_summary as pytest_terminal_summary
from fairjudge.testing._plugin import pytest_unconfigure as pytest_unconfigure
from fairjudge.testing._suite import Interval, Judged, SuiteJudge, SuiteSettings

__all__ = ["Interval", "Judged", "SuiteJudge", "SuiteSettings"]

for _name in __all__:  # each public name reports the package it is documented in
    globals()[_name].__module__ = __name__
