"""An audit setting of an experiment that was not requested is an error, not a no-op.

``audit --experiments position --target-words 100`` (or ``--framing-templates A,B``)
ran the position experiment and dropped the setting without a word.
"""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

import fairjudge
from fairjudge.audit import AuditSettings
from fairjudge.cli import app


@pytest.mark.parametrize(
    ("field", "value", "experiment"),
    [
        ("target_words", 100, "verbosity"),
        ("anti_verbose_rubric", "strict", "verbosity"),
        ("concise_template", "default", "verbosity"),
        ("strict_rubric", "basic", "framing"),
        ("framing_templates", ("default", "concise"), "framing"),
    ],
)
def test_a_setting_of_an_experiment_not_requested_is_refused(
    field: str, value: Any, experiment: str
) -> None:
    settings = AuditSettings(**{field: value})
    with pytest.raises(fairjudge.ConfigError, match=f"{field} applies to the {experiment}") as e:
        fairjudge.audit_judge("openai/m", experiments="position", settings=settings, limit=2)
    assert e.value.params == (field, "experiments")


def test_the_command_names_the_flag() -> None:
    result = CliRunner().invoke(app, [
        "audit", "--judge", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
        "--experiments", "position", "--target-words", "100",
    ])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "--target-words applies to the verbosity experiment" in " ".join(result.output.split())
