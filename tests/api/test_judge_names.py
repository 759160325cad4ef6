"""A judge is named the same in a notebook and on the command line.

Reports, ``--out`` headers and the store's records carry the judge's name, so the
same judge given as a function in a notebook and as ``python:module:function`` on the
command line (or as one spec in both) must read the same in both:
:func:`fairjudge.judges.judge_name` is the one place a judge's display name comes from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import fairjudge
from fairjudge.cli import app
from fairjudge.examples.judges import knows_facts, longer, scorer
from fairjudge.judges import BackendOptions, judge_name, resolve_judge

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
PAIRS = EXAMPLES / "demo_pairs.jsonl"
ANSWERS = EXAMPLES / "score_answers.jsonl"
J = "python:fairjudge.examples.judges:"


def _cli_json(*args: str) -> dict[str, Any]:
    run = CliRunner().invoke(app, [*args, "--quiet", "--json"])
    assert run.exit_code == 0, run.output
    out = run.stdout
    payload: dict[str, Any] = json.loads(out[out.index("{") :])
    return payload


def _member_names(payload: dict[str, Any]) -> list[str]:
    return [m["name"] for m in payload["members"]]


def test_an_openai_judge_at_a_base_url_is_named_by_its_spec_in_both(
    openai_env: Any, tmp_path: Path
) -> None:
    spec = "openai/scripted-judge"
    cli = _cli_json(
        "compare", str(PAIRS), "--judge", spec, "--base-url", openai_env.base_url,
        "--store", str(tmp_path / "cli.sqlite"),
    )  # fmt: skip
    api = fairjudge.compare(
        PAIRS, spec, backend=BackendOptions(base_url=openai_env.base_url),
        store=tmp_path / "api.sqlite",
    ).to_dict()  # fmt: skip
    assert cli["settings"]["judge"] == api["settings"]["judge"] == spec


def test_a_python_judge_is_named_alike_as_a_function_and_as_a_spec() -> None:
    cli = _cli_json("compare", str(PAIRS), "--judge", J + "longer")
    by_function = fairjudge.compare(PAIRS, longer).to_dict()
    by_spec = fairjudge.compare(PAIRS, J + "longer").to_dict()
    names = {cli["settings"]["judge"], by_function["settings"]["judge"]}
    assert names | {by_spec["settings"]["judge"]} == {J + "longer"}
    scored = _cli_json("score", str(ANSWERS), "--judge", J + "scorer")
    assert fairjudge.score(ANSWERS, scorer).to_dict()["judge"] == scored["judge"] == J + "scorer"


def test_a_local_judge_is_named_alike_by_the_flags_and_by_the_library() -> None:
    from fairjudge.cli._options import JudgeFlags

    spec = "local/gemma-3-270m"  # resolving loads no model: the name is known before
    from_flags = JudgeFlags(judge=spec).setup().open_judge(spec)
    from_library = resolve_judge(spec)
    try:
        assert judge_name(from_flags) == judge_name(from_library)
        assert judge_name(from_library).startswith(spec)
    finally:
        for judge in (from_flags, from_library):
            judge.close()  # type: ignore[attr-defined]


def test_a_jury_names_its_members_alike_in_both() -> None:
    cli = _cli_json("jury", str(PAIRS), "--judge", J + "longer", "--judge", J + "knows_facts")
    by_functions = fairjudge.compare(PAIRS, judges=[longer, knows_facts]).to_dict()
    by_specs = fairjudge.compare(PAIRS, judges=[J + "longer", J + "knows_facts"]).to_dict()
    expected = [J + "longer", J + "knows_facts"]
    assert _member_names(cli) == _member_names(by_functions) == _member_names(by_specs) == expected


@pytest.mark.parametrize(
    ("judge", "name"),
    [(longer, J + "longer"), (lambda q, a, b: "A", "python:" + __name__ + ":<lambda>")],
)
def test_judge_name_gives_a_function_its_spec(judge: Any, name: str) -> None:
    assert judge_name(judge) == name
