"""A scripted OpenAI-compatible judge server for tests and benchmarks.

In-process (a background thread): :class:`JudgeServer`, or the ``judge_server``
fixture in ``tests/conftest.py``. As a process: ``python -m tests.server --help`` or
:class:`ServerProcess`.
"""

from tests.server._app import ABORT, ScriptedJudge
from tests.server._http import JudgeServer, ServerProcess
from tests.server._script import (
    DEFAULT_API_KEY,
    GARBAGE_TEXT,
    JUDGES,
    Fault,
    Pair,
    Script,
    client_estimate,
    correct_judge,
    count_tokens,
    extract_pair,
    prompt_hash,
    top_logprobs,
)

__all__ = [
    "ABORT",
    "DEFAULT_API_KEY",
    "GARBAGE_TEXT",
    "JUDGES",
    "Fault",
    "JudgeServer",
    "Pair",
    "Script",
    "ScriptedJudge",
    "ServerProcess",
    "client_estimate",
    "correct_judge",
    "count_tokens",
    "extract_pair",
    "prompt_hash",
    "top_logprobs",
]
