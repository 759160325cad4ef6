"""The list prices name the current judges (gpt-5.1, gpt-5.2, Claude Opus 4.6, 4.7, Sonnet 4.6).

Without a list price, ``max_cost`` refuses a run on such a judge until the user gives
prices by hand, though the capability table knows the model.
"""

from __future__ import annotations

import pytest

from fairjudge.runner._prices import list_price


@pytest.mark.parametrize(
    ("backend", "model", "prices"),
    [
        ("openai", "gpt-5.1", (1.25, 0.125, 10.0)),
        ("openai", "gpt-5.1-2025-11-13", (1.25, 0.125, 10.0)),
        ("openai", "gpt-5.2", (1.75, 0.175, 14.0)),
        ("openai", "gpt-5.2-2025-12-11", (1.75, 0.175, 14.0)),
        ("anthropic", "claude-opus-4-6", (5.0, 0.5, 25.0)),
        ("anthropic", "claude-opus-4-7", (5.0, 0.5, 25.0)),
        ("anthropic", "claude-sonnet-4-6", (3.0, 0.3, 15.0)),
    ],
)
def test_current_judges_have_a_list_price(
    backend: str, model: str, prices: tuple[float, float, float]
) -> None:
    found = list_price(backend, model)
    assert found is not None
    assert (found.input_per_million, found.cached_input, found.output_per_million) == prices


def test_a_chat_model_of_gpt_5_1_is_not_priced_as_gpt_5_1() -> None:
    """gpt-5.1-chat-latest is another model: unpriced, not gpt-5.1's price by prefix."""
    assert list_price("openai", "gpt-5.1-chat-latest") is None
