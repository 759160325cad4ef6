"""A notebook's comparison and the ``compare`` command record the same settings.

``--json`` and :meth:`fairjudge.Result.to_dict` are the same report model, so the
same judge on the same file must record the same run: the judge's name, its template
(``default@N`` for a model judge, none for a Python one), rounds, seed and the rest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import fairjudge
from fairjudge.cli import app
from fairjudge.judges import BackendOptions
from fairjudge.prompts import get_template

PAIRS = Path(fairjudge.__file__).parent / "examples" / "demo_pairs.jsonl"
J = "python:fairjudge.examples.judges:"


def _cli_settings(*args: str) -> dict[str, Any]:
    run = CliRunner().invoke(app, ["compare", str(PAIRS), *args, "--quiet", "--json"])
    assert run.exit_code == 0, run.output
    out = run.stdout
    settings: dict[str, Any] = json.loads(out[out.index("{") :])["settings"]
    return settings


def _without_source(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings but the input's name: the command names the file it read, as given."""
    return {k: v for k, v in settings.items() if k != "source"}


def test_a_model_judge_records_its_template_in_a_notebook_as_on_the_command_line(
    openai_env: Any, tmp_path: Path
) -> None:
    spec = "openai/scripted-judge"
    cli = _cli_settings(
        "--judge", spec, "--base-url", openai_env.base_url, "--store", str(tmp_path / "c.db")
    )  # fmt: skip
    api = fairjudge.compare(
        PAIRS, spec, backend=BackendOptions(base_url=openai_env.base_url),
        store=tmp_path / "a.db",
    ).to_dict()["settings"]  # fmt: skip
    default = get_template("default")
    assert api["template"] == cli["template"] == f"{default.name}@{default.version}"
    assert _without_source(api) == _without_source(cli)
    # a template named explicitly, through the JSON text a notebook would write
    named = fairjudge.compare(
        PAIRS, spec, template="default", backend=BackendOptions(base_url=openai_env.base_url),
        store=tmp_path / "a.db",
    ).to_dict()  # fmt: skip
    assert _without_source(json.loads(json.dumps(named))["settings"]) == _without_source(cli)


def test_a_python_judge_records_no_template_in_either() -> None:
    cli = _cli_settings("--judge", J + "longer")
    api = fairjudge.compare(PAIRS, J + "longer").to_dict()["settings"]
    assert api.get("template") is None
    assert cli.get("template") is None
    assert _without_source(api) == _without_source(cli)
