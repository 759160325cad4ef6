"""A negative seed is refused before any judge call, in the library and on the command line.

Before: the seed reached the bootstrap only after every call was made (and paid for),
where it failed as an internal ``ValueError`` (exit 1); rank, report and label-merge
already refused it up front.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fairjudge
from fairjudge import ConfigError
from fairjudge.audit import AuditSettings
from fairjudge.evaluation import EvalSettings
from tests.cli_process import fairjudge as run_cli
from tests.cli_process import flat

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "fairjudge" / "examples"
PAIRS = [{"id": i, "question": f"q{i}", "answer_1": "a longer answer", "answer_2": "short",
          "human": "1"} for i in ("a", "b", "c")]  # fmt: skip
ANSWERS = [{"id": i, "question": f"q{i}", "answer": "an answer"} for i in ("a", "b", "c")]
WORDS = "seed must be >= 0; got -1"


class Counting:
    """Python judges that count their calls (pairwise: the longer answer wins)."""

    def __init__(self) -> None:
        self.calls = 0

    def pair(self, question: str, answer_a: str, answer_b: str) -> str:
        self.calls += 1
        return "A" if len(answer_a) >= len(answer_b) else "B"

    def scores(self, question: str, answer: str) -> dict[str, int]:
        self.calls += 1
        return {"accuracy": 3, "relevance": 3, "usefulness": 3}


def test_settings_and_audit_settings_refuse_a_negative_seed() -> None:
    for build in (lambda: EvalSettings(seed=-1), lambda: AuditSettings(seed=-1)):
        with pytest.raises(ConfigError) as caught:
            build()
        assert str(caught.value) == WORDS
        assert caught.value.params == ("seed",)


def test_notebook_runs_refuse_a_negative_seed_before_any_call() -> None:
    judge = Counting()
    with pytest.raises(ConfigError, match=WORDS):
        fairjudge.compare(PAIRS, judge.pair, settings=EvalSettings(seed=-1))
    with pytest.raises(ConfigError, match=WORDS) as caught:
        fairjudge.score(ANSWERS, judge.scores, seed=-1)
    assert caught.value.params == ("seed",)
    with pytest.raises(ConfigError, match=WORDS):
        fairjudge.score(ANSWERS, judges=[judge.scores, judge.scores], seed=-1)
    assert judge.calls == 0


@pytest.mark.parametrize(
    "args",
    [
        ("compare", EXAMPLES / "demo_pairs.jsonl", "--judge",
         "python:fairjudge.examples.judges:longer"),
        ("compare", EXAMPLES / "demo_pairs.jsonl", "--judge",
         "python:fairjudge.examples.judges:longer", "--stop-when", "decided"),
        ("calibrate", EXAMPLES / "demo_pairs.jsonl", "--judge",
         "python:fairjudge.examples.judges:longer"),
        ("score", EXAMPLES / "score_answers.jsonl", "--judge",
         "python:fairjudge.examples.judges:scorer"),
        ("score-jury", EXAMPLES / "score_answers.jsonl",
         "--judge", "python:fairjudge.examples.judges:scorer",
         "--judge", "python:fairjudge.examples.judges:length_scorer"),
        ("jury", EXAMPLES / "demo_pairs.jsonl",
         "--judge", "python:fairjudge.examples.judges:longer",
         "--judge", "python:fairjudge.examples.judges:first_position"),
    ],
    ids=["compare", "compare-stop", "calibrate", "score", "score-jury", "jury"],
)  # fmt: skip
def test_a_negative_seed_flag_is_refused_before_any_call(args: tuple[str | Path, ...]) -> None:
    done = run_cli(*args, "--seed", "-1")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"error: --{WORDS}" in flat(done.stderr)
    assert "calls" not in done.stderr  # no progress line: nothing was judged


def test_a_config_files_negative_seed_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        'command = "compare"\n'
        f'file = "{(EXAMPLES / "demo_pairs.jsonl").as_posix()}"\n'
        'judge = "python:fairjudge.examples.judges:longer"\nseed = -1\n'
    )
    done = run_cli("run", config, "--allow-python-judges")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "seed: must be >= 0; got -1" in flat(done.stderr)
    assert "calls" not in done.stderr
