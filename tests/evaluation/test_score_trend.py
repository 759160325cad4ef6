"""`score --baseline`: a run against an earlier one, dimension by dimension."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import ConfigError, InputError
from fairjudge.cli import app
from fairjudge.evaluation import ScoreRun, load_score_run, score_trend
from fairjudge.evaluation._trend import Strata, shift_interval, shift_test
from fairjudge.prompts import __file__ as prompts_init
from tests.out_file import out_header, out_records
from tests.score_server import script
from tests.server import JudgeServer

runner = CliRunner()
SPREAD = "python:tests.scorers:spread"
LETTERS = "bcdebcdebcdebcdebcdebcdebcdebc"  # 30 answers, levels 2-5
RUBRICS = Path(prompts_init).parent / "rubrics"


def _score(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["score", *args])
    return result.exit_code, result.stdout, result.stderr


def _file(path: Path, letters: str) -> Path:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": f"{c} answer"}
            for i, c in enumerate(letters)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``--out`` file of a run of the spread scorer over LETTERS.

    Made once for the module: every test only reads it (one that needs it changed
    writes a copy).
    """
    tmp_path = tmp_path_factory.mktemp("baseline")
    out = tmp_path / "old.jsonl"
    code, _, stderr = _score(str(_file(tmp_path / "old_items.jsonl", LETTERS)),
                             "--judge", SPREAD, "--out", str(out))  # fmt: skip
    assert code == 0, stderr
    return out


def _trend(tmp_path: Path, baseline: Path, letters: str, *extra: str) -> dict[str, dict]:  # type: ignore[type-arg]
    path = _file(tmp_path / "new_items.jsonl", letters)
    code, stdout, stderr = _score(str(path), "--judge", SPREAD, "--baseline", str(baseline),
                                  "--json", "--bootstrap", "500", *extra)  # fmt: skip
    assert code == 0, stderr
    trend = json.loads(stdout)["trend"]
    return {d["dimension"]: d for d in trend["dimensions"]}


def test_the_out_records_name_their_rubric_and_judge(baseline: Path) -> None:
    record = out_records(baseline, "score")[0]
    assert (record["rubric"], record["judge"]) == ("production@1", SPREAD)
    assert record["scores"] == {"accuracy": 2, "relevance": 4, "usefulness": 2}


def test_a_planted_shift_is_detected(tmp_path: Path, baseline: Path) -> None:
    # Every other answer drops one level: accuracy and usefulness fall by 0.5 on
    # average, relevance (6 - level) rises by 0.5.
    planted = "".join(chr(ord(c) - 1) if i % 2 == 0 else c for i, c in enumerate(LETTERS))
    dims = _trend(tmp_path, baseline, planted)
    accuracy = dims["accuracy"]
    assert accuracy["shift"] == pytest.approx(-0.5)
    assert accuracy["direction"] == "down"
    assert accuracy["ci"]["high"] < 0
    assert accuracy["n_shared_questions"] == 30
    assert accuracy["reading"].startswith("accuracy fell by 0.50 [")
    assert accuracy["reading"].endswith("] since the baseline")
    assert accuracy["distribution_test"]["p_value"] < 0.01
    assert dims["relevance"]["direction"] == "up"
    assert dims["relevance"]["reading"].startswith("relevance rose by 0.50 [")
    assert (accuracy["baseline"]["estimate"], accuracy["current"]["estimate"]) == (
        pytest.approx(103 / 30),
        pytest.approx(88 / 30),
    )


def test_no_shift_is_not_flagged(tmp_path: Path, baseline: Path) -> None:
    # The same answers, handed to other questions: the same distribution of scores.
    shuffled = LETTERS[7:] + LETTERS[:7]
    dims = _trend(tmp_path, baseline, shuffled)
    for name, d in dims.items():
        assert d["shift"] == pytest.approx(0.0)
        assert d["direction"] == "none"
        assert d["ci"]["low"] < 0 < d["ci"]["high"]
        assert d["distribution_test"]["statistic"] == 0.0
        assert d["distribution_test"]["p_value"] == 1.0
        assert d["reading"].startswith(f"{name}: no shift beyond noise (+0.00 [")


