"""``ViaScoresRun.to_dict`` and ``markdown``: what ``compare --via-scores`` prints, from Python.

The command line prints the run's own summary, so a notebook's ``via_scores`` run
and the command's ``--json`` say the same: the comparison via scores, the calls,
the skipped rows (kept from items a loader read) and, after ``stop_when``, the
adaptive block.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge._api import EvalSettings, via_scores
from fairjudge.io import load_items, strict_dumps
from fairjudge.prompts import get_rubric
from tests.cli._invoke import invoke

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
CALIBRATION = str(EXAMPLES / "calibration.jsonl")
QUIET = {"progress": "quiet"}
SCORER = "python:fairjudge.examples.judges:scorer"


def _with_a_bad_row(tmp_path: Path) -> Path:
    """The calibration example with one row that has no answers, to be skipped."""
    path = tmp_path / "pairs.jsonl"
    rows = Path(CALIBRATION).read_text("utf-8")
    path.write_text(rows + json.dumps({"id": "bad", "question": "q?"}) + "\n", "utf-8")
    return path


def test_to_dict_is_what_the_command_prints_skipped_rows_included(tmp_path: Path) -> None:
    path = _with_a_bad_row(tmp_path)
    loaded = load_items(path, skip_invalid=True)
    assert len(loaded.skipped) == 1
    done = via_scores(SCORER, loaded, EvalSettings(source=str(path)),
                      rubric=get_rubric("production"),
                      setup=fairjudge.JudgeSetup(options=QUIET))  # fmt: skip
    payload = done.to_dict()
    assert list(payload) == ["via_scores", "swap", "calls", "skipped_rows"]
    assert payload["skipped_rows"] == loaded.skipped_records()
    assert payload["swap"] is None  # no with_swap
    assert payload["via_scores"]["n_items"] == len(loaded.items)
    assert done.title == "pairs.jsonl: model 1 vs model 2"
    command = invoke("compare", str(path), "--via-scores", "--judge", SCORER, "--skip-invalid",
                     "--json", "-q")  # fmt: skip
    assert command.exit_code == 0, command.output
    printed = json.loads(command.stdout)
    # A skipped row's message names the flag there, the parameter here; all else is equal.
    flagged = printed.pop("skipped_rows")
    assert [(r["source"], r["line"]) for r in flagged] == [
        (r["source"], r["line"]) for r in payload.pop("skipped_rows")
    ]
    assert "--answer1-col" in flagged[0]["message"]
    assert strict_dumps(printed, indent=2) == strict_dumps(payload, indent=2)


def test_an_adaptive_run_adds_its_block_and_the_markdown_its_stop(tmp_path: Path) -> None:
    done = via_scores(SCORER, load_items(CALIBRATION).items, EvalSettings(source=CALIBRATION),
                      rubric=get_rubric("production"), setup=fairjudge.JudgeSetup(options=QUIET),
                      stop_when="width:0.45", batch=4)  # fmt: skip
    payload = done.to_dict()
    assert done.adaptive is not None
    assert list(payload) == ["via_scores", "swap", "calls", "skipped_rows", "adaptive"]
    assert payload["adaptive"] == done.adaptive.adaptive_dict()
    assert payload["skipped_rows"] == []
    assert done.markdown().splitlines()[0].endswith("calibration.jsonl: model 1 vs model 2")


def test_the_swap_protocols_settings_need_with_swap_named_as_the_flags() -> None:
    # via_scores refuses what only the swap protocol reads, before the scorer opens and
    # in the words compare --via-scores prints (cli/_flags rewrites each parameter).
    from fairjudge import ConfigError, Resolution
    from fairjudge.cli._flags import to_flags

    rubric, setup = get_rubric("production"), fairjudge.JudgeSetup(options=QUIET)
    cases = [
        ({"settings": EvalSettings(rounds=4)}, "--rounds applies to the swap protocol"),
        ({"settings": EvalSettings(rule=Resolution.LENIENT)}, "--rule applies"),
        ({"settings": EvalSettings(balanced=False)}, "--no-balanced applies"),
        ({"setup": fairjudge.JudgeSetup(template="default")}, "--template applies"),
        ({"stop_when": "decided", "with_swap": True},
         "--stop-when does not apply to --via-scores --with-swap yet"),
    ]  # fmt: skip
    for given, says in cases:
        args: dict[str, object] = {"settings": EvalSettings(), "setup": setup, **given}
        with pytest.raises(ConfigError) as caught:
            via_scores(SCORER, [], rubric=rubric, **args)  # type: ignore[arg-type]
        shown = to_flags(str(caught.value), caught.value.params, "compare")
        assert shown.startswith(says), shown
    with pytest.raises(ConfigError) as caught:
        via_scores(SCORER, [], EvalSettings(rounds=4), setup=setup, rubric=rubric)
    assert to_flags(str(caught.value), caught.value.params) == (
        "--rounds applies to the swap protocol; add --with-swap to run it beside "
        "--via-scores, or drop it"
    )
