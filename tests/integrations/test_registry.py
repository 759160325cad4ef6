"""Inspect finds the scorers and metrics by the names its logs record: ``fairjudge/...``."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytest.importorskip(
    "inspect_ai", reason="needs the inspect extra: pip install 'fairjudge[inspect]'"
)

from inspect_ai.util import registry_create, registry_info

import fairjudge.integrations.inspect as integration

ROOT = Path(__file__).resolve().parents[2]


def test_the_inspect_ai_entry_point_names_the_integration() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entry = project["project"]["entry-points"]["inspect_ai"]
    assert entry == {"fairjudge": integration.__name__}


def test_scorers_and_metrics_resolve_by_their_registry_names() -> None:
    names = {
        registry_info(obj).name
        for obj in (integration.pairwise_scorer, integration.rubric_scorer,
                    integration.win_rate, integration.position_consistency)
    }  # fmt: skip
    assert names == {
        "fairjudge/pairwise_scorer", "fairjudge/rubric_scorer",
        "fairjudge/win_rate", "fairjudge/position_consistency",
    }  # fmt: skip
    made = registry_create("scorer", "fairjudge/pairwise_scorer", template="explain")
    assert registry_info(made).name == "fairjudge/pairwise_scorer"
    assert callable(registry_create("metric", "fairjudge/win_rate", seed=3))
