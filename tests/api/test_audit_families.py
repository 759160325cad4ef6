"""``fairjudge.audit_judge(judge_families=...)`` takes ``SPEC=FAMILY`` strings too.

``audit`` reads its repeated ``--judge-family SPEC=FAMILY`` through the library, so a
notebook can pass the same strings; a mapping works as before.
"""

from __future__ import annotations

import pytest

import fairjudge


def test_the_library_takes_the_flags_spec_family_strings() -> None:
    # audit_judge(judge_families=...) reads "SPEC=FAMILY" as --judge-family does (it
    # took a mapping only, and a list of strings failed with a ValueError from dict()).
    from fairjudge._api._audit import _families

    assert _families(["openai/m = openai", "local/x=qwen"]) == {
        "openai/m": "openai", "local/x": "qwen"
    }  # fmt: skip
    assert _families({"openai/m": "openai"}) == {"openai/m": "openai"}
    # (spec, family) pairs, as dict() took them before the strings were read.
    assert _families({"openai/m": "openai"}.items()) == {"openai/m": "openai"}
    assert _families([("local/x", "qwen")]) == {"local/x": "qwen"}
    with pytest.raises(fairjudge.ConfigError) as e:
        fairjudge.audit_judge("openai/m", judge_families=["openai/m"], limit=2)
    assert str(e.value) == "judge_families takes SPEC=FAMILY; got 'openai/m'"
    assert e.value.params == ("judge_families",)
