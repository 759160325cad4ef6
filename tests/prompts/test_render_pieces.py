"""Rendering by pieces gives the text the placeholder substitution always gave."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fairjudge.prompts._templates import _PLACEHOLDER, _pieces

NAMES = ["question", "answer_a", "answer_b", "reference"]
TEXT = st.lists(
    st.sampled_from([*(f"{{{n}}}" for n in NAMES), *NAMES, "{", "}", "{other}", "{{question}}"])
    | st.text(max_size=12),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(user=TEXT, values=st.fixed_dictionaries({n: st.text(max_size=10) for n in NAMES}))
def test_pieces_render_as_the_substitution(user: str, values: dict[str, str]) -> None:
    parts = list(_pieces(user))
    parts[1::2] = [values[name] for name in parts[1::2]]
    assert "".join(parts) == _PLACEHOLDER.sub(lambda m: values[m.group(1)], user)
