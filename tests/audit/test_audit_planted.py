"""Planted biases are recovered: each true value lies inside its reported interval.

The judges are scripted (``tests.audit.planted``) and answer over the real HTTP test
server, so every experiment runs through the session, the runner and the store.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
from scipy.stats import binomtest

from fairjudge.audit import AuditReport, AuditSettings, Effect, audit
from fairjudge.audit._audit_items import AuditItem, builtin_items
from fairjudge.judges import BackendOptions, JudgeSession
from fairjudge.runner import RunOptions
from tests.audit.conftest import model_judge, plant
from tests.audit.planted import Planted, judge_fn
from tests.server import JudgeServer, Pair, Script

SETTINGS = AuditSettings(n_resamples=1000)


def effect(report: AuditReport, bias: str, name: str, *, residual: bool = False) -> Effect:
    exp = next(e for e in report.experiments if e.bias == bias)
    pool = exp.residual if residual else exp.effects
    return next(e for e in pool if e.name == name)


def test_an_unbiased_judge_shows_no_bias(audit_server: JudgeServer, session: JudgeSession) -> None:
    plant(audit_server, Planted())
    report = audit(model_judge(audit_server, session), settings=SETTINGS)
    first = effect(report, "position", "first-position share of decisive calls")
    assert first.estimate == 0.5
    # Every question's share is 1/2, so the bootstrap cannot vary. That is no count of
    # successes (Wilson at 1/2, [0.34, 0.66] on 37, treated each question as a coin toss
    # and read "uncertain"): none of the 37 questions with decisive calls (the other 3
    # are ties both ways) is off 1/2, so the share lies in 1/2 ± u/2, u = Wilson's upper
    # bound of 0 of 37 (0.094): inside the negligible band (0.45, 0.55). The next test
    # has fewer questions.
    assert first.n == 2 * 37  # both calls of one pair a question decisive
    assert first.ci.note is not None
    assert first.ci.note.startswith("bound from 0/37 off 0.5: all 37 questions have a share")
    assert (round(first.ci.low, 3), round(first.ci.high, 3)) == (0.453, 0.547)
    assert first.verdict == "negligible"
    assert effect(report, "position", "position consistency").estimate == 1.0
    assert effect(report, "position", "flip rate").estimate == 0.0
    for exp in report.experiments:
        if exp.skipped is not None:
            continue
        for e in (*exp.effects, *exp.residual):
            if e.name.startswith("padded - concise, conciseness"):
                continue  # the anti-verbose rubric's own dimension: see the next test
            assert e.covers_null, (exp.bias, e.name, e.estimate, e.ci)
            assert e.verdict in ("negligible", "uncertain"), (exp.bias, e.name, e.verdict)
    assert report.n_failed == 0
    assert audit_server.count("requests") > 0


def test_an_unbiased_judge_on_20_questions_is_uncertain_not_negligible(
    audit_server: JudgeServer, session: JudgeSession
) -> None:
    # 0 of 20 questions off 1/2 bounds the share by 1/2 ± u/2, u = 0.161: [0.42, 0.58],
    # wider than the negligible band (0.45, 0.55), so no finding either way.
    plant(audit_server, Planted())
    items = builtin_items()[:20]
    report = audit(model_judge(audit_server, session), items, experiments=["position"],
                   settings=SETTINGS)  # fmt: skip
    first = effect(report, "position", "first-position share of decisive calls")
    assert first.estimate == 0.5
    n = first.n // 2  # the questions with decisive calls, two each
    assert n == 19  # one of the 20 is a tie both ways
    u = binomtest(0, n).proportion_ci(confidence_level=0.95, method="wilson").high
    assert (first.ci.low, first.ci.high) == pytest.approx((0.5 - u / 2, 0.5 + u / 2), abs=1e-12)
    assert str(first.ci).endswith(f" (bound from 0/{n} off 0.5)")
    assert first.ci.high - first.ci.low > 0.1  # wider than the band: no finding either way
    assert first.verdict == "uncertain"


def test_a_position_biased_judge_is_caught_and_the_swap_removes_it(
    audit_server: JudgeServer, session: JudgeSession
) -> None:
    plant(audit_server, Planted(first_share=0.4))
    report = audit(model_judge(audit_server, session), experiments=["position"], settings=SETTINGS)
    # 40% of questions always get "A": flips 0.4, consistency 0.6, first share 0.7.
    for name, truth in [
        ("flip rate", 0.4),
        ("position consistency", 0.6),
        ("first-position share of decisive calls", 0.7),
        ("preference fairness", -0.4),
    ]:
        got = effect(report, "position", name)
        assert truth in got.ci, (name, got.estimate, got.ci)
        assert not got.covers_null, name
        assert got.verdict in ("notable", "severe"), name
    residual = effect(
        report, "position", "answer 1's debiased score, given first vs given second",
        residual=True,
    )  # fmt: skip
    assert residual.estimate == 0.0
    assert residual.ci.low == residual.ci.high == 0.0
    assert [e.bias for e in report.experiments if e.skipped is None] == ["position"]


def test_a_length_loving_judge_is_caught_and_the_mitigations_remove_it(
    audit_server: JudgeServer, session: JudgeSession
) -> None:
    plant(audit_server, Planted(length_points=2, length_pairwise=True))
    report = audit(model_judge(audit_server, session), experiments=["verbosity"], settings=SETTINGS)
    overall = effect(report, "verbosity", "padded - concise, overall")
    assert 2.0 in overall.ci, (overall.estimate, overall.ci)
    assert not overall.covers_null
    assert overall.verdict in ("notable", "severe")
    assert effect(report, "verbosity", "padded beats concise").estimate == 1.0
    assert effect(report, "verbosity", "repetitive list beats concise").estimate == 1.0
    shared = effect(
        report, "verbosity", "padded - concise, overall (accuracy, relevance)", residual=True
    )
    assert shared.covers_null, (shared.estimate, shared.ci)
    assert effect(report, "verbosity", "padded beats concise", residual=True).estimate == 0.5
    example = next(e for e in report.experiments if e.bias == "verbosity").details["example"]
    assert example["concise"] in example["padded"]
    assert example["padded_words"] > 3 * example["concise_words"]


def test_a_framing_sensitive_judge_is_caught(
    audit_server: JudgeServer, session: JudgeSession
) -> None:
    plant(audit_server, Planted(strict_points=-2))
    report = audit(model_judge(audit_server, session), experiments=["framing"], settings=SETTINGS)
    overall = effect(report, "framing", "strict - basic, overall")
    assert -2.0 in overall.ci, (overall.estimate, overall.ci)
    assert not overall.covers_null
    assert overall.estimate == -2.0  # no score is clipped: every answer moved by 2
    # Both the concise and the flawed answers were scored: 80 answers.
    assert overall.n == 80


def _family_items(families: tuple[str, ...]) -> list[AuditItem]:
    items = []
    for i in range(30):
        q = f"Question number {i}: explain topic {i}."
        for f in families:
            items.append(AuditItem(q, f"[{f}] answer {i} from {f}, take {i * 7}", system=f"{f}-7b"))
    return items


def _panel(tmp_path: Path, planted: dict[str, Planted], families: tuple[str, ...]) -> list[Effect]:
    """Each family's judge on its own scripted server; the self-preference effects."""
    servers = {f: JudgeServer(Script(judge=_scripted(p))) for f, p in planted.items()}
    with contextlib.ExitStack() as stack:
        for server in servers.values():
            stack.enter_context(server)
        session = stack.enter_context(
            JudgeSession(store=tmp_path / "store.sqlite", options=RunOptions.build(quiet=True))
        )
        judges = [model_judge(servers[f], session, f"{f}-judge") for f in planted]
        report = audit(judges, _family_items(families), experiments=["self-preference"],
                       settings=SETTINGS)  # fmt: skip
    exp = next(e for e in report.experiments if e.bias == "self-preference")
    assert set(exp.details["matrix"]) == {f"openai/{f}-judge" for f in planted}
    return list(exp.effects)


