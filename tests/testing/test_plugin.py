"""The plugin's settings, as pytest reads them: ini file, command line, marker, call.

Each run is a child pytest on a copy of the CI example, with a test file added that
writes the settings its fixture got, so what each source sets is read back exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.testing.suites import example_repo, outcome, run_pytest

pytestmark = pytest.mark.slow

SHOW = """
import json, os
import pytest


def _show(judge, name):
    s = judge.settings
    with open(os.environ["SHOW"], "a") as out:
        out.write(json.dumps({"test": name, "judge": s.judge, "store": str(s.store),
                              "concurrency": s.concurrency, "seed": s.seed, "mode": s.mode,
                              "report_dir": str(s.report_dir)}) + "\\n")


def test_suite(fairjudge_judge):
    _show(fairjudge_judge, "suite")


@pytest.mark.fairjudge(seed=11, concurrency=2, store="mine.sqlite")
def test_marked(fairjudge_judge):
    _show(fairjudge_judge, "marked")
    _show(fairjudge_judge.configure(judge="python:release_judge:scores"), "configured")
"""


def shown(repo: Path, *args: str, passed: int = 2) -> dict[str, dict[str, object]]:
    (repo / "tests" / "test_show.py").write_text(SHOW, "utf-8")
    out = repo / "shown.jsonl"
    done = run_pytest(repo, "tests/test_show.py", *args, SHOW=str(out))
    assert outcome(done) == {"passed": passed}, done.stdout + done.stderr
    return {r["test"]: r for r in map(json.loads, out.read_text("utf-8").splitlines())}


def test_the_ini_file_the_command_line_the_marker_and_configure_each_set_settings(
    tmp_path: Path,
) -> None:
    repo = example_repo(tmp_path)
    ini = shown(repo)
    assert ini["suite"] == {
        "test": "suite", "judge": "python:release_judge:prefers_facts",
        "store": str(repo / ".fairjudge" / "store.sqlite"), "concurrency": 8, "seed": 7,
        "mode": "live", "report_dir": str(repo / ".fairjudge" / "pytest"),
    }  # fmt: skip
    assert (ini["marked"]["seed"], ini["marked"]["concurrency"]) == (11, 2)
    assert ini["marked"]["store"] == str(repo / "mine.sqlite")
    assert ini["configured"]["judge"] == "python:release_judge:scores"
    assert ini["configured"]["seed"] == 11
    (repo / "shown.jsonl").unlink()
    cli = shown(
        repo,
        *("--fairjudge-judge", "python:release_judge:scores", "--fairjudge-seed", "3"),
        *("--fairjudge-store", "other.sqlite", "--fairjudge-report-dir", "pages"),
    )
    assert (cli["suite"]["judge"], cli["suite"]["seed"]) == ("python:release_judge:scores", 3)
    assert cli["suite"]["store"] == str(repo / "other.sqlite")  # the current folder's
    assert cli["suite"]["report_dir"] == str(repo / "pages")
    assert cli["marked"]["seed"] == 11  # the test's own marker wins


MARKED = """
import os
import pytest


@pytest.mark.fairjudge(store=os.environ["MARKED_STORE"])
def test_marked(fairjudge_judge):
    with open(os.environ["SHOW"], "a") as out:
        out.write(str(fairjudge_judge.settings.store) + "\\n")
"""


def marked(repo: Path, store: str, *args: str) -> tuple[str, str]:
    """The store a test marked ``store=STORE`` gets (or ``""``), and pytest's output."""
    (repo / "tests" / "test_marked.py").write_text(MARKED, "utf-8")
    out = repo / "marked.txt"
    out.unlink(missing_ok=True)
    done = run_pytest(repo, "tests/test_marked.py", *args, SHOW=str(out), MARKED_STORE=store)
    got = out.read_text("utf-8").strip() if out.exists() else ""
    assert outcome(done) == ({"passed": 1} if got else {"error": 1}), done.stdout + done.stderr
    return got, done.stdout + done.stderr


def test_record_and_replay_refuse_a_markers_store_unless_it_is_the_recording(
    tmp_path: Path,
) -> None:
    repo = example_repo(tmp_path)
    replayed = shown(repo, "--fairjudge-replay", "-k", "test_suite", passed=1)
    assert replayed["suite"]["mode"] == "replay"
    copy = replayed["suite"]["store"]
    assert str(copy).endswith("/judge.sqlite")
    assert copy != str(repo / "recorded" / "judge.sqlite")  # a copy
    store, _ = marked(repo, "recorded/judge.sqlite", "--fairjudge-replay")  # the recording
    assert store.endswith("/judge.sqlite")
    assert store != str(repo / "recorded" / "judge.sqlite")  # served from the copy
    _, output = marked(repo, "mine.sqlite", "--fairjudge-replay")
    assert (
        f"fairjudge marker on tests/test_marked.py::test_marked: store="
        f"{str(repo / 'mine.sqlite')!r} cannot apply in replay mode: every call is answered "
        f"from the recording {repo / 'recorded' / 'judge.sqlite'} (fairjudge_recording); "
        "leave store= out, so the test records and replays with the rest of the suite, or "
        "set it to the recording"
    ) in " ".join(output.split())
    record = ("--fairjudge-record", "--fairjudge-recording", "new/rec.sqlite")
    assert marked(repo, "new/rec.sqlite", *record)[0] == str(repo / "new" / "rec.sqlite")
    _, output = marked(repo, "mine.sqlite", *record)
    assert "cannot apply in record mode: every call is kept in the recording" in output
    assert marked(repo, "mine.sqlite")[0] == str(repo / "mine.sqlite")  # live: its own store


