"""The audit's pure parts: verdicts, padding of conversations, refusals before any call."""

from __future__ import annotations

import numpy as np
import pytest

from fairjudge import ConfigError
from fairjudge.audit import AuditSettings, audit, plan_experiments
from fairjudge.audit._audit_items import AuditItem
from fairjudge.audit._experiment import verdict_of
from fairjudge.audit._invariance import padded_twins
from fairjudge.audit._self_preference import fit_own_family
from fairjudge.cli._flags import to_flags
from fairjudge.judges import CallableJudge
from fairjudge.stats import ConfidenceInterval


@pytest.mark.parametrize(
    ("estimate", "low", "high", "verdict"),
    [
        (0.01, -0.02, 0.03, "negligible"),  # the whole interval within 0.05 of no bias
        (0.02, -0.40, 0.45, "uncertain"),  # small estimate, wide interval: no finding
        (0.10, 0.06, 0.14, "notable"),
        (0.10, -0.01, 0.20, "uncertain"),  # covers no bias
        (0.30, 0.20, 0.40, "severe"),
    ],
)
def test_verdicts_follow_the_documented_table(
    estimate: float, low: float, high: float, verdict: str
) -> None:
    assert verdict_of(estimate, ConfidenceInterval(low, high), 0.0, 1.0) == verdict


def test_a_conversation_pads_with_its_last_user_turn() -> None:
    question = (("user", "Tell me about Paris."), ("assistant", "A city."),
                ("user", "What is its population?"))  # fmt: skip
    item = AuditItem(question, "About two million people live in Paris proper.")
    padded, listy = padded_twins([item], AuditSettings())
    assert "What is its population?" in padded[0]
    assert "Tell me about Paris" not in padded[0]
    assert "[user]" not in padded[0]
    assert item.answer in padded[0]
    assert item.answer in listy[0]


def test_a_judge_without_prompts_is_refused_with_what_it_needs() -> None:
    with pytest.raises(ConfigError, match=r"pairwise\(template\) and pointwise\(rubric\)"):
        audit(CallableJudge(lambda q, a, b: "A"), [AuditItem("q", "a")])  # type: ignore[arg-type]


def test_framing_that_cannot_compare_is_refused_before_any_call() -> None:
    class NoCalls:
        name = "none/never"

        def pairwise(self, template: str) -> CallableJudge:
            raise AssertionError("no call may be made")

        def pointwise(self, rubric: str) -> CallableJudge:
            raise AssertionError("no call may be made")

    items = [AuditItem("q", "a")]
    settings = AuditSettings(strict_rubric="chat")
    with pytest.raises(ConfigError, match="share no dimension"):
        plan_experiments(["framing"], [NoCalls()], items, settings)  # type: ignore[list-item]
    run, skipped = plan_experiments(None, [NoCalls()], items, settings)  # type: ignore[list-item]
    assert "framing" not in run
    assert "share no dimension" in skipped["framing"]
    with_templates = AuditSettings(framing_templates=("default", "concise"))
    with pytest.raises(ConfigError, match="framing_templates needs pairs") as info:
        plan_experiments(["framing"], [NoCalls()], items, with_templates)  # type: ignore[list-item]
    assert info.value.params == ("framing_templates", "items")  # the CLI names their flags
    assert to_flags(str(info.value), info.value.params).startswith(
        "framing: --framing-templates needs pairs of answers: the built-in suite, or --items rows"
    )


@pytest.mark.parametrize("n_answers", [30, 120, 300, 900])
def test_three_judges_of_three_families_each_have_their_own_share(n_answers: int) -> None:
    # Each family writes every third answer: every judge's advantage is identifiable,
    # however many answers there are (a fixed rank cutoff lost it at a few hundred).
    families = ["alpha", "beta", "gamma"]
    answer_family = [families[i % 3] for i in range(n_answers)]
    rng = np.random.default_rng(0)
    quality = rng.normal(size=(n_answers, 1))
    own = np.array([[a == f for f in families] for a in answer_family], dtype=np.float64)
    table = quality + np.array([0.0, 0.3, -0.2]) + own * np.array([1.0, 0.0, 0.0])
    fit = fit_own_family(table.tolist(), answer_family, families, list(range(n_answers)),
                         seed=0, level=0.95, n_resamples=50)  # fmt: skip
    assert all(d is not None for d in fit.deltas)
    assert fit.combined is None
    assert fit.deltas == pytest.approx([1.0, 0.0, 0.0], abs=1e-9)
