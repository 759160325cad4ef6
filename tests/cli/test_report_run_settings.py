"""``fairjudge report`` redraws a saved run with the run's own settings and stop reason.

A run made with another seed, level or resamples, and one a budget stopped, is
drawn by ``report`` as its own ``--html`` drew it: the figures and the stop
sentence the header records, not ``report``'s defaults and a generic sentence. A
flag given overrides the run's setting and says so on stderr; a file whose header
records none keeps the commands' defaults (0, 0.95, 2000) and the generic sentence.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.audit import AuditSettings
from fairjudge.report import out_file_page
from tests.cli._invoke import invoke
from tests.report.audit_judges import PlantedAuditJudge

EX = Path(fairjudge.__file__).parent / "examples"
J = "python:fairjudge.examples.judges:"
SETTINGS = ("--seed", "3", "--level", "0.9", "--bootstrap", "500")
RUNS: dict[str, tuple[str, ...]] = {
    "compare": ("compare", str(EX / "demo_pairs.jsonl"), "--judge", J + "longer"),
    "score": ("score", str(EX / "score_answers.jsonl"), "--judge", J + "scorer"),
    "jury": ("jury", str(EX / "demo_pairs.jsonl"), "--judge", J + "longer", "--judge",
             J + "knows_facts", "--judge", J + "first_position"),
    "score-jury": ("score-jury", str(EX / "score_answers.jsonl"), "--judge", J + "scorer",
                   "--judge", J + "scorer"),
    "via-scores": ("compare", str(EX / "calibration.jsonl"), "--via-scores", "--judge",
                   J + "scorer"),
}  # fmt: skip
RUN_ONLY = {"skipped_rows"}
"""What only the run knows, which its file does not hold: the input rows it skipped.
The calls' tallies, tokens, cost and times (``calls``, a panel's ``usage`` and
``member_usage``) are in the header, and compared."""
STOP_SAID = "the --max-calls 10 budget is spent"
GENERIC = "a budget stopped the run before every call was made"


def _figures(value: Any) -> Any:
    """``value`` without :data:`RUN_ONLY` at any depth (the jury's own judge name too)."""
    if isinstance(value, dict):
        return {k: _figures(v) for k, v in value.items() if k not in RUN_ONLY}
    if isinstance(value, list):
        return [_figures(v) for v in value]
    return value


def _summary(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="fj-summary">(.*?)</script>', page,
                      re.DOTALL)  # fmt: skip
    assert found is not None
    return dict(json.loads(found.group(1)))


def _drawn(page: str) -> str:
    """The page but its embedded summary (compared apart, by :func:`_figures`)."""
    return re.sub(r'(id="fj-summary">).*?(</script>)', r"\1\2", page, flags=re.DOTALL)


def _run_and_report(tmp_path: Path, run: tuple[str, ...], *more: str) -> dict[str, Any]:
    """The run (``--out --html --json``), then ``report`` of its file (``--json``): both."""
    out, html, drawn = tmp_path / "run.jsonl", tmp_path / "run.html", tmp_path / "drawn.html"
    done = invoke(*run, *more, "--out", str(out), "--html", str(html), "--json", "-q")
    assert done.exit_code == (5 if "--max-calls" in more else 0), done.output  # 5: stopped
    again = invoke("report", str(out), "-o", str(drawn), "--json")
    assert again.exit_code == 0, again.output
    assert "redrawn" not in again.stderr  # nothing given: nothing overridden
    return {"out": out, "run_json": json.loads(done.stdout),
            "report_json": json.loads(again.stdout), "html": html.read_text("utf-8"),
            "drawn": drawn.read_text("utf-8")}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(RUNS))
@pytest.mark.parametrize("stop", [False, True], ids=["whole", "max-calls"])
def test_report_draws_the_runs_page_with_its_settings_and_stop(
    kind: str, stop: bool, tmp_path: Path
) -> None:
    more = (*SETTINGS, "--max-calls", "10") if stop else SETTINGS
    got = _run_and_report(tmp_path, RUNS[kind], *more)
    html, drawn = got["html"], got["drawn"]
    assert _drawn(drawn) == _drawn(html)  # the command row too: the header's command
    assert _figures(_summary(drawn)) == _figures(_summary(html))
    assert _figures(got["report_json"]) == _figures(got["run_json"])
    assert '"level": 0.9,' in json.dumps(_summary(drawn))
    assert "<dt>seed</dt><dd>3</dd>" in drawn
    header = json.loads(got["out"].read_text("utf-8").splitlines()[0])["fairjudge"]
    assert {"seed": 3, "level": 0.9, "n_resamples": 500}.items() <= header["settings"].items()
    if stop:
        assert header["settings"]["stopped"].startswith(STOP_SAID)
        assert STOP_SAID in drawn
        assert GENERIC not in drawn
    else:
        assert "stopped" not in header["settings"]  # a whole run's header is as it was