def test_the_table_says_it_in_plain_words(tmp_path: Path, baseline: Path) -> None:
    path = _file(tmp_path / "new.jsonl", "a" * 30)
    code, stdout, _ = _score(str(path), "--judge", SPREAD, "--baseline", str(baseline),
                             "--bootstrap", "500")  # fmt: skip
    assert code == 0
    text = " ".join(stdout.split())
    assert "usefulness fell by 2.43 [2.00, 2.80] since the baseline" in text
    assert "relevance rose by 2.43 [2.00, 2.80] since the baseline" in text
    assert "since the baseline" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--rubric", "{v2}"], "rubric: baseline production@1, this run production@2"),
        (["--judge", "python:tests.scorers:fours"],
         f"judge: baseline {SPREAD}, this run python:tests.scorers:fours"),
    ],
)  # fmt: skip
def test_another_rubric_or_judge_is_refused(
    tmp_path: Path, baseline: Path, extra: list[str], message: str
) -> None:
    production = (RUBRICS / "production.toml").read_text("utf-8")  # the built-in, as version 2
    v2 = tmp_path / "production-v2.toml"
    v2.write_text(production.replace('version = "1"', 'version = "2"'), encoding="utf-8")
    extra = [e.format(v2=v2) for e in extra]
    path = _file(tmp_path / "new.jsonl", LETTERS)
    args = [str(path), "--judge", SPREAD, "--baseline", str(baseline), *extra]
    code, _, stderr = _score(*args)
    assert code == 2
    flat = " ".join(stderr.split())
    assert message in flat
    assert "pass --allow-different" in flat
    code, stdout, _ = _score(*args, "--allow-different", "--json", "--bootstrap", "100")
    assert code == 0
    assert json.loads(stdout)["trend"]["differences"] == [message]


def test_a_mismatch_is_refused_before_any_call(
    score_server: JudgeServer, tmp_path: Path, baseline: Path
) -> None:
    path = _file(tmp_path / "new.jsonl", LETTERS)
    code, _, stderr = _score(
        str(path), "--judge", "openai/scripted-judge", "--base-url", score_server.base_url,
        "--store", str(tmp_path / "s.sqlite"), "--baseline", str(baseline), "--quiet",
    )  # fmt: skip
    assert code == 2
    assert "judge: baseline python:" in " ".join(stderr.split())
    assert score_server.count("requests") == 0


def test_a_baseline_that_does_not_record_them_is_refused_unless_allowed(
    tmp_path: Path, baseline: Path
) -> None:
    records = out_records(baseline)  # the header dropped too: a file from before it
    old = tmp_path / "older.jsonl"
    old.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in ("rubric", "judge")})
                           + "\n" for r in records), encoding="utf-8")  # fmt: skip
    path = _file(tmp_path / "new.jsonl", LETTERS)
    code, _, stderr = _score(str(path), "--judge", SPREAD, "--baseline", str(old))
    assert code == 2
    assert "(not recorded: written by an older fairjudge)" in " ".join(stderr.split())
    code, _, _ = _score(str(path), "--judge", SPREAD, "--baseline", str(old), "--allow-different")
    assert code == 0


def test_a_file_that_is_not_a_score_run_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "scores": {"accuracy": 3}}\n{"question": "q2"}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:2: no 'scores' object"):
        load_score_run(bad)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(
        '{"question": "q", "scores": {"a": 3}, "rubric": "x@1"}\n'
        '{"question": "q2", "scores": {"a": 4}, "rubric": "x@2"}\n'
    )
    with pytest.raises(InputError, match=r"rubric 'x@2' differs from 'x@1' on line 1"):
        load_score_run(mixed)
    code, _, stderr = _score(str(bad), "--judge", SPREAD, "--allow-different")
    assert code == 2
    assert "--allow-different applies with --baseline only" in stderr


def _run(clusters: list[str], values: list[int]) -> ScoreRun:
    return ScoreRun("r@1", "j", tuple(clusters), tuple({"d": v} for v in values))


def test_a_change_of_spread_with_the_same_mean_is_caught_by_the_test() -> None:
    questions = [f"q{i}" for i in range(40)]
    old = _run(questions, [3] * 40)
    new = _run(questions, [1, 5] * 20)
    shift = score_trend(new, old, seed=3, n_resamples=500).dimensions[0]
    assert shift.shift == 0.0
    assert shift.direction == "none"
    assert shift.test.statistic == 2.0
    assert shift.test.p_value == pytest.approx(1 / 501)
    assert shift.reading().endswith("but the spread of scores changed (permutation p = 0.002)")