def test_a_rerun_of_the_suite_makes_no_call(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    first = run_pytest(repo, CANDIDATE="ckpt-7")
    again = run_pytest(repo, CANDIDATE="ckpt-7")
    assert outcome(first) == outcome(again) == {"passed": 3}
    assert "fairjudge (live): 3 judged run(s): 59 calls made, 35 served from the store" in (
        first.stdout
    )
    assert "fairjudge (live): 3 judged run(s): 0 calls made, 94 served from the store" in (
        again.stdout
    )


@pytest.mark.parametrize(
    ("args", "ini", "expected"),
    [
        (["--fairjudge-record", "--fairjudge-replay"], "",
         "--fairjudge-record and --fairjudge-replay exclude each other"),
        (["--fairjudge-concurrency", "0"], "",
         "fairjudge: concurrency must be an integer >= 1; got 0 (--fairjudge-concurrency)"),
        ([], 'fairjudge_seed = "seven"',
         "fairjudge: seed must be an integer; got 'seven' (fairjudge_seed in pyproject.toml)"),
        (["--fairjudge-replay", "--fairjudge-recording", "none.sqlite"], "",
         "fairjudge: no recording at "),
        (["--fairjudge-replay", "--fairjudge-store", "other.sqlite"], "",
         "fairjudge: --fairjudge-store cannot apply with --fairjudge-replay: every call is "
         "answered from the recording "),
        (["--fairjudge-record", "--fairjudge-store", "other.sqlite"], "",
         "drop --fairjudge-store, or name that file with --fairjudge-recording"),
    ],
)  # fmt: skip
def test_a_bad_setting_stops_the_suite_before_any_call_naming_it(
    tmp_path: Path, args: list[str], ini: str, expected: str
) -> None:
    repo = example_repo(tmp_path)
    if ini:
        pyproject = repo / "pyproject.toml"
        text = pyproject.read_text("utf-8").replace('fairjudge_seed = "7"', ini)
        pyproject.write_text(text, "utf-8")
    done = run_pytest(repo, *args)
    assert done.returncode == 4, done.stdout + done.stderr
    assert expected in done.stderr
    assert not (repo / ".fairjudge").exists()


def test_a_marker_with_an_unknown_setting_is_a_usage_error(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    (repo / "tests" / "test_bad.py").write_text(
        "import pytest\n\n\n@pytest.mark.fairjudge(rubric='x')\n"
        "def test_bad(fairjudge_judge):\n    pass\n",
        "utf-8",
    )
    done = run_pytest(repo, "tests/test_bad.py")
    assert "fairjudge marker on tests/test_bad.py::test_bad: unknown fairjudge setting(s)" in (
        done.stdout + done.stderr
    )
    assert outcome(done) != {"passed": 1}


def test_an_undeclared_judge_is_told_what_the_suites_store_needs(tmp_path: Path) -> None:
    """The suite passes its store on every run; the user never gave one to drop."""
    repo = example_repo(tmp_path)
    (repo / "tests" / "test_plain.py").write_text(
        "import pytest\n\n\n"
        "@pytest.mark.fairjudge(judge='python:fairjudge.examples.judges:longer')\n"
        "def test_plain(fairjudge_judge):\n"
        "    fairjudge_judge.compare('answers/ckpt-7.jsonl')\n",
        "utf-8",
    )
    done = run_pytest(repo, "tests/test_plain.py")
    shown = done.stdout + done.stderr
    assert outcome(done) == {"failed": 1}
    assert "the suite caches, records and replays every judge call in its store" in shown
    assert "fairjudge_store" in shown
    assert "@fairjudge.judge_function(name=..., version=...) on the function" in shown
    assert "or drop store" not in shown


def test_replay_with_no_recording_set_says_the_default_was_used(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    pyproject = repo / "pyproject.toml"
    text = pyproject.read_text("utf-8").replace('fairjudge_recording = "recorded/judge.sqlite"', "")
    pyproject.write_text(text, "utf-8")
    done = run_pytest(repo, "--fairjudge-replay")
    assert done.returncode == 4, done.stdout + done.stderr
    assert (
        f"no recording at {repo / 'fairjudge-recording.sqlite'} to replay (the default: "
        "fairjudge_recording is not set in pyproject.toml)" in done.stderr
    )
