"""``merge_labels`` refuses a bootstrap of no resamples before it writes anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge._errors import ConfigError
from fairjudge.audit import merge_labels
from tests.audit.test_label_merge import A, B, sheet


@pytest.mark.parametrize(
    ("n_resamples", "said"),
    [(0, ">= 1; got 0"), (-1, ">= 1; got -1"), (True, "an integer; got True"),
     (2.5, "an integer; got 2.5")],
)  # fmt: skip
def test_no_resamples_is_refused_before_the_merged_file_is_written(
    tmp_path: Path, n_resamples: object, said: str
) -> None:
    a, b = sheet(tmp_path / "a.jsonl", A), sheet(tmp_path / "b.jsonl", B)
    with pytest.raises(ConfigError) as caught:
        merge_labels(a, b, tmp_path / "m.jsonl", n_resamples=n_resamples)  # type: ignore[arg-type]
    assert str(caught.value) == f"n_resamples must be {said}"  # check_bootstrap's, the one check
    assert "n_resamples" in caught.value.params
    assert not (tmp_path / "m.jsonl").exists()
