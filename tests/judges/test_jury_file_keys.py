"""A jury file's misspelt key: the error names the key and the keys there are."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge import InputError
from fairjudge.judges import load_jury_file

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
    assert "aggregat: unknown key; the keys are schema_version, aggregate, member" in str(e.value)
