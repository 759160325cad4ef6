"""``fairjudge label-merge`` on two labellers' rubric score sheets: output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from fairjudge.io import ScoreSheet
from tests.cli._invoke import invoke
from tests.cli_process import flat

# accuracy and usefulness per answer (the answer's leading digit is its accuracy level).
A = [(1, 5), (2, 4), (3, 3), (4, 2), (5, 1), (2, 4), (3, 3), (4, 2)]
B = [(1, 5), (3, 4), (3, 3), (4, 1), (5, 1), (1, 4), (3, 3), (4, 2)]


def write_scores(path: Path, scores: list[tuple[int, int]]) -> Path:
    rows = [
        {"id": f"q{i}", "question": f"Question {i % 4}?", "answer": f"{i % 5 + 1} answer {i}",
         "human_accuracy": acc, "human_usefulness": use}
        for i, (acc, use) in enumerate(scores)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def files(tmp_path: Path) -> tuple[str, str, str]:
    a = write_scores(tmp_path / "alice.jsonl", A)
    b = write_scores(tmp_path / "bob.jsonl", B)
    return str(a), str(b), str(tmp_path / "merged.jsonl")


def test_json_and_text_report_each_dimension(tmp_path: Path) -> None:
    a, b, out = files(tmp_path)
    result = invoke("label-merge", a, b, "--out", out, "--json", "--bootstrap", "200",
                    "--seed", "3")  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["input"], report["rubric"], report["tolerance"]) == (
        "pointwise",
        "production@1",
        0.0,
    )
    dims = {d["dimension"]: d for d in report["dimensions"]}
    assert list(dims) == ["accuracy", "usefulness"]
    assert (dims["accuracy"]["both"], dims["accuracy"]["agreed"]) == (8, 6)
    assert (dims["usefulness"]["both"], dims["usefulness"]["agreed"]) == (8, 7)
    assert dims["accuracy"]["alpha"]["seed"] == 3
    assert dims["accuracy"]["alpha"]["n_resamples"] == 200
    assert dims["accuracy"]["correlation"]["spearman_ci"]["estimable"] is True
    assert [(d["id"], d["dimension"], d["a"], d["b"]) for d in report["disagreements"]] == [
        ("q1", "accuracy", 2, 3),
        ("q3", "usefulness", 2, 1),
        ("q5", "accuracy", 2, 1),
    ]
    assert "13 agreed scores in its human_<dimension> columns; 3 to settle" in flat(result.stderr)
    text = invoke("label-merge", a, b, "--out", out, "--bootstrap", "200").stdout
    assert "accuracy: 8 scored by both, 6 agree, 2 disagree, 0 scored by one only" in text
    assert "Krippendorff's alpha (ordinal)" in text
    assert "disagree: id q1 (line 2) accuracy: A 2, B 3" in text


def test_tolerance_merges_near_scores_into_a_csv(tmp_path: Path) -> None:
    a, b, _ = files(tmp_path)
    out = tmp_path / "merged.csv"
    result = invoke("label-merge", a, b, "--out", str(out), "--tolerance", "1", "--json",
                    "--bootstrap", "50")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["disagreements"] == []
    lines = out.read_text("utf-8").splitlines()
    assert lines[0].split(",")[3:6] == ["human_accuracy", "human_usefulness", "accuracy_a"]
    assert lines[2].split(",")[3] == "2.5"  # 2 and 3, within 1: their mean


def test_a_third_labeller_settles_then_calibrate_reads_the_file(tmp_path: Path) -> None:
    a, b, out = files(tmp_path)
    assert invoke("label-merge", a, b, "--out", out, "--bootstrap", "50").exit_code == 0
    third = ScoreSheet.open(out, dimensions=("accuracy", "relevance", "usefulness"),
                            scale=(1, 5), seed=0)  # fmt: skip
    assert [i for i in range(8) if "accuracy" not in third.scores[i]] == [1, 5]
    third.set_score(1, "accuracy", 2)
    third.set_score(5, "accuracy", 2)
    third.set_score(3, "usefulness", 2)
    result = invoke("calibrate", out, "--judge", "python:tests.scorers:digits", "--json",
                    "--bootstrap", "50")  # fmt: skip
    assert result.exit_code in (0, 3), result.output
    dims = {d["dimension"]: d["n"] for d in json.loads(result.stdout)["dimensions"]}
    assert dims == {"accuracy": 8, "usefulness": 8}
    row = json.loads(Path(out).read_text("utf-8").splitlines()[1])
    assert (row["accuracy_a"], row["accuracy_b"], row["human_accuracy"]) == (2, 3, 2)


def test_flags_of_the_other_kind_and_bad_values_exit_2_naming_the_flag(tmp_path: Path) -> None:
    a, b, out = files(tmp_path)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "q0", "question": "Q?", "answer_1": "x",
                                 "answer_2": "y", "human": "1"}) + "\n")  # fmt: skip
    pairs_b = tmp_path / "pairs_b.jsonl"
    pairs_b.write_text(pairs.read_text())
    cases = [
        # The library's check, worded as the flag (cli/_flags).
        (
            ("--tolerance", "4"),
            "--tolerance 4 spans rubric production's whole scale 1-5: every "
            "pair of scores would agree; give 0 (equal scores only) up to less than 4",
        ),
        (("--tolerance", "-1"), "--tolerance must be a number >= 0 (score points); got -1.0"),
        (
            ("--tolerance", "nan"),
            "--tolerance must be a finite number of score points, from 0 up "
            "to less than 4 (rubric production's scale 1-5); got nan",
        ),
        (
            ("--tolerance", "inf"),
            "--tolerance must be a finite number of score points, from 0 up "
            "to less than 4 (rubric production's scale 1-5); got inf",
        ),
        (("--human-col", "label"), "--human-col applies to pairs"),
        (("--rubric", "no-such-rubric"), "no-such-rubric"),
    ]
    for extra, said in cases:
        result = invoke("label-merge", a, b, "--out", out, *extra)
        assert result.exit_code == 2, (extra, result.output)
        assert said in flat(result.stderr), extra
    result = invoke("label-merge", str(pairs), str(pairs_b), "--out", out, "--tolerance", "1")
    assert result.exit_code == 2
    assert "--rubric and --tolerance apply to score sheets" in flat(result.stderr)
    assert not Path(out).exists()


def test_bad_files_exit_2_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    a, b, out = files(tmp_path)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "q0", "question": "Q?", "answer_1": "x",
                                 "answer_2": "y", "human": "1"}) + "\n")  # fmt: skip
    mixed = invoke("label-merge", a, str(pairs), "--out", out, "--json")
    assert mixed.exit_code == 2
    assert "holds pairs" in json.loads(mixed.stdout)["error"]["message"]

    off = write_scores(tmp_path / "off.jsonl", [*B[:4], (5, 7), *B[5:]])
    result = invoke("label-merge", a, str(off), "--out", out)
    assert result.exit_code == 2
    assert f"{off}:5" in flat(result.stderr)
    assert "outside the rubric's scale 1-5" in flat(result.stderr)
    assert "--rubric" in flat(result.stderr)

    other = write_scores(tmp_path / "other.jsonl", B)
    lines = other.read_text("utf-8").splitlines()
    lines[6] = lines[6].replace("answer 6", "answer six")
    other.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke("label-merge", a, str(other), "--out", out)
    assert result.exit_code == 2
    assert f"{other}:7" in flat(result.stderr)
    assert "answer differs from line 7" in flat(result.stderr)

    rows = [json.loads(line) for line in Path(b).read_text("utf-8").splitlines()]
    for row in rows:
        del row["human_usefulness"]
    Path(b).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = invoke("label-merge", a, b, "--out", out)
    assert result.exit_code == 2
    assert "scored on different dimensions" in flat(result.stderr)
    assert not Path(out).exists()

    before = Path(a).read_bytes()
    result = invoke("label-merge", a, b, "--out", a)
    assert result.exit_code == 2
    assert "--out" in flat(result.stderr)
    assert Path(a).read_bytes() == before
