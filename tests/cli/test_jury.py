"""``fairjudge jury``: the table, --json, --out, --jury files and the exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.out_file import out_records
from tests.server import JudgeServer

runner = CliRunner()
LONGER = "python:tests.judge_fixtures:longer"
ALWAYS_A = "python:tests.judge_fixtures:always_a"
ROWS = [
    {"id": "a", "question": "Capital of France?", "answer_1": "Paris.",
     "answer_2": "Lyon, surely.", "human": "1"},
    {"id": "b", "question": "2+2?", "answer_1": "4", "answer_2": "It is five.", "human": "1"},
    {"id": "c", "question": "Largest planet?", "answer_1": "Jupiter is largest.",
     "answer_2": "Mars", "human": "1"},
]  # fmt: skip


@pytest.fixture
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["jury", *args])
    return result.exit_code, result.stdout if "--json" in args else result.output


def test_table(items: Path) -> None:
    code, out = run(str(items), "--judge", LONGER, "--judge", LONGER, "--judge", ALWAYS_A)
    assert code == 0, out
    for text in ("win rate of model 1 (majority)", "Fleiss' kappa", "effective number of judges",
                 "members", "share of items with the same vote"):  # fmt: skip
        assert text in out


def test_json_and_out(items: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "jury.jsonl"
    code, out = run(
        str(items), "--judge", LONGER, "--judge", ALWAYS_A, "--weight", "2", "--weight", "1",
        "--json", "--out", str(out_file), "--bootstrap", "100",
    )  # fmt: skip
    assert code == 0, out
    summary = json.loads(out)
    # longer holds 2 of 3: its verdict (ans2 longer on a and b, ans1 on c) is the panel's.
    assert summary["win_rate"]["estimate"] == pytest.approx(1 / 3)
    assert [(m["name"], m["weight"]) for m in summary["members"]] == [
        (LONGER, 2.0),
        (ALWAYS_A, 1.0),
    ]
    assert summary["aggregation"] == "majority"
    # mean: longer's soft scores 0, 0, 1 (weight 2); always_a's 0.5 each (weight 1).
    assert summary["alternative_aggregations"]["mean"]["estimate"] == pytest.approx(7 / 18)
    assert [m["position_consistency"]["estimate"] for m in summary["members"]] == [1.0, 0.0]
    assert summary["members"][0]["human_agreement"]["s1"]["estimate"] == pytest.approx(1 / 3)
    assert summary["effective_judges"]["n_members"] == 2
    # the panel's calls are its Python members' own: 3 items x 2 orders x 2 members
    assert (summary["calls"]["made"], summary["calls"]["not_run"]) == (12, 0)
    records = out_records(out_file, "jury")
    assert [r["id"] for r in records] == ["a", "b", "c"]
    assert records[2]["outcome"] == "1"
    assert records[2]["members"][ALWAYS_A]["outcome"] == "tie"
    assert len(records[2]["members"][LONGER]["calls"]) == 2


def test_a_jury_file_with_model_members_and_a_free_rerun(
    openai_env: JudgeServer, items: Path, tmp_path: Path
) -> None:
    openai_env.configure(judge="longer")
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        f'aggregate = "mean"\n'
        f'[[member]]\njudge = "openai/judge-a"\nbase_url = "{openai_env.base_url}"\n'
        f'[[member]]\njudge = "openai/judge-b"\nweight = 2\n'
        f'[[member]]\njudge = "{LONGER}"\nname = "py"\n',
        encoding="utf-8",
    )
    store = str(tmp_path / "store.sqlite")
    args = (str(items), "--jury", str(jury_file), "--base-url", openai_env.base_url,
            "--store", store, "--json", "--quiet", "--allow-python-judges")  # fmt: skip
    code, out = run(*args)
    assert code == 0, out
    summary = json.loads(out)
    assert summary["aggregation"] == "mean"
    assert [m["name"] for m in summary["members"]] == ["openai/judge-a", "openai/judge-b", "py"]
    assert summary["calls"]["made"] == 18  # 12 model calls and the Python member's 6
    assert openai_env.count("requests") == 12
    code, out = run(*args)
    assert code == 0, out
    # the model calls come from the store; the undeclared Python member, never stored, again
    assert (json.loads(out)["calls"]["made"], json.loads(out)["calls"]["cached"]) == (6, 12)
    assert openai_env.count("requests") == 12


def test_the_budget_stops_the_panel_with_exit_5(
    openai_env: JudgeServer, items: Path, tmp_path: Path
) -> None:
    code, out = run(
        str(items), "--judge", "openai/a", "--judge", "openai/b", "--base-url",
        openai_env.base_url, "--store", str(tmp_path / "s.sqlite"), "--max-calls", "5",
        "--json", "--quiet",
    )  # fmt: skip
    assert code == 5, out
    assert json.loads(out)["partial"] is True
    assert openai_env.count("requests") == 5


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ((), "give the members"),
        (("--judge", LONGER), "at least two members"),
        (("--judge", LONGER, "--judge", LONGER, "--weight", "1"), "--weight was given 1"),
        (("--judge", LONGER, "--judge", LONGER, "--aggregate", "median"), "--aggregate"),
        (("--judge", LONGER, "--judge", "gpt4"), "unknown judge"),
        (("--judge", LONGER, "--judge", LONGER, "--html", "-"), "--html -: give a file name"),
        (("--judge", LONGER, "--judge", LONGER, "--tpm", "3"), "--tpm"),
        (("--judge", "openai/m", "--judge", "openai/n", "--template", "nope"), "unknown template"),
    ],
)
def test_usage_errors_exit_2_before_any_call(
    openai_env: JudgeServer, items: Path, extra: tuple[str, ...], message: str
) -> None:
    models = any(e.startswith("openai/") for e in extra)
    where = ("--base-url", openai_env.base_url) if models else ()
    code, out = run(str(items), *extra, *where, "--json")
    assert code == 2, out
    assert message in json.loads(out)["error"]["message"]
    assert openai_env.count("requests") == 0


def test_a_bad_jury_file_is_named(items: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[[member]]\njudge = "openai/x"\ncolour = "red"\n[[member]]\njudge = "openai/y"\n'
    )
    code, out = run(str(items), "--jury", str(bad), "--json")
    assert code == 2, out
    message = json.loads(out)["error"]["message"]
    assert str(bad) in message
    assert "member.0.colour" in message
    code, out = run(str(items), "--jury", str(bad), "--judge", LONGER, "--json")
    assert code == 2, out
    assert "give the members with --judge" in json.loads(out)["error"]["message"]


def test_out_reads_back_as_one_replayed_judge_and_as_a_replayed_panel(
    items: Path, tmp_path: Path
) -> None:
    out_file = tmp_path / "jury.jsonl"
    code, out = run(
        str(items), "--judge", LONGER, "--judge", ALWAYS_A, "--weight", "2", "--weight", "1",
        "--json", "--out", str(out_file), "--bootstrap", "100",
    )  # fmt: skip
    assert code == 0, out
    first = json.loads(out)
    record = out_records(out_file, "jury")[0]
    assert (record["question"], record["answer_1"]) == ("Capital of France?", "Paris.")
    assert record["members"][LONGER]["weight"] == 2.0
    # The panel's reply to each call: longer holds 2 of 3 of the weight, so it decides.
    longer_calls = record["members"][LONGER]["calls"]
    assert [c["verdict"] for c in record["calls"]] == [c["verdict"] for c in longer_calls]
    assert [c["order"] for c in record["calls"]] == [c["order"] for c in longer_calls]
    assert record["calls"][0]["members"] == {
        LONGER: record["members"][LONGER]["calls"][0]["verdict"],
        ALWAYS_A: "A",
    }
    # replay:FILE is the panel as one judge, debiased per call.
    result = runner.invoke(app, ["compare", str(items), "--judge", f"replay:{out_file}",
                                 "--json", "--bootstrap", "100"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["win_rate"]["estimate"] == pytest.approx(1 / 3)
    # --jury FILE.jsonl seats every member again: the same verdicts, at no cost.
    code, out = run(str(items), "--jury", str(out_file), "--json", "--bootstrap", "100")
    assert code == 0, out
    again = json.loads(out)
    for key in ("win_rate", "alternative_aggregations", "fleiss_kappa", "effective_judges",
                "agreement_matrix", "aggregation"):  # fmt: skip
        assert again[key] == first[key], key
    assert [(m["name"], m["weight"]) for m in again["members"]] == [
        (LONGER, 2.0),
        (ALWAYS_A, 1.0),
    ]
    assert again["members"][0]["win_rate"] == first["members"][0]["win_rate"]
    code, out = run(str(items), "--jury", str(out_file), "--judge", LONGER, "--json")
    assert code == 2, out
    # An unknown rule, for the replayed panel as for members given by flag: the
    # library's check (fairjudge.compare(judges=..., aggregate=...)), worded as the flag.
    rule = "--aggregate must be one of majority, mean; got 'median'"
    for panel in (["--jury", str(out_file)], ["--judge", LONGER, "--judge", ALWAYS_A]):
        code, out = run(str(items), *panel, "--aggregate", "median", "--json")
        assert code == 2, out
        assert json.loads(out)["error"]["message"] == rule
    # --out naming the recording being replayed would destroy it: refused, file intact.
    recording = out_file.read_bytes()
    code, out = run(str(items), "--jury", str(out_file), "--json", "--out", str(out_file))
    assert code == 2, out
    assert "is the input file" in json.loads(out)["error"]["message"]
    assert out_file.read_bytes() == recording
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n', encoding="utf-8")
    code, out = run(str(items), "--jury", str(bad), "--json")
    assert code == 2, out
    assert "line 1" in json.loads(out)["error"]["message"]


def test_the_table_shows_calls_by_member_and_the_effective_numbers_interval(items: Path) -> None:
    code, out = run(str(items), "--judge", LONGER, "--judge", ALWAYS_A, "--bootstrap", "100")
    assert code == 0, out
    assert "calls by member" in out
    code, out = run(str(items), "--judge", LONGER, "--judge", ALWAYS_A, "--json")
    summary = json.loads(out)
    assert summary["effective_judges"]["ci"]["level"] == 0.95
    # Python members: their calls are made on the engine, and add up to the panel's
    assert [m["usage"]["made"] for m in summary["members"]] == [6, 6]
    assert summary["calls"]["made"] == 12
    assert summary["members"][0]["usage"]["calls"] == 6


def test_an_agreement_no_item_measures_reads_n_a_with_the_reason_not_nan(items: Path) -> None:
    # A member that never gives a verdict leaves no item resolved by every member.
    judges = ("--judge", LONGER, "--judge", "python:tests.judge_fixtures:garbage")
    code, out = run(str(items), *judges)
    assert code == 4, out  # every item unresolved
    # One member of two gave verdicts: the line says the panel's rule, not "from every member"
    line = ("3 of 3 items lack a verdict from at least one member, and the panel decides an "
            "item only when every member does (100% > --max-unresolved 0.2)")  # fmt: skip
    assert line in " ".join(out.split())
    matrix = " ".join(out[out.index("share of items with the same vote") :].split())
    assert "│ #1 │ n/a │ n/a │" in matrix
    assert "n/a: no item was resolved by every member" in matrix
    assert "nan" not in out.split()
    code, out = run(str(items), *judges, "--json")
    assert json.loads(out)["agreement_matrix"] == [[None, None], [None, None]]


def test_a_members_template_needing_references_is_refused_before_any_call(
    items: Path, openai_env: JudgeServer
) -> None:
    code, out = run(str(items), "--judge", "openai/m", "--judge", LONGER, "--template",
                    "reference", "--base-url", openai_env.base_url)  # fmt: skip
    assert code == 2, out
    assert (
        "member 'openai/m': --template 'reference' needs a reference, but 3 item(s) lack one "
        "(first: id 'a'); add a 'reference' column or give that member another --template"
    ) in " ".join(out.split())
    assert openai_env.count("requests") == 0
