"""A Python judge's exception is recorded with any key in its message scrubbed."""

from __future__ import annotations

import pytest

from fairjudge import Item, evaluate_pairs


def test_a_python_judges_error_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-live-0123456789abcdefXYZ"

    def leaky(q: str, a: str, b: str) -> str:
        raise RuntimeError(f"upstream refused key {secret}")

    result = evaluate_pairs(leaky, [Item("q", "a", "b")])
    message = result.judgments[0].calls[0].reply.failure.message  # type: ignore[union-attr]
    assert secret not in message
    assert "***" in message
