"""Two labellers' rubric scores merged: per-dimension agreement, every disagreement kept."""

from __future__ import annotations

import csv
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from scipy.stats import kendalltau, spearmanr

from fairjudge._errors import ConfigError, InputError
from fairjudge.audit import merge_labels, merge_score_labels
from fairjudge.io import load_score_items
from fairjudge.prompts import get_rubric

DIMS = ("accuracy", "relevance", "usefulness")  # the default rubric's, on 1-5

# (accuracy, relevance, usefulness) per answer; None: not scored.
A = [(1, 4, 3), (2, 4, 2), (3, 2, 3), (3, 2, 1), (5, 5, 5), (1, 2, 1), (4, 3, 4), (3, 3, None)]
B = [(1, 4, 3), (2, 3, 2), (3, 3, 3), (2, 1, 1), (4, 5, 5), (2, 2, 2), (4, 3, 4), (None, 3, 3)]


def sheet(path: Path, scores: list[tuple[int | None, ...]], **extra: object) -> Path:
    rows = []
    for i, row_scores in enumerate(scores):
        row: dict[str, object] = {"id": f"q{i}", "question": f"Q{i % 4}?", "answer": f"ans {i}",
                                  **extra}  # fmt: skip
        for dim, score in zip(DIMS, row_scores, strict=False):
            if score is not None:
                row["human_" + dim] = score
        rows.append(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def rows_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def pair(tmp_path: Path, a=A, b=B) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    return sheet(tmp_path / "a.jsonl", a), sheet(tmp_path / "b.jsonl", b)


def test_alpha_is_the_hand_computed_figure_and_the_correlations_scipys(tmp_path: Path) -> None:
    # Four answers: (1,1), (2,2), (3,3), (3,2). Values 1 x2, 2 x3, 3 x3 (n = 8); ordinal
    # distances d(1,2) = (5/2)^2, d(2,3) = 3^2, d(1,3) = (8 - 5/2)^2. Observed: 2 * 9;
    # expected: 2 * (6 * 6.25 + 6 * 30.25 + 9 * 9) = 600; alpha = 1 - 7 * 18 / 600 = 0.79.
    xs, ys = [1, 2, 3, 3], [1, 2, 3, 2]
    a, b = pair(tmp_path, [(x,) for x in xs], [(y,) for y in ys])
    merged = merge_score_labels(a, b, tmp_path / "m.jsonl", n_resamples=300, seed=7)
    (dim,) = merged.dimensions
    assert dim.dimension == "accuracy"
    assert dim.alpha is not None
    assert dim.alpha.alpha == pytest.approx(0.79)
    assert dim.alpha.metric == "ordinal"
    assert dim.correlation is not None
    assert dim.correlation.spearman == pytest.approx(spearmanr(xs, ys).statistic)
    assert dim.correlation.kendall == pytest.approx(kendalltau(xs, ys).statistic)
    assert (dim.both, dim.agreed, dim.exact, dim.only_one) == (4, 3, 3, 0)
    assert dim.mean_difference == pytest.approx(0.25)
    # The bootstrap takes the seed and resamples given, clustered by question.
    assert (dim.alpha.seed, dim.alpha.n_resamples, dim.alpha.n_questions) == (7, 300, 4)
    again = merge_score_labels(a, b, tmp_path / "m2.jsonl", n_resamples=300, seed=7)
    assert again.dimensions[0].alpha.ci == dim.alpha.ci  # type: ignore[union-attr]


def test_the_merged_file_keeps_both_scores_and_only_agreed_ones_in_human(tmp_path: Path) -> None:
    a, b = pair(tmp_path)
    out = tmp_path / "merged.jsonl"
    merged = merge_score_labels(a, b, out, n_resamples=100)
    assert merged.items == 8
    assert [d.dimension for d in merged.dimensions] == list(DIMS)
    accuracy = merged.dimensions[0]
    assert (accuracy.both, accuracy.agreed, accuracy.only_one) == (7, 4, 1)
    assert [(d.id, d.line, d.dimension, d.a, d.b) for d in merged.disagreements] == [
        ("q1", 2, "relevance", 4, 3),
        ("q2", 3, "relevance", 2, 3),
        ("q3", 4, "accuracy", 3, 2),
        ("q3", 4, "relevance", 2, 1),
        ("q4", 5, "accuracy", 5, 4),
        ("q5", 6, "accuracy", 1, 2),
        ("q5", 6, "usefulness", 1, 2),
    ]
    rows = rows_of(out)
    assert rows[3]["human_accuracy"] is None  # 3 against 2: left for a third person
    assert (rows[3]["accuracy_a"], rows[3]["accuracy_b"], rows[3]["accuracy_agree"]) == (
        3,
        2,
        False,
    )
    assert (rows[0]["human_relevance"], rows[0]["relevance_agree"]) == (4, True)
    assert (rows[7]["accuracy_a"], rows[7]["accuracy_b"], rows[7]["accuracy_agree"]) == (
        3,
        None,
        None,
    )
    assert rows[7]["human_accuracy"] is None  # one labeller's score is not an agreed one
    # calibrate --rubric reads the merged file: the agreed scores, nothing else.
    loaded = load_score_items(out, dimensions=DIMS, scale=(1, 5)).items
    expected = [
        {d: float(x) for d, x, y in zip(DIMS, ra, rb, strict=True) if x is not None and x == y}
        for ra, rb in zip(A, B, strict=True)
    ]
    assert [dict(item.human) for item in loaded] == expected
    text = merged.summary()
    assert "accuracy: 7 scored by both, 4 agree, 3 disagree, 1 scored by one only" in text
    assert "disagree: id q3 (line 4) accuracy: A 3, B 2" in text
    report = merged.to_dict()
    assert report["input"] == "pointwise"
    assert report["dimensions"][0]["alpha"]["metric"] == "ordinal"
    assert "passed" not in report["dimensions"][0]["correlation"]  # no gate on labellers


def test_tolerance_agrees_near_scores_and_merges_them_to_their_mean(tmp_path: Path) -> None:
    a, b = pair(tmp_path)
    out = tmp_path / "merged.jsonl"
    strict = merge_score_labels(a, b, tmp_path / "strict.jsonl", n_resamples=50)
    near = merge_score_labels(a, b, out, tolerance=1, n_resamples=50)
    assert len(strict.disagreements) == 7
    assert near.disagreements == ()  # every difference here is one point
    assert [d.agreed for d in near.dimensions] == [7, 8, 7]
    assert [d.exact for d in near.dimensions] == [d.agreed for d in strict.dimensions]
    rows = rows_of(out)
    assert (rows[3]["human_accuracy"], rows[3]["accuracy_agree"]) == (2.5, True)
    assert rows[0]["human_accuracy"] == 1  # equal scores stay as given
    # The figures do not depend on the tolerance: they are computed on the raw scores.
    assert near.dimensions[0].alpha == strict.dimensions[0].alpha
    assert "7 within 1 (4 the same score)" in near.summary()
    loaded = load_score_items(out, dimensions=DIMS, scale=(1, 5)).items
    assert loaded[3].human["accuracy"] == 2.5


@pytest.mark.parametrize("tolerance", [-1, float("nan"), 4, True])
def test_a_tolerance_off_the_scale_is_refused(tmp_path: Path, tolerance: float) -> None:
    a, b = pair(tmp_path)
    with pytest.raises(ConfigError, match="tolerance"):
        merge_score_labels(a, b, tmp_path / "m.jsonl", tolerance=tolerance)
    assert not (tmp_path / "m.jsonl").exists()


def test_a_csv_merge_has_every_column(tmp_path: Path) -> None:
    a, b = pair(tmp_path)
    out = tmp_path / "merged.csv"
    merge_score_labels(a, b, out, n_resamples=50)
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    added = [c for d in DIMS for c in (f"{d}_a", f"{d}_b", f"{d}_agree")]
    assert list(rows[0]) == ["id", "question", "answer", *[f"human_{d}" for d in DIMS], *added]
    assert (rows[3]["human_accuracy"], rows[3]["accuracy_a"], rows[3]["accuracy_b"]) == (
        "",
        "3",
        "2",
    )
    assert load_score_items(out, dimensions=DIMS, scale=(1, 5)).items[0].human["accuracy"] == 1


def test_a_labeller_who_has_not_started_merges_with_nothing_to_compare(tmp_path: Path) -> None:
    a, b = pair(tmp_path, A, [()] * len(A))
    merged = merge_score_labels(a, b, tmp_path / "m.jsonl", n_resamples=50)
    assert [(d.both, d.only_one, d.alpha) for d in merged.dimensions] == [
        (0, 8, None),
        (0, 8, None),
        (0, 7, None),
    ]
    assert "no answer was scored by both" in merged.dimensions[0].skipped["agreement"]
    assert all(r["human_accuracy"] is None for r in rows_of(tmp_path / "m.jsonl"))


def test_too_few_or_constant_scores_say_why_a_figure_is_missing(tmp_path: Path) -> None:
    a, b = pair(tmp_path, [(3,), (3,), (3,)], [(3,), (3,), (3,)])
    (dim,) = merge_score_labels(a, b, tmp_path / "m.jsonl", n_resamples=50).dimensions
    assert dim.alpha is None
    assert dim.correlation is None
    assert "every score is the same" in dim.skipped["alpha"]
    assert "labeller A's scores are all equal" in dim.skipped["correlation"]
    a, b = pair(tmp_path, [(3,), (2,)], [(3,), (1,)])
    (dim,) = merge_score_labels(a, b, tmp_path / "m.jsonl", n_resamples=50).dimensions
    assert "2 answer(s) scored by both; it needs at least 3" in dim.skipped["correlation"]


def test_answers_of_several_systems_are_matched_by_id_and_system(tmp_path: Path) -> None:
    def write(path: Path, scores: dict[str, int]) -> Path:
        rows = [{"id": "q1", "system": s, "question": "Q?", "answer": f"from {s}",
                 "human_accuracy": v} for s, v in scores.items()]  # fmt: skip
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path

    a = write(tmp_path / "a.jsonl", {"x": 5, "y": 2, "z": 3})
    b = write(tmp_path / "b.jsonl", {"z": 3, "x": 4, "y": 2})  # another order
    merged = merge_score_labels(a, b, tmp_path / "m.jsonl", n_resamples=50)
    assert [(d.id, d.system, d.a, d.b) for d in merged.disagreements] == [("q1", "x", 5, 4)]
    assert "id q1 (x) (line 1) accuracy: A 5, B 4" in merged.summary()


def test_files_of_other_answers_are_refused_naming_the_line(tmp_path: Path) -> None:
    a, b = pair(tmp_path)
    lines = b.read_text("utf-8").splitlines()
    lines[2] = lines[2].replace("ans 2", "another answer")
    b.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="answer differs from line 3") as caught:
        merge_score_labels(a, b, tmp_path / "m.jsonl")
    assert f"{b}:3" in str(caught.value)
    short = sheet(tmp_path / "c.jsonl", A[:5])
    with pytest.raises(InputError, match="id 'q5' is not in"):
        merge_score_labels(a, short, tmp_path / "m.jsonl")
    assert not (tmp_path / "m.jsonl").exists()


