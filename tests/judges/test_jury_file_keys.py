"""A jury file's misspelt key: the error names the key and the keys there are."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge import InputError
from fairjudge.judges import BackendOptions, Jury, MemberSpec, load_jury_file

MEMBERS = '[[member]]\njudge = "openai/a"\n[[member]]\njudge = "openai/b"\n'


def test_a_misspelt_member_key_lists_a_members_keys(tmp_path: Path) -> None:
    path = tmp_path / "panel.toml"
    path.write_text(MEMBERS + "wieght = 2\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_jury_file(path)
    message = str(e.value)
    assert "member.1.wieght: unknown key" in message
    assert "judge, name, template, weight, base_url, temperature, timeout" in message


def test_a_misspelt_top_level_key_lists_the_files_keys(tmp_path: Path) -> None:
    path = tmp_path / "panel.toml"
    path.write_text('aggregat = "mean"\n' + MEMBERS, encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_jury_file(path)
    assert "aggregat: unknown key; did you mean 'aggregate'? The keys are schema_version, " \
           "aggregate, member" in str(e.value)  # fmt: skip


def test_a_misspelt_judge_is_an_unknown_key_at_its_line_not_a_missing_judge(
    tmp_path: Path,
) -> None:
    """The misspelling leaves ``judge`` missing too: the key written is the one named."""
    path = tmp_path / "panel.toml"
    path.write_text(MEMBERS + '\n[[member]]\n# the third\njudgee = "openai/c"\n', "utf-8")
    with pytest.raises(InputError) as e:
        load_jury_file(path)
    assert str(e.value) == (
        f"{path}:8: member.2.judgee: unknown key; did you mean 'judge'? The keys are judge, "
        "name, template, weight, base_url, temperature, timeout, reasoning_effort, "
        "thinking_budget, max_tokens, price_input, price_output, price_cached_input"
    )
    assert (e.value.path, e.value.line) == (str(path), 8)


@pytest.mark.parametrize(
    ("text", "shown"),
    [  # each error names the line of the key at fault, or of the member lacking it
        ('aggregate = "mean"\n' + MEMBERS + "weight = 0\n", ":6: member.1.weight: Input should "
         "be greater than 0"),
        ("schema_version = 2\n" + MEMBERS, ":1: schema_version 2 is unknown; use 1"),
        (MEMBERS + '[[member]]\nname = "c"\n', ":5: member.2.judge: missing: each [[member]] "
         'names its judge (judge = "openai/gpt-4o-mini")'),
        (MEMBERS.replace('"openai/b"', '""'), ":4: member.1.judge: empty judge spec ''"),
        (MEMBERS + 'base_url = "http://example.com/v1"\n', ":5: member.1.base_url "
         "'http://example.com/v1' would receive your API key"),
        (MEMBERS.replace('"openai/a"', '"python:m:f"'), ":2: member.0.judge 'python:m:f' "
         "would import and run Python code"),
        ('member = [{judge = "openai/a"},\n  {judge = "openai/b", colour = 1}]\n',
         ":1: member.1.colour: unknown key; the keys are"),
    ],
)  # fmt: skip
def test_every_error_names_its_line(tmp_path: Path, text: str, shown: str) -> None:
    path = tmp_path / "panel.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_jury_file(path)
    assert str(e.value).startswith(f"{path}{shown}")


REASONING = '[[member]]\njudge = "openai/gpt-5-mini"\nbase_url = "http://127.0.0.1:9/v1"\n'


def test_a_members_value_refused_for_its_judge_names_the_files_key(tmp_path: Path) -> None:
    """QA39 #12: the member's own temperature, at its line, not a parameter or flag."""
    path = tmp_path / "j9.toml"
    at_the_api = REASONING.replace('base_url = "http://127.0.0.1:9/v1"', "# the API itself")
    path.write_text(at_the_api + "temperature = 0.5\n" + MEMBERS, encoding="utf-8")
    members = load_jury_file(path).members
    with pytest.raises(InputError) as e:
        Jury.from_specs(members)
    assert str(e.value).startswith(
        f"{path}:4: member.0.temperature: openai/gpt-5-mini samples at temperature 1 only"
    )
    assert (e.value.path, e.value.line, e.value.params) == (str(path), 4, ())


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("max_tokens = 0\n", ":4: member.0.max_tokens: max_tokens must be >= 1; got 0"),
        ("max_tokens = true\n", ":4: member.0.max_tokens: Input should be a valid integer"),
        ('thinking_budget = "2048"\n', ":4: member.0.thinking_budget: Input should be a valid "
         "integer"),
        ("reasoning_effort = 1\n", ":4: member.0.reasoning_effort: Input should be a valid "
         "string"),
    ],
)  # fmt: skip
def test_the_reasoning_keys_are_checked_as_the_file_is_read(
    tmp_path: Path, text: str, shown: str
) -> None:
    path = tmp_path / "j9.toml"
    path.write_text(REASONING + text + MEMBERS, encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_jury_file(path)
    assert str(e.value).startswith(f"{path}{shown}")


def test_a_members_own_value_wins_over_the_panels(tmp_path: Path) -> None:
    path = tmp_path / "j9.toml"
    path.write_text(REASONING + 'reasoning_effort = "minimal"\n' + MEMBERS, encoding="utf-8")
    first, second, _ = load_jury_file(path).members
    panel = BackendOptions(reasoning_effort="high", max_tokens=300)
    assert first.with_defaults(backend=panel).backend_options() == BackendOptions(
        "http://127.0.0.1:9/v1", reasoning_effort="minimal", max_tokens=300
    )
    assert second.with_defaults(backend=panel).reasoning_effort == "high"
    python = MemberSpec("python:tests.judge_fixtures:longer")
    assert python.with_defaults(backend=panel) == python  # no backend to set
