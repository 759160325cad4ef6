"""A panel's ``python:`` member: its ``timeout`` applies, a model's setting is refused.

Before, a jury file's ``timeout`` (or ``temperature``, ``template``...) on a
``python:`` member was read, checked and then dropped: the member ran without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge import ConfigError, InputError
from fairjudge.judges import BackendOptions, Jury, MemberSpec, PairwiseRequest, load_jury_file
from fairjudge.runner import RetryPolicy, RunOptions

HANGS = "python:tests.judges.own_judges:async_hangs_on_q0"
LONGER = "python:tests.judge_fixtures:longer"
ONCE = RunOptions(concurrency=2, progress="quiet", retry=RetryPolicy(max_attempts=1))


def test_a_jury_files_timeout_applies_to_its_python_member(tmp_path: Path) -> None:
    path = tmp_path / "panel.toml"
    path.write_text(
        f'[[member]]\njudge = "{HANGS}"\ntimeout = 0.2\n[[member]]\njudge = "{LONGER}"\n',
        encoding="utf-8",
    )
    members = load_jury_file(path, allow_python=True).members
    with Jury.from_specs(members, options=ONCE) as jury:
        hung, other = jury.member_readings([PairwiseRequest("q0", "a", "bb")])
    assert hung[0].failure is not None
    assert hung[0].failure.kind == "BackendTimeout"
    assert "within 0.2 s" in hung[0].failure.message
    assert other[0].failure is None


@pytest.mark.parametrize(
    ("key", "value"),
    [("temperature", "0.5"), ("template", '"default"'), ("max_tokens", "10"),
     ("base_url", '"http://127.0.0.1:9/v1"')],
)  # fmt: skip
def test_a_models_setting_on_a_python_member_is_refused_at_its_line(
    tmp_path: Path, key: str, value: str
) -> None:
    path = tmp_path / "panel.toml"
    path.write_text(
        f'[[member]]\njudge = "{LONGER}"\n{key} = {value}\n[[member]]\njudge = "{LONGER}"\n',
        encoding="utf-8",
    )
    members = load_jury_file(path, allow_python=True).members
    with pytest.raises(InputError) as caught:
        Jury.from_specs(members)
    assert str(caught.value).startswith(f"{path}:3: member.0.{key}: {key} does not apply")
    assert "a Python judge is called directly" in str(caught.value)


def test_a_spec_in_code_with_a_models_setting_names_the_parameter() -> None:
    with pytest.raises(ConfigError) as caught:
        Jury.from_specs([MemberSpec(LONGER, temperature=0.5), MemberSpec(LONGER)])
    assert caught.value.params == ("temperature",)


def test_the_panels_timeout_fills_a_python_members_own() -> None:
    panel = BackendOptions(timeout=3, temperature=0.5)
    assert MemberSpec(LONGER).with_defaults(backend=panel) == MemberSpec(LONGER, timeout=3)
    assert MemberSpec(LONGER, timeout=1).with_defaults(backend=panel).timeout == 1
    replay = MemberSpec("replay:x.jsonl")
    assert replay.with_defaults(backend=panel) == replay  # a replay waits on no one