def test_a_score_off_the_scale_names_the_file_line_and_rubric(tmp_path: Path) -> None:
    bad = list(B)
    bad[4] = (4, 7, 5)
    a, b = pair(tmp_path, A, bad)
    with pytest.raises(InputError, match="outside the rubric's scale 1-5") as caught:
        merge_score_labels(a, b, tmp_path / "m.jsonl")
    assert f"{b}:5" in str(caught.value)
    assert "rubric" in caught.value.params
    # The same scores on a 1-10 rubric's scale merge.
    ten_scale = replace(get_rubric("production"), scale=(1, 10))
    merged = merge_score_labels(a, b, tmp_path / "m.jsonl", rubric=ten_scale, n_resamples=50)
    assert merged.scale == (1, 10)


def test_files_scored_on_other_rubrics_or_dimensions_are_refused(tmp_path: Path) -> None:
    a, b = pair(tmp_path)
    rows = rows_of(b)
    for row in rows:
        row["human_clarity"] = row.pop("human_relevance", None)
    b.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(InputError, match="'human_clarity' names no dimension of the rubric"):
        merge_score_labels(a, b, tmp_path / "m.jsonl")
    only_two = sheet(tmp_path / "c.jsonl", [(x, None, z) for x, _, z in B])
    with pytest.raises(InputError, match="different dimensions") as caught:
        merge_score_labels(a, only_two, tmp_path / "m.jsonl")
    assert "scores dimension 'relevance' on 8 answer(s)" in str(caught.value)
    assert not (tmp_path / "m.jsonl").exists()


