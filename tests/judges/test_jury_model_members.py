"""Model members over the real scripted server: one session, one store, one budget."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fairjudge import Item, Outcome, evaluate_pairs
from fairjudge.evaluation import EvalSettings, evaluate_jury, jury_diagnostics
from fairjudge.judges import Jury, MemberSpec
from fairjudge.runner import RunOptions
from tests.server import JudgeServer, Script

SETTINGS = EvalSettings(n_resamples=100)
ITEMS = [Item(f"question {i}", "short", "a much longer answer", id=str(i)) for i in range(3)] + [
    Item(f"question {i}", "a much longer answer", "short", id=str(i)) for i in range(3, 5)
]


@pytest.fixture
def shorter_server(openai_env: JudgeServer) -> Iterator[JudgeServer]:
    """A second server (same key as ``openai_env``) whose judge prefers shorter answers."""
    with JudgeServer(Script(judge="shorter")) as server:
        yield server


def specs(longer: JudgeServer, shorter: JudgeServer) -> list[MemberSpec]:
    return [
        MemberSpec("openai/judge", name="long1", base_url=longer.base_url),
        MemberSpec("openai/judge", name="short", base_url=shorter.base_url),
        MemberSpec("openai/judge", name="long2", base_url=longer.base_url, template="explain"),
        MemberSpec("python:tests.judge_fixtures:longer", name="py"),
    ]


def quiet(**kw: object) -> RunOptions:
    return RunOptions.build(quiet=True, **kw)  # type: ignore[arg-type]


def test_a_panel_runs_as_one_batch_and_a_rerun_costs_nothing(
    openai_env: JudgeServer, shorter_server: JudgeServer, tmp_path: Path
) -> None:
    openai_env.configure(judge="longer")
    store = tmp_path / "store.sqlite"
    with Jury.from_specs(specs(openai_env, shorter_server), store=store, options=quiet()) as jury:
        result = evaluate_jury(jury, ITEMS, SETTINGS)
        run = jury.last_run
    assert run is not None
    assert (run.made, run.cached) == (40, 0)  # 30 model calls, and py's 10 on the engine
    assert openai_env.count("requests") == 20
    assert shorter_server.count("requests") == 10
    # majority: long1, long2 and py prefer the longer answer; short dissents.
    expected = [Outcome.TWO] * 3 + [Outcome.ONE] * 2
    assert [j.outcome for j in result.judgments] == expected
    diag = jury_diagnostics(result)
    loo = {m.name: m.agreement_with_panel for m in diag.members}
    assert loo["short"] is not None
    assert loo["short"].estimate == 0.0
    assert loo["long1"] is not None
    assert loo["long1"].estimate == 1.0
    with Jury.from_specs(specs(openai_env, shorter_server), store=store, options=quiet()) as jury:
        again = evaluate_jury(jury, ITEMS, SETTINGS)
        rerun = jury.last_run
    assert rerun is not None
    assert (rerun.made, rerun.cached) == (10, 30)  # py declares no name: never stored
    assert openai_env.count("requests") == 20
    assert shorter_server.count("requests") == 10
    assert [j.outcome for j in again.judgments] == expected
    assert diag.members[0].cached == 0
    assert jury_diagnostics(again).members[0].cached == 10


def test_identical_members_make_each_call_once(openai_env: JudgeServer, tmp_path: Path) -> None:
    openai_env.configure(judge="longer")
    same = [MemberSpec("openai/judge", base_url=openai_env.base_url)] * 3
    with Jury.from_specs(same, store=tmp_path / "s.sqlite", options=quiet()) as jury:
        result = evaluate_jury(jury, ITEMS, SETTINGS)
    assert openai_env.count("requests") == 10
    diag = jury_diagnostics(result)
    assert not isinstance(diag.effective, str)
    assert not isinstance(diag.fleiss, str)
    assert diag.effective.estimate == pytest.approx(1.0)
    assert diag.fleiss.kappa == pytest.approx(1.0)


def test_one_budget_covers_the_whole_panel(
    openai_env: JudgeServer, shorter_server: JudgeServer, tmp_path: Path
) -> None:
    openai_env.configure(judge="longer")
    store = tmp_path / "store.sqlite"
    options = quiet(max_calls=12, concurrency=1)
    with Jury.from_specs(specs(openai_env, shorter_server), store=store, options=options) as jury:
        partial = evaluate_jury(jury, ITEMS, SETTINGS)
    assert openai_env.count("requests") + shorter_server.count("requests") == 12
    assert partial.stopped is not None
    assert all(m.stopped == partial.stopped for m in partial.members)
    assert partial.to_dict()["partial"] is True
    assert partial.n_unresolved >= 3  # a member's calls not made leave its items unresolved
    # a larger budget finishes the run, paying only for the calls not yet made
    with Jury.from_specs(specs(openai_env, shorter_server), store=store, options=quiet()) as jury:
        done = evaluate_jury(jury, ITEMS, SETTINGS)
        assert jury.last_run is not None
        assert jury.last_run.made == 18 + 10  # the model calls left, and py's (never stored)
    assert done.n_unresolved == 0


def test_each_members_calls_tokens_cost_and_latency(
    openai_env: JudgeServer, shorter_server: JudgeServer, tmp_path: Path
) -> None:
    openai_env.configure(judge="longer")
    store = tmp_path / "store.sqlite"
    members = [*specs(openai_env, shorter_server), MemberSpec("openai/judge", name="long1-again",
               base_url=openai_env.base_url)]  # fmt: skip
    priced = quiet(price_input=1.0, price_output=2.0)
    with Jury.from_specs(members, store=store, options=priced) as jury:
        result = evaluate_jury(jury, ITEMS, SETTINGS)
        run = jury.last_run
    assert run is not None
    usage = {}
    for m in jury_diagnostics(result).members:
        assert m.usage is not None
        usage[m.name] = m.usage
    long1, short, long2, py = usage["long1"], usage["short"], usage["long2"], usage["py"]
    again = usage["long1-again"]
    assert (long1.calls, long1.made, long1.cached) == (10, 10, 0)
    assert min(long1.input_tokens, long1.output_tokens) > 0
    assert (long1.latency_s or 0.0) > 0
    # The same calls as long1: made (and paid for) once, charged to long1.
    assert (again.calls, again.made, again.input_tokens, again.cost_usd) == (10, 0, 0, 0.0)
    # The model members' shares add up to the run's model calls and its bill; py's 10
    # calls of its function are made on the engine, and the run counts them too (the
    # panel's budget counts them), so every member's made adds up to the run's.
    model = (long1, short, long2)
    assert sum(u.made or 0 for u in model) == run.made - 10 == 30
    assert sum(u.made or 0 for u in usage.values()) == run.made == 40
    assert sum(u.cost_usd or 0.0 for u in model) == pytest.approx(run.cost_usd)
    assert long1.cost_usd == pytest.approx(
        (long1.input_tokens * 1.0 + long1.output_tokens * 2.0) / 1e6
    )
    assert (py.made, py.cached, py.input_tokens, py.cost_usd) == (10, 0, 0, 0.0)
    payload = result.to_dict()
    assert payload["members"][0] == {"name": "long1", "weight": 1.0}
    assert jury_diagnostics(result).to_dict()["members"][0]["usage"]["made"] == 10
    # A rerun is served from the store: every member's calls cost 0.
    with Jury.from_specs(members, store=store, options=priced) as jury:
        again_result = evaluate_jury(jury, ITEMS, SETTINGS)
    for m in jury_diagnostics(again_result).members:
        assert m.usage is not None
        # py declares no name and version: its function is called again, never stored
        assert (m.usage.made, m.usage.input_tokens, m.usage.cost_usd) == (
            10 if m.name == "py" else 0, 0, 0.0)  # fmt: skip
    assert jury_diagnostics(again_result).members[0].usage.cached == 10  # type: ignore[union-attr]


def test_a_model_jury_as_one_judge_and_its_budget(
    openai_env: JudgeServer, shorter_server: JudgeServer, tmp_path: Path
) -> None:
    openai_env.configure(judge="longer")
    store = tmp_path / "store.sqlite"
    with Jury.from_specs(specs(openai_env, shorter_server), store=store, options=quiet()) as jury:
        result = evaluate_pairs(jury, ITEMS, n_resamples=50)
    # per call, long1, long2 and py (3 of 4) prefer the longer answer.
    assert [j.outcome for j in result.judgments] == [Outcome.TWO] * 3 + [Outcome.ONE] * 2
    options = quiet(max_calls=6, concurrency=1)
    store = tmp_path / "b.sqlite"
    with Jury.from_specs(specs(openai_env, shorter_server), store=store, options=options) as jury:
        partial = evaluate_pairs(jury, ITEMS, n_resamples=50)
    assert partial.stopped is not None
    assert "the max_calls=6 budget is spent" in partial.stopped
    assert partial.n_unresolved > 0  # calls not made leave items unresolved, never guessed
