"""fairjudge: LLM-as-a-judge evaluation you can trust.

The seed protocol, exactly::

    from fairjudge import debiased_verdict, win_rate, position_consistency

and the typed layer for everything richer::

    from fairjudge import evaluate_pairs
    result = evaluate_pairs(judge, items)   # win rate with CI, consistency, ...
"""

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
from fairjudge._items import Call, Item, Judgment
from fairjudge._protocol import (
    debiased_verdict,
    item_seed,
    normalize_verdict,
    plan_orders,
    position_consistency,
    resolve,
    win_rate,
)
from fairjudge._types import (
    CallError,
    Order,
    Outcome,
    ParseFailure,
    Probabilities,
    Reply,
    Resolution,
    Verdict,
    translate,
)
from fairjudge._version import __version__
from fairjudge.evaluation import PairwiseResult, Rate, WinRate, evaluate_pairs
from fairjudge.stats import ConfidenceInterval

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
    "ServerError",
    "Verdict",
    "WinRate",
    "__version__",
    "debiased_verdict",
    "evaluate_pairs",
    "item_seed",
    "normalize_verdict",
    "plan_orders",
    "position_consistency",
    "resolve",
    "translate",
    "win_rate",
]
