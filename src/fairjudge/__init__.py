"""fairjudge: LLM-as-a-judge evaluation you can trust.

The seed protocol, exactly::

    from fairjudge import debiased_verdict, win_rate, position_consistency

and the typed layer for everything richer::

    from fairjudge import evaluate_pairs
    result = evaluate_pairs(judge, items)   # win rate with CI, consistency, ...
"""

import typing as _typing

from fairjudge._errors import (
    AuthenticationError,
    BackendError,
    BackendTimeout,
    BudgetExceeded,
    ConfigError,
    EndpointUnreachable,
    FairJudgeError,
    FatalBackendError,
    InputError,
    MissingExtraError,
    RateLimitError,
    RequestRejected,
    ServerError,
)
from fairjudge._items import Call, Item, Judgment, ScoreItem
from fairjudge._lazy import package_surface as _package_surface
from fairjudge._protocol import debiased_verdict, position_consistency, win_rate
from fairjudge._types import (
    CallError,
    Order,
    Outcome,
    ParseFailure,
    Probabilities,
    Reply,
    Resolution,
    Verdict,
)
from fairjudge._version import __version__

if _typing.TYPE_CHECKING:
    from fairjudge._api import JudgeSetup, Result, audit_judge, calibrate, compare, rank, score
    from fairjudge.evaluation import PairwiseResult, Rate, WinRate, evaluate_pairs
    from fairjudge.judges import TransientJudgeError, judge_function
    from fairjudge.stats import ConfidenceInterval

# The evaluation layer loads on first use (PEP 562): the seed protocol, and every
# command's --help, start without the judges, the runner or numpy. A name outside
# __all__ does not import from here (the protocol's building blocks are in _protocol).
_LAZY = {
    "JudgeSetup": "fairjudge._api",
    "Result": "fairjudge._api",
    "audit_judge": "fairjudge._api",
    "calibrate": "fairjudge._api",
    "compare": "fairjudge._api",
    "rank": "fairjudge._api",
    "score": "fairjudge._api",
    "PairwiseResult": "fairjudge.evaluation",
    "Rate": "fairjudge.evaluation",
    "WinRate": "fairjudge.evaluation",
    "evaluate_pairs": "fairjudge.evaluation",
    "TransientJudgeError": "fairjudge.judges",
    "judge_function": "fairjudge.judges",
    "ConfidenceInterval": "fairjudge.stats",
}

__all__ = [
    "AuthenticationError",
    "BackendError",
    "BackendTimeout",
    "BudgetExceeded",
    "Call",
    "CallError",
    "ConfidenceInterval",
    "ConfigError",
    "EndpointUnreachable",
    "FairJudgeError",
    "FatalBackendError",
    "InputError",
    "Item",
    "JudgeSetup",
    "Judgment",
    "MissingExtraError",
    "Order",
    "Outcome",
    "PairwiseResult",
    "ParseFailure",
    "Probabilities",
    "Rate",
    "RateLimitError",
    "Reply",
    "RequestRejected",
    "Resolution",
    "Result",
    "ScoreItem",
    "ServerError",
    "TransientJudgeError",
    "Verdict",
    "WinRate",
    "__version__",
    "audit_judge",
    "calibrate",
    "compare",
    "debiased_verdict",
    "evaluate_pairs",
    "judge_function",
    "position_consistency",
    "rank",
    "score",
    "win_rate",
]

# Each public name reports "fairjudge" (``fairjudge.Item.__module__``, httpx's convention).
_package_surface(globals(), _LAZY)
