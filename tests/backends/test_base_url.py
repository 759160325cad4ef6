"""A key in the base URL's query string is refused; a plain query is allowed."""

from __future__ import annotations

import pytest

from fairjudge import ConfigError
from fairjudge.backends import OpenAIBackend


@pytest.mark.parametrize("query", ["api_key=sk-abc", "token=xyz", "x=1&access_token=y"])
def test_a_key_in_the_base_urls_query_is_refused(query: str) -> None:
    with pytest.raises(ConfigError, match="query string"):
        OpenAIBackend("m", base_url=f"http://127.0.0.1:9/v1?{query}")


def test_a_plain_query_is_allowed() -> None:
    backend = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1?api-version=2024")
    assert backend.base_url is not None
