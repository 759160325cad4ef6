"""A backend field of the wrong type is a ConfigError naming it (QA41b #7).

``backend={"timeout": "1"}`` raised a bare ``TypeError`` ("'<' not supported between
instances of 'int' and 'str'") from BackendOptions' range check; so did threads,
context and max_tokens given as strings, and a number for model_path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fairjudge
from fairjudge import ConfigError
from fairjudge.judges import BackendOptions

DEMO = Path(fairjudge.__file__).parent / "examples" / "demo_pairs.jsonl"


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("timeout", "1", "backend.timeout must be a number of seconds; got '1' (str)"),
        ("threads", "2", "backend.threads must be a whole number; got '2' (str)"),
        ("context", "4096", "backend.context must be a whole number; got '4096' (str)"),
        ("max_tokens", "900", "backend.max_tokens must be a whole number; got '900' (str)"),
        ("temperature", "0.5", "backend.temperature must be a number; got '0.5' (str)"),
        ("model_path", 3, "backend.model_path must be a path; got 3 (int)"),
        ("thinking_budget", "2048", "backend.thinking_budget must be a whole number"),
        ("reasoning_effort", 5, "backend.reasoning_effort must be a string; got 5 (int)"),
        ("base_url", 8080, "backend.base_url must be a URL string; got 8080 (int)"),
    ],
)
def test_a_field_of_the_wrong_type_is_named(field: str, value: object, said: str) -> None:
    with pytest.raises(ConfigError, match=said.replace("(", r"\(").replace(")", r"\)")) as caught:
        fairjudge.compare(str(DEMO), lambda q, a, b: "A", backend={field: value})
    assert caught.value.params == ("backend",)


def test_a_built_options_object_is_checked_too_and_right_types_pass() -> None:
    with pytest.raises(ConfigError, match=r"backend\.thinking_budget must be a whole number"):
        fairjudge.JudgeSetup(backend=BackendOptions(thinking_budget="2048"))  # type: ignore[arg-type]
    setup = fairjudge.JudgeSetup(backend={"timeout": 1, "temperature": 0, "threads": 2,
                                          "model_path": Path("m.gguf")})  # fmt: skip
    assert setup.backend is not None
    assert setup.backend.timeout == 1