def test_pairs_and_score_sheets_are_not_merged_together(tmp_path: Path) -> None:
    a, _ = pair(tmp_path)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "q0", "question": "Q?", "answer_1": "x",
                                 "answer_2": "y", "human": "1"}) + "\n")  # fmt: skip
    for x, y in ((a, pairs), (pairs, a)):
        with pytest.raises(InputError, match="holds pairs"):
            merge_score_labels(x, y, tmp_path / "m.jsonl")
        with pytest.raises(InputError, match="holds pairs"):
            merge_labels(x, y, tmp_path / "m.jsonl")
    b = sheet(tmp_path / "b.jsonl", B)
    with pytest.raises(InputError, match="merge them with merge_score_labels"):
        merge_labels(a, b, tmp_path / "m.jsonl")


def test_an_input_is_never_the_output(tmp_path: Path) -> None:
    a, b = pair(tmp_path)
    before = b.read_bytes()
    with pytest.raises(ConfigError, match="is the input file") as caught:
        merge_score_labels(a, b, b)
    assert caught.value.params == ("out",)
    with pytest.raises(ConfigError, match="is a folder"):
        merge_labels(a, b, tmp_path)
    assert b.read_bytes() == before
    with pytest.raises(InputError, match="same file"):
        merge_score_labels(a, a, tmp_path / "m.jsonl")