def test_runs_on_different_questions_are_compared_unpaired() -> None:
    old = _run([f"a{i}" for i in range(30)], [2, 3, 4] * 10)
    new = _run([f"b{i}" for i in range(30)], [3, 4, 5] * 10)
    strata = Strata.of(old.values("d"), new.values("d"))
    assert strata.sizes == (0, 30, 30)
    shift, ci = shift_interval(strata, seed=1, level=0.95, n_resamples=1000)
    assert shift == pytest.approx(1.0)
    assert 0 < ci.low < 1 < ci.high
    again = shift_interval(strata, seed=1, level=0.95, n_resamples=1000)
    assert again == (shift, ci)  # the same seed, the same interval
    test = shift_test(strata, seed=1, n_permutations=999)
    assert test.statistic == pytest.approx(1.0)
    assert test.p_value is not None
    assert test.p_value < 0.01


def test_one_question_or_no_scores_is_said_not_guessed() -> None:
    trend = score_trend(_run(["q"], [3]), _run(["q", "r"], [4, 2]), n_resamples=50)
    d = trend.dimensions[0]
    assert not d.ci.estimable
    assert d.ci.reason == "the new run scored one question: the bootstrap cannot vary"
    assert d.reading() == (
        "d: moved by +0.00; cannot tell from noise: the new run scored one question: "
        "the bootstrap cannot vary"
    )
    empty = ScoreRun("r@1", "j", ("q",), ({},))
    d = score_trend(empty, _run(["q", "r"], [4, 2]), n_resamples=50).dimensions[0]
    assert d.shift is None
    assert d.reading() == "d: not compared: this run has no score on it"


def test_the_library_refuses_another_rubric_too() -> None:
    other = ScoreRun("r@2", "j", ("q",), ({"d": 1},))
    with pytest.raises(ConfigError, match="rubric: baseline r@1, this run r@2"):
        score_trend(other, _run(["q"], [1]))


# --- the judge's settings: what the requests carried (QA41 finding 6) --------------

REPLY = '{"accuracy": 4, "relevance": 4, "usefulness": 3, "reason": "ok"}'


def _model_run(server: JudgeServer, tmp_path: Path, name: str, *flags: str) -> tuple[int, str]:
    """Score LETTERS with the scripted model judge; ``(exit code, stdout and stderr)``."""
    script(server, lambda prompt: REPLY if "JSON object" in prompt else "4")  # json or label
    path = _file(tmp_path / f"{name}_items.jsonl", LETTERS)
    code, stdout, stderr = _score(str(path), "--judge", "openai/scripted-judge", "--base-url",
                                  server.base_url, "--store", str(tmp_path / f"{name}.sqlite"),
                                  "--quiet", "--bootstrap", "100", *flags)  # fmt: skip
    return code, " ".join((stdout + stderr).split())


@pytest.fixture
def model_baseline(score_server: JudgeServer, tmp_path: Path) -> Path:
    """A model judge's run at its defaults (temperature 0, json mode), its ``--out`` file."""
    out = tmp_path / "model_old.jsonl"
    code, stderr = _model_run(score_server, tmp_path, "old", "--out", str(out))
    assert code == 0, stderr
    assert out_header(out)["settings"]["request"]["params"]["temperature"] == 0
    return out


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--temperature", "1.2"], "--temperature: baseline 0.0, this run 1.2"),
        (["--reasoning-effort", "minimal"],
         "--reasoning-effort: baseline (not sent: the model's default), this run minimal"),
        (["--structured"],
         "--structured (response_format): baseline (not sent: the model's default), "
         "this run json_schema"),
        (["--mode", "label"], "--mode: baseline json, this run label; logprobs: baseline "
         "(not sent: the model's default), this run True; top_logprobs: baseline "
         "(not sent: the model's default), this run 20"),
    ],
)  # fmt: skip
def test_a_baseline_scored_with_other_judge_settings_is_refused_before_any_call(
    score_server: JudgeServer, tmp_path: Path, model_baseline: Path, flags: list[str], said: str
) -> None:
    before = score_server.count("requests")
    code, stderr = _model_run(score_server, tmp_path, "new", "--baseline", str(model_baseline),
                              *flags)  # fmt: skip
    assert code == 2, stderr
    assert f"was not scored like this run ({said})" in stderr
    assert "pass --allow-different" in stderr
    assert score_server.count("requests") == before  # refused before any call
    code, stderr = _model_run(score_server, tmp_path, "new", "--baseline", str(model_baseline),
                              "--allow-different", *flags)  # fmt: skip
    assert code == 0, stderr


def test_the_same_settings_and_another_length_cap_are_compared(
    score_server: JudgeServer, tmp_path: Path, model_baseline: Path
) -> None:
    # max_tokens only bounds a reply's length: a reply cut short is unscored, not rescored.
    code, stderr = _model_run(score_server, tmp_path, "new", "--baseline", str(model_baseline),
                              "--max-tokens", "900", "--json")  # fmt: skip
    assert code == 0, stderr
    assert "not checked" not in stderr


