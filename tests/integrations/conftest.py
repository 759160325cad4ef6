"""Inspect leaves some of its anyio streams for the garbage collector: collect them here.

A stream collected unclosed warns (``ResourceWarning``) from its ``__del__``. The test
modules here ignore that one warning (``QUIET``); collecting at each test's teardown
makes the warning fire while that filter holds, not in whatever test runs next.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _collect_inspects_streams() -> Iterator[None]:
    yield
    gc.collect()
