"""The warnings Inspect itself raises in a run, which these tests ignore (and why)."""

from __future__ import annotations

import pytest

QUIET = [
    # Inspect's retry setup builds tenacity's wait with a keyword tenacity deprecates.
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    # Inspect leaves anyio memory streams to the garbage collector (see conftest.py).
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObjectReceiveStream:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObjectSendStream:ResourceWarning"),
]
