"""redact_url: every credential in a base URL is masked, in any percent-encoding; nothing else.

What counts as a credential is the documented heuristic of
:func:`fairjudge._redact.redact_url`: user information, a known secret anywhere, a
vendor-prefixed key or a long run of letters and digits holding both, and the value
of a query parameter whose name says it is one. The URLs real servers use keep every
character, so the calls made through them keep their store keys.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge._redact import redact_arg, redact_url, url_secrets

SECRET = "gw-0f3c9b2a7e6d5c4b3a29"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/v1",
        "http://localhost:11434/v1",
        "https://openrouter.ai/api/v1",
        "https://api.groq.com/openai/v1",
        "https://api.together.xyz/v1",
        "https://my-resource.openai.azure.com/openai/deployments/gpt-4o-mini-2024-07-18"
        "?api-version=2024-10-21",
        "https://us-central1-aiplatform.googleapis.com/v1/projects/my-project-123456/"
        "locations/us-central1/endpoints/openapi",
        "http://[::1]:8000/v1?api-version=2024-10-21&flag",
    ],
)
def test_a_url_without_a_credential_comes_back_unchanged(url: str) -> None:
    assert redact_url(url) is url or redact_url(url) == url
    assert url_secrets(url) == []


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"http://h/v1?key={SECRET}", "http://h/v1?key=***"),
        (f"http://h/v1?k%65y={SECRET}", "http://h/v1?k%65y=***"),
        (f"http://h/v1?K%45Y={SECRET}", "http://h/v1?K%45Y=***"),  # any case
        (f"http://h/v1?k%2565y={SECRET}", "http://h/v1?k%2565y=***"),  # encoded twice
        (f"http://h/v1?%61pi%5Fkey={SECRET}&x=1", "http://h/v1?%61pi%5Fkey=***&x=1"),
        (f"http://h/v1?subscription-key={SECRET}", "http://h/v1?subscription-key=***"),
        (f"http://h/v1?access_token={SECRET}", "http://h/v1?access_token=***"),
        (f"http://h/v1?sig={SECRET}&api-version=1", "http://h/v1?sig=***&api-version=1"),
        ("http://h/v1?x=sk-proj-abcdef123456", "http://h/v1?x=***"),
        ("http://h/v1?x=%73k-proj-abcdef123456", "http://h/v1?x=***"),  # "sk-" encoded
        ("http://h/v1?sk-abcdefgh123=1", "http://h/v1?***"),
        ("http://h/v1/sk-ant-api03-abcdefgh/x", "http://h/v1/***/x"),
        ("http://h/v1/0f3c9b2a7e6d5c4b3a2910ff/openai", "http://h/v1/***/openai"),
        ("http://h/%30f3c9b2a7e6d5c4b3a2910ff/v1", "http://h/***/v1"),
        ("http://h/v1/AIzaSyA-abcdefghijklmnopqrstu", "http://h/v1/***"),
        ("http://h/v1/hf_abcdefghijklmnop", "http://h/v1/***"),
        ("http://user:pass@h:8000/v1", "http://***@h:8000/v1"),
        ("http://h/v1#frag", "http://h/v1#***"),
    ],
)
def test_a_credential_is_masked_in_any_encoding(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_a_known_secret_is_masked_wherever_it_stands() -> None:
    plain = "plain-words-key"  # not key-shaped: masked only because it is known
    for url in (
        f"http://h/{plain}/v1",
        f"http://h/v1?x={plain}",
        f"http://h/v1?x={quote(quote(plain, safe=''), safe='')}",
        f"http://h/v1/prefix-{plain}",
        f"http://{plain}.example.com/v1",
    ):
        shown = redact_url(url, [plain])
        assert plain not in shown
        assert "***" in shown
    assert redact_url(f"http://h/{plain}/v1") == f"http://h/{plain}/v1"  # unknown: kept


def test_url_secrets_names_each_masked_value_as_given_and_decoded() -> None:
    url = f"http://h/v1/0f3c9b2a7e6d5c4b3a2910ff?k%65y={quote(SECRET + '+x')}"
    found = url_secrets(url)
    assert "0f3c9b2a7e6d5c4b3a2910ff" in found
    assert SECRET + "+x" in found  # decoded
    assert quote(SECRET + "+x") in found  # as given
    assert all(len(value) >= 8 for value in found)


def test_redact_arg_masks_a_url_inside_a_flag() -> None:
    assert redact_arg(f"--base-url=http://h/v1?key={SECRET}") == "--base-url=http://h/v1?key=***"
    assert redact_arg("plain") == "plain"


TOKEN = st.text(
    st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~"),
    min_size=8,
    max_size=40,
)


@st.composite
def encoded(draw: st.DrawFn, text: str) -> str:
    """``text`` with any of its characters percent-encoded, in either case, once or twice."""
    out = []
    for char in text:
        how = draw(st.sampled_from(["plain", "lower", "upper", "twice"]))
        code = f"%{ord(char):02X}"
        out.append({"plain": char, "lower": code.lower(), "upper": code, "twice": quote(code)}[how])
    return "".join(out)


@given(secret=TOKEN, data=st.data())
def test_a_key_named_parameter_never_shows_its_value(secret: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(["key", "api_key", "api-key", "token", "auth", "password"]))
    url = f"http://h/v1?{data.draw(encoded(name))}={data.draw(encoded(secret))}&api-version=1"
    shown = redact_url(url)
    assert shown.endswith("=***&api-version=1")
    assert secret not in shown


@given(secret=TOKEN, data=st.data())
def test_a_known_secret_in_the_path_never_shows(secret: str, data: st.DataObject) -> None:
    url = f"http://h/v1/{data.draw(encoded(secret))}/chat?x=1"
    shown = redact_url(url, [secret])
    assert shown == "http://h/v1/***/chat?x=1"
    assert secret in url_secrets(url, [secret])


def test_a_reply_with_a_lone_surrogate_is_made_encodable_in_every_field() -> None:
    from fairjudge._call import Completion
    from fairjudge._redact import Redactor, well_formed

    reply = Completion("[[A]]\ud800", top_logprobs={"\udfff": -1.0, "A": -0.1}, model="m\ud800")
    clean = Redactor().completion(reply)
    assert clean.text == "[[A]]\ufffd"
    assert clean.model == "m\ufffd"
    assert clean.top_logprobs == {"\ufffd": -1.0, "A": -0.1}
    for text in (clean.text, clean.model, *clean.top_logprobs):
        text.encode("utf-8")  # raises on a lone surrogate
    assert well_formed("\ud83d\ude00") == "\U0001f600"  # a pair is one character
    plain = "no surrogate here: \u00e9"
    assert well_formed(plain) is plain
    same = Completion("A")
    assert Redactor().completion(same) is same