def test_rank_is_drawn_with_its_seed_and_stop(tmp_path: Path) -> None:
    run = ("rank", str(EX / "rank_answers.jsonl"), "--judge", J + "longer", "--seed", "3")
    got = _run_and_report(tmp_path, run, "--max-calls", "10")
    assert got["drawn"] == got["html"]
    assert STOP_SAID in got["drawn"]
    assert _figures(got["report_json"]) == _figures(got["run_json"])


def test_a_rank_files_bootstrap_is_the_leaderboards_rounds_as_ranks(tmp_path: Path) -> None:
    """``report --bootstrap N`` of a rank file is ``rank --bootstrap N``: the fit's rounds."""
    run = ("rank", str(EX / "rank_answers.jsonl"), "--judge", J + "longer", "--seed", "3")
    got = _run_and_report(tmp_path, run)
    header = json.loads(got["out"].read_text("utf-8").splitlines()[0])["fairjudge"]
    assert header["settings"]["n_resamples_fit"] == 1000  # rank's default
    page = tmp_path / "fewer.html"
    done = invoke("report", str(got["out"]), "-o", str(page), "--json", "--bootstrap", "50")
    assert done.exit_code == 0, done.output
    assert ("note: redrawn with 50 bootstrap rounds of the leaderboard (the run's had 1000)"
            in done.stderr)  # fmt: skip
    fewer = invoke(*run, "--bootstrap", "50", "--json", "-q")
    assert fewer.exit_code == 0, fewer.output
    drawn = json.loads(done.stdout)
    assert drawn["n_resamples"] == 50
    assert _figures(drawn) == _figures(json.loads(fewer.stdout))
    assert _figures(drawn) != _figures(got["report_json"])  # other rounds: other intervals
    assert "50 rounds over" in page.read_text("utf-8")
    # The judged pairs keep the run's own resamples: only the leaderboard is redrawn.
    fewer_page = {s.id: s for s in out_file_page(got["out"], "rank", n_resamples=50).sections}
    runs_page = {s.id: s for s in out_file_page(got["out"], "rank").sections}
    assert fewer_page["fj-position"] == runs_page["fj-position"]
    assert fewer_page["fj-figures"] != runs_page["fj-figures"]


def test_a_rank_files_seed_is_the_fits_too(tmp_path: Path) -> None:
    """``report --seed`` of a rank file seeds the fit, as ``rank --seed`` does."""
    run = ("rank", str(EX / "rank_answers.jsonl"), "--judge", J + "longer")
    got = _run_and_report(tmp_path, run)
    done = invoke("report", str(got["out"]), "-o", str(tmp_path / "p.html"), "--json",
                  "--seed", "7")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "note: redrawn at seed 7 (the run's was 0)" in done.stderr
    drawn = json.loads(done.stdout)
    assert drawn["seed"] == 7
    again = invoke(*run, "--seed", "7", "--json", "-q")  # other pairs too: only the fit's seed
    assert json.loads(again.stdout)["seed"] == drawn["seed"]


def test_the_drawn_page_shows_the_runs_calls_and_usage(tmp_path: Path) -> None:
    """The header's calls, and a panel's usage per member, are the page's, as the run's."""
    got = _run_and_report(tmp_path, RUNS["score-jury"])
    header = json.loads(got["out"].read_text("utf-8").splitlines()[0])["fairjudge"]
    summary = _summary(got["drawn"])
    assert summary["calls"] == header["calls"] == got["run_json"]["calls"]
    assert summary["calls"]["made"] == 80
    assert summary["member_usage"] == header["member_usage"] == got["run_json"]["member_usage"]
    assert [u["calls"] for u in summary["member_usage"]] == [40, 40]