def _scripted(planted: Planted) -> Callable[[Pair], str]:
    fn = judge_fn(planted)
    return lambda pair: fn(pair.question)


def _own(effects: list[Effect], family: str) -> Effect:
    return next(e for e in effects if e.name.startswith(f"openai/{family}-judge ({family})"))


def test_a_self_preferring_judge_is_told_from_two_neutral_ones(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    planted = {
        "alpha": Planted(own_family="alpha", own_points=1, salt="a"),
        "beta": Planted(salt="b"),
        "gamma": Planted(salt="c"),
    }
    effects = _panel(tmp_path, planted, ("alpha", "beta", "gamma"))
    alpha = _own(effects, "alpha")
    assert 1.0 in alpha.ci, (alpha.estimate, alpha.ci)
    assert not alpha.covers_null
    for family in ("beta", "gamma"):  # the neutral judges read neutral
        neutral = _own(effects, family)
        assert neutral.covers_null, (family, neutral.estimate, neutral.ci)
        assert abs(neutral.estimate or 0.0) < 0.6  # about 2 standard errors here


@pytest.mark.parametrize("points", [0, 1])
def test_two_judges_give_only_their_combined_self_preference(
    audit_server: JudgeServer, tmp_path: Path, points: int
) -> None:
    planted = {
        "alpha": Planted(own_family="alpha", own_points=points, salt="a"),
        "beta": Planted(salt="b"),
    }
    effects = _panel(tmp_path, planted, ("alpha", "beta"))
    for family in ("alpha", "beta"):  # each seen only against the other: not identifiable
        own = _own(effects, family)
        assert own.verdict == "not estimable"
        assert "not identifiable" in (own.ci.reason or "")
    combined = next(e for e in effects if e.name.startswith("the panel's combined"))
    assert float(points) in combined.ci, (combined.estimate, combined.ci)
    assert combined.covers_null == (points == 0)


def test_a_rerun_costs_no_call_and_gives_the_same_report(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    plant(audit_server, Planted(first_share=0.3, length_points=1))
    store = tmp_path / "store.sqlite"

    def run() -> AuditReport:
        with JudgeSession(store=store, options=RunOptions.build(quiet=True)) as s:
            judge = model_judge(audit_server, s)
            return audit(judge, settings=SETTINGS)

    first = run()
    made = audit_server.count("requests")
    second = run()
    assert audit_server.count("requests") == made
    assert first.to_dict() == second.to_dict()
    assert made == len({k for k in audit_server.prompt_counts()["requests"]}), (
        "a call was made twice"
    )


def test_backend_options_reach_every_prompt(
    audit_server: JudgeServer, session: JudgeSession
) -> None:
    plant(audit_server, Planted())
    judge = model_judge(audit_server, session)
    assert judge.pairwise("default") is judge.pairwise("default")
    assert judge.pointwise("basic").rubric.name == "basic"
    assert isinstance(judge.temperature, float | type(None))
    BackendOptions()  # the import is the public one


def test_a_judge_at_its_ceiling_or_led_by_position_cannot_show_verbosity(
    audit_server: JudgeServer, session: JudgeSession
) -> None:
    # Every answer gets 10/10 and every pairwise call says "A": a padded answer cannot
    # score higher, and every pair resolves as a tie by protocol. Neither is "no bias".
    plant(audit_server, Planted(top=True, first_share=1.0))
    report = audit(model_judge(audit_server, session), experiments=["verbosity"], settings=SETTINGS)
    overall = effect(report, "verbosity", "padded - concise, overall")
    assert overall.estimate == 0.0
    assert overall.verdict == "not estimable"
    assert "top score" in (overall.note or "")
    padded = effect(report, "verbosity", "padded beats concise")
    assert padded.estimate == 0.5
    assert padded.verdict == "not estimable"
    assert "position consistency 0%" in (padded.note or "")
    exp = next(e for e in report.experiments if e.bias == "verbosity")
    assert exp.verdict == "not estimable"
