"""``fairjudge label`` and ``label-merge`` on the command line: exit codes and messages."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

from fairjudge.cli._app import COMMANDS
from fairjudge.io import LabelSheet, order_path
from tests.cli._invoke import invoke
from tests.cli_process import flat

LABELS_A = ["1", "2", "tie", "1", "2", "1", "2", "1"]
LABELS_B = ["1", "2", "tie", "2", "2", "1", "tie", "1"]


def write_pairs(path: Path, labels: list[str] | None = None) -> Path:
    rows = []
    for i in range(8):
        row = {"id": f"q{i}", "question": f"Question {i}?", "answer_1": f"short {i}",
               "answer_2": f"a longer answer {i}"}  # fmt: skip
        if labels is not None:
            row["human"] = labels[i]
        rows.append(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_both_commands_are_listed() -> None:
    assert COMMANDS["label"][0] == COMMANDS["label-merge"][0] == "fairjudge.cli._label"
    shown = invoke("--help").output
    assert "label-merge" in shown
    assert "Label pairs blind" in shown


def test_merge_reports_kappa_and_keeps_disagreements(tmp_path: Path) -> None:
    a = write_pairs(tmp_path / "a.jsonl", LABELS_A)
    b = write_pairs(tmp_path / "b.jsonl", LABELS_B)
    out = tmp_path / "merged.jsonl"
    result = invoke("label-merge", str(a), str(b), "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["both"] == 8
    assert report["agreed"] == 6
    assert [(d["id"], d["a"], d["b"]) for d in report["disagreements"]] == [
        ("q3", "1", "2"),
        ("q6", "2", "tie"),
    ]
    # A: 1 x4, 2 x3, tie x1; B: 1 x3, 2 x3, tie x2. (6/8 - 23/64) / (1 - 23/64) = 25/41.
    assert report["agreement"]["kappa"] == 25 / 41
    text = invoke("label-merge", str(a), str(b), "--out", str(out)).stdout
    assert "Cohen's kappa 0.610" in text
    assert "id q3 (line 4): A 1, B 2" in text


def test_a_third_labeller_settles_the_disagreements_then_calibrate_reads_it(
    tmp_path: Path,
) -> None:
    a = write_pairs(tmp_path / "a.jsonl", LABELS_A)
    b = write_pairs(tmp_path / "b.jsonl", LABELS_B)
    out = tmp_path / "merged.jsonl"
    assert invoke("label-merge", str(a), str(b), "--out", str(out)).exit_code == 0
    judge = ("--judge", "python:examples.judges:longer", "--json")
    refused = invoke("calibrate", str(out), *judge)
    assert refused.exit_code == 2  # two items unsettled: calibrate does not guess them
    assert "id 'q3'" in flat(refused.stderr)
    # `fairjudge label merged.jsonl` opens at the first unlabelled item: the disagreements.
    third = LabelSheet.open(out, seed=0)
    assert [i for i, label in enumerate(third.labels) if label is None] == [3, 6]
    third.set_shown(3, "tie")
    third.set_shown(6, "tie")
    calibrated = invoke("calibrate", str(out), *judge)
    assert calibrated.exit_code in (0, 3), calibrated.output
    assert json.loads(calibrated.stdout)["agreement"]["n"] == 8
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert (rows[3]["label_a"], rows[3]["label_b"], rows[3]["human"]) == ("1", "2", "tie")


def test_calibrate_refuses_unsettled_labels_even_with_human_scores(tmp_path: Path) -> None:
    """With a human_score on every item, the unsettled items were silently left out."""
    files = []
    for name, labels in (("a", LABELS_A), ("b", LABELS_B)):
        path = write_pairs(tmp_path / f"{name}.jsonl", labels)
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
        path.write_text("".join(json.dumps({**r, "human_score": 1.0}) + "\n" for r in rows))
        files.append(str(path))
    out = tmp_path / "merged.jsonl"
    assert invoke("label-merge", *files, "--out", str(out)).exit_code == 0
    refused = invoke("calibrate", str(out), "--judge", "python:examples.judges:longer")
    assert refused.exit_code == 2, refused.output
    assert "2 of 8 item(s) have no 'human' label (first: id 'q3')" in flat(refused.stderr)


def test_merge_refuses_to_write_over_an_input(tmp_path: Path) -> None:
    a = write_pairs(tmp_path / "a.jsonl", LABELS_A)
    b = write_pairs(tmp_path / "b.jsonl", LABELS_B)
    before = a.read_bytes()
    result = invoke("label-merge", str(a), str(b), "--out", str(a))
    assert result.exit_code == 2
    assert "--out" in flat(result.stderr)
    assert a.read_bytes() == before


def test_merge_of_other_items_names_the_file_and_line(tmp_path: Path) -> None:
    a = write_pairs(tmp_path / "a.jsonl", LABELS_A)
    b = write_pairs(tmp_path / "b.jsonl", LABELS_B)
    lines = b.read_text("utf-8").splitlines()
    lines[4] = lines[4].replace("Question 4?", "Another question?")
    b.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke("label-merge", str(a), str(b), "--out", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 2
    assert f"{b}:5" in flat(result.stderr)
    assert "question differs from line 5" in flat(result.stderr)


def test_label_refuses_bad_input_before_serving(tmp_path: Path) -> None:
    parquet = tmp_path / "p.parquet"
    parquet.write_bytes(b"PAR1")
    result = invoke("label", str(parquet), "--no-open")
    assert result.exit_code == 2
    assert "JSON Lines (.jsonl) or CSV" in flat(result.stderr)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": "q", "answer_1": "a"}\n', encoding="utf-8")
    result = invoke("label", str(broken), "--no-open")
    assert result.exit_code == 2
    assert f"{broken}:1" in flat(result.stderr)


def test_label_offers_no_flag_it_does_not_take(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": "q", "answer_1": "a"}\n' * 3, encoding="utf-8")
    result = invoke("label", str(broken), "--no-open")
    assert result.exit_code == 2
    said = flat(result.stderr)
    assert "3 invalid rows; fix them" in said
    assert "--skip-invalid" not in said  # label has no such flag: every row is shown


def test_label_never_writes_labels_over_the_files_own_columns(tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "p.jsonl")
    before = path.read_bytes()
    for column in ("question", "answer_1", "answer_2", "id"):
        result = invoke("label", str(path), "--human-col", column, "--no-open")
        assert result.exit_code == 2, result.output
        said = flat(result.stderr)
        assert f"--human-col {column} is the file's {column} column" in said
        assert "--skip-invalid" not in said
    assert path.read_bytes() == before


def test_label_refuses_another_seed_than_the_recorded_one(tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "p.jsonl")
    LabelSheet.open(path, seed=12)
    result = invoke("label", str(path), "--seed", "13", "--no-open")
    assert result.exit_code == 2
    assert "--seed 13 differs from the seed 12" in flat(result.stderr)


def test_label_on_a_port_in_use_says_so(tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "p.jsonl")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = invoke("label", str(path), "--port", str(port), "--no-open")
    assert result.exit_code == 2
    assert f"--port {port} is in use" in flat(result.stderr)
    assert not order_path(path).exists()


def test_a_refused_port_leaves_no_order_file_to_block_the_rerun(tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "p.jsonl")
    result = invoke("label", str(path), "--port", "70000", "--seed", "3", "--no-open")
    assert result.exit_code == 2
    assert "--port 70000 is not a port" in flat(result.stderr)
    assert not order_path(path).exists()
    assert [p.name for p in tmp_path.iterdir()] == ["p.jsonl"]


def test_rubric_options_fit_the_file(tmp_path: Path) -> None:
    pairs = write_pairs(tmp_path / "p.jsonl")
    result = invoke("label", str(pairs), "--rubric", "production", "--no-open")
    assert result.exit_code == 2
    assert "--rubric applies to files of single answers" in flat(result.stderr)
    single = tmp_path / "s.jsonl"
    single.write_text('{"question": "q", "answer": "a"}\n', encoding="utf-8")
    result = invoke("label", str(single), "--human-col", "mine", "--no-open")
    assert result.exit_code == 2
    assert "--human-col applies to pairs" in flat(result.stderr)
    result = invoke("label", str(single), "--rubric", "no-such-rubric", "--no-open")
    assert result.exit_code == 2
    assert "no-such-rubric" in flat(result.stderr)


def test_out_of_range_numbers_are_refused_naming_the_flag(tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "p.jsonl", LABELS_A)
    result = invoke("label", str(path), "--port", "70000", "--no-open")
    assert result.exit_code == 2
    assert "--port 70000 is not a port" in flat(result.stderr)
    result = invoke("label-merge", str(path), str(path), "--out", str(tmp_path / "m.jsonl"),
                    "--bootstrap", "0")  # fmt: skip
    assert result.exit_code == 2
    assert "--bootstrap must be >= 1; got 0" in flat(result.stderr)
    assert not (tmp_path / "m.jsonl").exists()


def test_label_json_prints_the_address_and_progress(tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "p.jsonl", LABELS_A)
    code = "from fairjudge.cli import main; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "label", str(path), "--no-open", "--json", "--seed", "3"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()
    assert started["url"].startswith("http://127.0.0.1:")
    assert started["seed"] == 3
    assert (started["labelled"], started["items"]) == (8, 8)
    assert started["order_file"] == f"{path}.label.json"


def test_calibrate_on_unsettled_labels_points_to_label(tmp_path: Path) -> None:
    a = write_pairs(tmp_path / "a.jsonl", LABELS_A)
    b = write_pairs(tmp_path / "b.jsonl", LABELS_B)
    out = tmp_path / "merged.jsonl"
    assert invoke("label-merge", str(a), str(b), "--out", str(out)).exit_code == 0
    refused = invoke("calibrate", str(out), "--judge", "python:examples.judges:longer")
    assert refused.exit_code == 2
    assert flat(refused.stderr).endswith(
        "calibration needs a human label on every item; label them with fairjudge label "
        "FILE, which opens at the first unlabelled item"
    )


def test_calibrate_on_unsettled_scores_points_to_label_with_the_rubric(tmp_path: Path) -> None:
    files = []
    for name, scores in (("a", [3, 4, 2, 5]), ("b", [3, 4, 4, 5])):
        rows = [{"id": f"q{i}", "question": "Q?", "answer": "a" * (i + 1), "human_accuracy": x}
                for i, x in enumerate(scores)]  # fmt: skip
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        files.append(str(path))
    out = tmp_path / "merged.jsonl"
    assert invoke("label-merge", *files, "--out", str(out)).exit_code == 0
    refused = invoke("calibrate", str(out), "--judge", "python:fairjudge.examples.judges:scorer")
    assert refused.exit_code == 2
    assert flat(refused.stderr).endswith(
        "1 item(s) have no human_<dimension> score (first: id 'q2'); calibration needs a human "
        "score on every item; score them with fairjudge label FILE [--rubric NAME], on the "
        "rubric the others were scored on"
    )