def test_a_header_without_calls_draws_none(tmp_path: Path) -> None:
    """A file written before headers kept the calls (or with them damaged): none shown."""
    got = _run_and_report(tmp_path, RUNS["jury"])
    lines = got["out"].read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    del header["fairjudge"]["member_usage"]
    header["fairjudge"]["calls"]["made"] = -1  # no run makes -1 calls
    older = tmp_path / "older.jsonl"
    older.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    summary = out_file_page(older, "jury").summary
    assert summary["calls"] is None
    assert [m["usage"] for m in summary["members"]] == [None, None, None]
    assert _figures(summary) != _figures(_summary(got["drawn"]))


def test_a_flag_given_overrides_the_runs_setting_and_says_so(tmp_path: Path) -> None:
    got = _run_and_report(tmp_path, RUNS["compare"], *SETTINGS)
    page = tmp_path / "other.html"
    done = invoke("report", str(got["out"]), "-o", str(page), "--json", "--level", "0.8",
                  "--seed", "3", "--bootstrap", "200")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "note: redrawn at level 0.8 (the run's was 0.9)" in done.stderr
    assert "note: redrawn with 200 resamples (the run's had 500)" in done.stderr
    assert "seed" not in done.stderr  # given as the run's: nothing to say
    win = json.loads(done.stdout)["win_rate"]
    assert (win["ci"]["level"], win["seed"]) == (0.8, 3)
    assert "80% CI" in page.read_text("utf-8")


def _older(out: Path, tmp_path: Path) -> Path:
    """``out`` as an older fairjudge wrote it: no seed, level, resamples or stop reason."""
    lines = out.read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    for key in ("seed", "level", "n_resamples", "stopped"):
        header["fairjudge"]["settings"].pop(key, None)
    older = tmp_path / "older.jsonl"
    older.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    return older


@pytest.mark.parametrize("kind", ["compare", "score"])
def test_an_older_file_keeps_the_defaults_and_the_generic_stop(kind: str, tmp_path: Path) -> None:
    got = _run_and_report(tmp_path, RUNS[kind], *SETTINGS, "--max-calls", "10")
    older, page = _older(got["out"], tmp_path), tmp_path / "older.html"
    done = invoke("report", str(older), "-o", str(page), "--json", "--level", "0.9")
    assert done.exit_code == 0, done.output
    assert "redrawn" not in done.stderr  # the file records no level to differ from
    drawn = page.read_text("utf-8")
    assert GENERIC in drawn
    assert STOP_SAID not in drawn
    assert "<dt>seed</dt><dd>0</dd>" in drawn or "seed=0 " in drawn
    defaults = out_file_page(older, kind).summary
    text = json.dumps(defaults)
    assert '"level": 0.95' in text
    assert '"level": 0.9,' not in text


def test_a_damaged_setting_is_refused_unless_given(tmp_path: Path) -> None:
    got = _run_and_report(tmp_path, RUNS["compare"])
    lines = got["out"].read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["fairjudge"]["settings"]["level"] = 5
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    done = invoke("report", str(bad), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    assert "settings.level is not a level a run could have used; got 5" in done.stderr
    assert "give --level to draw the file anyway" in done.stderr
    done = invoke("report", str(bad), "-o", str(tmp_path / "p.html"), "--level", "0.9")
    assert done.exit_code == 0, done.output
    assert "note: redrawn at level 0.9 (the run's was 5)" in done.stderr


def test_an_audit_file_is_drawn_as_recorded_and_a_level_given_is_told(tmp_path: Path) -> None:
    judge = PlantedAuditJudge(name="python/planted", first_share=0.4)
    settings = AuditSettings(n_resamples=200, level=0.9, seed=3)
    done = fairjudge.audit_judge(judge, limit=6, experiments="position", settings=settings)
    out = done.save(tmp_path / "audit.jsonl")
    told: list[str] = []
    page = out_file_page(out, "audit", level=0.8, notify=told.append)
    assert told == ["at level 0.8 is not applied: an audit file holds the intervals its run "
                    "computed (the run's was 0.9)"]  # fmt: skip
    assert page.summary == done.to_dict()


def test_help_says_the_defaults_are_the_runs() -> None:
    text = invoke("report", "--help").output
    for default in ("0 if not", "0.95 if", "2000"):
        assert default in text
    assert text.count("the run's, as the file") == 3