def test_a_merged_file_is_not_merged_again(tmp_path: Path) -> None:
    a, b = pair(tmp_path)
    merge_score_labels(a, b, tmp_path / "m.jsonl", n_resamples=50)
    with pytest.raises(InputError, match="the file already has column 'accuracy_a'"):
        merge_score_labels(tmp_path / "m.jsonl", b, tmp_path / "m2.jsonl")


def test_a_crash_while_writing_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = pair(tmp_path)
    out = tmp_path / "merged.jsonl"
    out.write_text("the previous merge\n", encoding="utf-8")

    def killed(src: str, dst: str) -> None:
        raise KeyboardInterrupt  # the process stopped between writing and renaming

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        merge_score_labels(a, b, out, n_resamples=50)
    assert out.read_text("utf-8") == "the previous merge\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "merged.jsonl"]


def test_a_bad_bootstrap_option_is_refused_before_writing(tmp_path: Path) -> None:
    a, b = pair(tmp_path)
    with pytest.raises(ConfigError, match="n_resamples"):
        merge_score_labels(a, b, tmp_path / "m.jsonl", n_resamples=0)
    assert not (tmp_path / "m.jsonl").exists()


def test_labellers_below_calibrates_bar_are_told_so(tmp_path: Path) -> None:
    # Ranks differ by -2, 1, -1, 2, 0: rho = 1 - 6 * 10 / (5 * 24) = 0.5, below 0.7.
    a, b = pair(tmp_path, [(x,) for x in (1, 2, 3, 4, 5)], [(y,) for y in (3, 1, 4, 2, 5)])
    merged = merge_score_labels(a, b, tmp_path / "m.jsonl", n_resamples=50)
    assert merged.dimensions[0].correlation is not None
    assert merged.dimensions[0].correlation.spearman == pytest.approx(0.5)
    assert "Spearman is below 0.7, what calibrate asks of a judge" in merged.summary()
    a, b = pair(tmp_path, [(x,) for x in (1, 2, 3, 4, 5)], [(y,) for y in (1, 2, 3, 5, 4)])
    assert "below 0.7" not in merge_score_labels(a, b, tmp_path / "m.jsonl").summary()
