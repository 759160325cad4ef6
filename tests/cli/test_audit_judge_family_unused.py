"""``audit --judge-family`` without the self-preference experiment is refused.

The families feed the self-preference experiment alone; ``--experiments position
--judge-family openai/m=openai`` ran position and dropped the flag without a word.
"""

from __future__ import annotations

import pytest

import fairjudge
from tests.cli._invoke import invoke


def test_the_command_names_the_flag_and_the_experiment() -> None:
    result = invoke(
        "audit", "--judge", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
        "--experiments", "position", "--judge-family", "openai/m=openai",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "--judge-family applies to the self-preference experiment" in text
    assert "add self-preference to --experiments" in text


def test_the_library_names_the_parameter() -> None:
    with pytest.raises(fairjudge.ConfigError, match="judge_families applies") as e:
        fairjudge.audit_judge(
            "openai/m", experiments="position", judge_families={"openai/m": "openai"}, limit=2
        )
    assert e.value.params == ("judge_families", "experiments")


@pytest.mark.parametrize("given", ["openai/m", "=openai", "openai/m= "])
def test_a_malformed_family_is_refused_naming_the_flag(given: str) -> None:
    result = invoke(
        "audit", "--judge", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
        "--judge-family", given, "--json",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    message = f"--judge-family takes SPEC=FAMILY; got {given!r}"
    assert message in " ".join(result.stderr.split())
