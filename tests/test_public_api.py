"""The public surface changes only on purpose: this list is the contract."""

from __future__ import annotations

import fairjudge

EXPECTED = {
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
    "RequestRejected",
    "Reply",
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
}


def test_all_is_the_contract() -> None:
    assert set(fairjudge.__all__) == EXPECTED


def test_all_is_sorted_and_importable() -> None:
    assert list(fairjudge.__all__) == sorted(fairjudge.__all__)
    for name in fairjudge.__all__:
        assert hasattr(fairjudge, name), name


def test_public_names_match_module_attributes() -> None:
    public = {n for n in dir(fairjudge) if not n.startswith("_")}
    submodules = {
        "audit",
        "backends",
        "cli",
        "evaluation",
        "examples",
        "judges",
        "prompts",
        "report",
        "runner",
        "stats",
    }
    assert public - submodules <= set(fairjudge.__all__)