def test_a_baseline_that_records_no_request_is_compared_with_a_note(
    score_server: JudgeServer, tmp_path: Path, model_baseline: Path
) -> None:
    header = {"fairjudge": out_header(model_baseline)}
    del header["fairjudge"]["settings"]["request"]  # as an older fairjudge wrote it
    old = tmp_path / "older.jsonl"
    old.write_text("".join(json.dumps(r) + "\n" for r in [header, *out_records(model_baseline)]),
                   encoding="utf-8")  # fmt: skip
    page = tmp_path / "page.html"
    code, stderr = _model_run(score_server, tmp_path, "new", "--baseline", str(old),
                              "--temperature", "1.2", "--html", str(page))  # fmt: skip
    assert code == 0, stderr
    assert (f"not checked: the baseline {old} does not record what its judge's requests "
            "carried") in stderr  # fmt: skip
    assert "(mode json, temperature 1.2) cannot be checked" in stderr
    assert "Not checked:" in page.read_text("utf-8")


def test_the_library_compares_the_recorded_settings() -> None:
    asked = {"max_completion_tokens": 9216}
    old = ScoreRun("r@1", "j", ("q",), ({"d": 1},), request=asked, mode="json")
    effort = {"max_completion_tokens": 2048, "reasoning_effort": "minimal"}
    new = ScoreRun("r@1", "j", ("q",), ({"d": 1},), request=effort, mode="json")
    with pytest.raises(ConfigError, match=r"reasoning_effort: baseline \(not sent: the model's "
                       r"default\), this run "
                       "minimal") as caught:  # fmt: skip
        score_trend(new, old, n_resamples=50)
    assert caught.value.params == ("allow_different", "reasoning_effort")
    trend = score_trend(new, old, n_resamples=50, allow_different=True)
    assert trend.differences == (
        "reasoning_effort: baseline (not sent: the model's default), this run minimal",
    )
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    same = score_trend(replace(new, request=asked), old, n_resamples=50)
    assert (same.differences, same.notes) == ((), ())  # only the length cap moved
    with pytest.raises(ConfigError, match=r"thinking_budget \(thinking\): baseline 1024, this "
                       r"run 2048\), so a shift would measure"):  # fmt: skip
        score_trend(replace(new, request={"thinking": {"type": "enabled", "budget_tokens": 2048}}),
                    replace(old, request=thinking), n_resamples=50)  # fmt: skip
    unrecorded = score_trend(new, replace(old, request=None), n_resamples=50)
    assert unrecorded.notes[0].endswith(
        "asked as this run's judge is (mode json, reasoning_effort minimal) cannot be checked"
    )
    assert "  note: the baseline this run does not record" in unrecorded.summary()


def test_from_result_and_the_header_fill_each_field_by_name(tmp_path: Path, baseline: Path) -> None:
    # review41 F10: from_result names each field (a reordered field cannot take another's
    # value), and _header checks request.params and mode each on its own.
    import fairjudge
    from fairjudge.examples.judges import scorer

    answers = Path(fairjudge.__file__).parent / "examples" / "score_answers.jsonl"
    result = fairjudge.score(str(answers), scorer).result
    run = ScoreRun.from_result(result, source="s.jsonl", request={"seed": 1}, mode="label")
    assert (run.rubric, run.judge) == (result.rubric_tag, result.judge)
    assert run.clusters == tuple(i.item.cluster_key for i in result.items)
    assert run.scores == tuple(dict(i.scored.scores) for i in result.items)
    assert (run.source, run.request, run.mode) == ("s.jsonl", {"seed": 1}, "label")
    header = out_header(baseline)
    for settings, said in (
        ({"request": {"params": [1]}}, "settings.request.params must be an object; got [1]"),
        ({"mode": 3}, "settings.mode must be a string; got 3"),
    ):
        bad = tmp_path / "bad.jsonl"
        rows = [{"fairjudge": {**header, "settings": {**header["settings"], **settings}}},
                *out_records(baseline)]  # fmt: skip
        bad.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        with pytest.raises(InputError, match=rf"header: {re.escape(said)}"):
            load_score_run(bad)
    good = {**header["settings"], "request": {"params": {"seed": 1}}, "mode": "json"}
    rows = [{"fairjudge": {**header, "settings": good}}, *out_records(baseline)]
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert (load_score_run(bad).request, load_score_run(bad).mode) == ({"seed": 1}, "json")
