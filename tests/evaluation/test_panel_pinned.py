"""The panels' diagnostics, made fast for issue 25, give the numbers they gave before.

``panel_cases_pinned.jsonl`` holds, one case a line, what the code of commit
633b969 (before the diagnostics were vectorised) computed for the seeded panels of
:mod:`tests.evaluation._panel_cases`: the command's summary (``to_dict``) and its
diagnostics, for both kinds of panel under both rules, with failed calls, a skipped
dimension, a member that never answers, members that are copies of one another and a
single item, plus the statistics functions on their own. The same seeds draw the same
resamples, so every number must agree to 1e-12 (the sums are now taken by BLAS in
another order, hence not bit for bit) and every reason word for word, but for two
documented changes made on purpose since, applied to the pinned values before the
comparison: a Python member's calls count as made, and its usage has 0 reasoning
tokens (:func:`_made_on_the_engine`), a rate whose flags are all alike has the Wilson
interval, or the bound from none of its questions off its share
(:func:`_wilson_where_alike`), Fleiss' kappa of votes all alike is undefined, with
the reason (:func:`_undefined_when_alike`), and a figure no resample moved is marked
so, or bounded (:func:`_marked_when_unvaried`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.evaluation import _panel_cases
from tests.stats.test_degenerate_interval import textbook_wilson

PINNED = Path(__file__).with_name("panel_cases_pinned.jsonl")


def _pinned() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for line in PINNED.read_text(encoding="utf-8").splitlines():
        out.update(json.loads(line))
    return {
        name: _marked_when_unvaried(
            _undefined_when_alike(_wilson_where_alike(_made_on_the_engine(case), _questions(name)))
        )
        for name, case in out.items()
    }


def _questions(name: str) -> int:
    """The questions (clusters) of a pairwise panel case's items; 0 for the others."""
    if not name.startswith("jury "):
        return 0
    n = int(name.split("n=")[1].split()[0])
    return len({item.cluster for item in _panel_cases._pair_items(n)})


def _wilson_where_alike(case: Any, questions: int) -> Any:
    """The other figures changed on purpose since: a rate whose flags are all alike.

    A rate (position consistency, calls choosing the first position, a member's
    agreement with the rest of the panel) whose questions all have the same share
    gave the percentile bootstrap's zero-width ``[p, p]``, as 633b969 pinned it. It is
    now, at the same level, with the note that says so: at ``p`` 0 or 1 the textbook
    Wilson(p, questions) (a binomial count, as a win rate's since 56112b3); at ``p``
    between (a consistent member's first-position share, 1/2 on every question),
    ``[p (1 - u), p + (1 - p) u]`` with ``u`` Wilson's upper bound of 0 of
    ``questions``: none of them is off ``p``, and one that is moves the share at most
    to 0 or 1. In these cases every rate covers all of the case's questions (15 for
    45 items: no question loses all of its items to failed calls), so the ``n`` is
    ``questions``. Every other interval, a non-degenerate rate's included, must be
    unchanged.
    """
    if isinstance(case, dict):
        ci = case.get("ci")
        is_rate = {"estimate", "ci", "count", "n"} <= set(case)
        if is_rate and isinstance(ci, dict) and ci["estimable"] and ci["low"] == ci["high"]:
            p, q = ci["low"], questions
            seen = f"all {q} questions have a share of {p:.3g}, so the bootstrap cannot vary"
            if p in (0.0, 1.0):
                low, high = textbook_wilson(p, q, ci["level"])
                k = f"{p * q:.0f} of {q}"
                note = f"Wilson, all alike: {seen}; this is the Wilson score interval of {k}"
            else:
                u = textbook_wilson(0.0, q, ci["level"])[1]
                low, high = p * (1 - u), p + (1 - p) * u
                note = (
                    f"bound from 0/{q} off {p:.3g}: {seen}. A share between 0 and 1 is no "
                    "count of successes, so Wilson's interval does not apply to it. None of "
                    f"the {q} questions is off {p:.3g}, so at most {u:.3f} of all questions "
                    f"are (the Wilson upper bound of 0 of {q}), and each of those moves the "
                    f"share at most to 0 or 1: the share lies in [{p:.3g} x (1 - {u:.3f}), "
                    f"{p:.3g} + {1 - p:.3g} x {u:.3f}]. This assumes questions of similar "
                    "size: the share weighs each by its items"  # review41 F5
                )
            case = {**case, "ci": {**ci, "low": low, "high": high, "note": note}}
        return {k: _wilson_where_alike(v, questions) for k, v in case.items()}
    if isinstance(case, list):
        return [_wilson_where_alike(v, questions) for v in case]
    return case


def _undefined_when_alike(case: Any) -> Any:
    """Fleiss' kappa of votes all alike: undefined, with the reason, not a kappa of ``None``.

    Every member voting the same on every item (one item, all members alike) makes
    chance agreement 1 (``expected``), so kappa has no value; 633b969 kept the figure
    with ``kappa`` null and the bootstrap's reason. It is now skipped with the reason,
    as a figure that was not computed is. The one label is the panel's verdict on
    every item (its wins, ties or losses are all of ``n``).
    """
    if not isinstance(case, dict) or "diagnostics" not in case:
        return case
    fleiss = case["diagnostics"].get("fleiss_kappa", {"skipped": "a score-jury's"})
    if "skipped" in fleiss or fleiss["expected"] != 1.0:
        return case
    win = case["result"]["win_rate"]
    (label,) = [
        v for k, v in (("wins", "1"), ("ties", "tie"), ("losses", "2")) if win[k] == win["n"]
    ]
    raters = len(case["result"]["members"])  # the reason is the statistic's own (stats/_panel)
    reason = (f"undefined: all {raters} raters gave every item the label {label!r}, so chance "
              "agreement is 1 and kappa, agreement beyond chance, has no value")  # fmt: skip
    return {**case, "diagnostics": {**case["diagnostics"], "fleiss_kappa": {"skipped": reason}}}


_ALIKE = "all alike, the bootstrap cannot vary: "
_NO_CERTAINTY = "; this point is no measured certainty, and no verdict rests on it"


def _marked_when_unvaried(case: Any) -> Any:
    """Figures no resample moved, changed on purpose since: marked, or a bound (H4a, s42).

    A panel of copies gave every resample the same effective number of judges (1),
    Krippendorff's alpha (1) and Fleiss' kappa (1): percentile intervals ``[1, 1]``,
    pinned so by 633b969. The first two keep their point, with the note that says no
    resample could move it; Fleiss' kappa of full agreement gets the bound from none
    of its ``n`` questions off full agreement: ``1 - u / (1 - p_e)``, ``u`` the Wilson
    upper bound of 0 of ``n`` (scipy's, here).
    """
    if isinstance(case, list):
        return [_marked_when_unvaried(v) for v in case]
    if not isinstance(case, dict):
        return case
    out = {k: _marked_when_unvaried(v) for k, v in case.items()}
    ci = out.get("ci")
    if not isinstance(ci, dict) or not ci.get("estimable") or ci["high"] - ci["low"] > 1e-12:
        return out
    if "n_members" in out:  # effective judges
        m = out["n_members"]
        why = f"all {m} members gave the same scores on every item, so every resample gives 1"
        value = out["estimate"]
    elif "alpha" in out:
        why, value = "every unit's values agree, so every resample gives alpha 1", out["alpha"]
    elif "n_raters" in out and out["kappa"] == 1.0:  # Fleiss' kappa, full agreement
        from scipy.stats import binomtest

        n, p_e = out["n_questions"] or out["n_items"], out["expected"]
        u = float(binomtest(0, n).proportion_ci(confidence_level=ci["level"], method="wilson").high)
        note = (
            f"bound from 0/{n} off full agreement: the raters agreed on every item of all {n} "
            f"questions, so every resample gives kappa 1. None of the {n} questions has a "
            f"disagreement, so at most {u:.3f} of all questions do (the Wilson upper bound of "
            f"0 of {n}), each moving the observed agreement at most to 0: it is at least 1 - "
            f"{u:.3f}, and kappa, with chance agreement held at its observed {p_e:.3g}, at least "
            f"1 - {u:.3f} / (1 - {p_e:.3g}). This assumes questions of similar size: agreement "
            "weighs each by its items"
        )
        return {**out, "ci": {**ci, "low": 1.0 - u / (1.0 - p_e), "high": 1.0, "note": note}}
    else:
        return out
    note = _ALIKE + why + _NO_CERTAINTY
    return {**out, "ci": {**ci, "low": value, "high": value, "note": note}}


def _made_on_the_engine(case: Any) -> Any:
    """A Python member's usage, changed on purpose since: its calls made, its reasoning.

    633b969 called a Python member's function directly and counted none of its calls
    as made; its calls now run on the engine, which the panel's ``calls`` counts, so
    its usage counts them as made too (every call here is made: nothing is stored).
    A member's usage now also has its reasoning tokens (003bfeb), 0 for a Python one.
    """
    if isinstance(case, dict):
        usage = case.get("usage")
        if isinstance(usage, dict) and usage.get("answered_locally"):
            usage = {**usage, "made": usage["calls"], "reasoning_tokens": 0}
            case = {**case, "usage": usage}
        return {k: _made_on_the_engine(v) for k, v in case.items()}
    if isinstance(case, list):
        return [_made_on_the_engine(v) for v in case]
    return case


@pytest.fixture(scope="module")
def computed() -> dict[str, Any]:
    # a round trip through JSON, as the pinned values took (tuples become lists)
    return json.loads(json.dumps(_panel_cases.cases()))


def _differences(old: Any, new: Any, path: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        if set(old) != set(new):
            return [f"{path}: keys {sorted(set(old) ^ set(new))}"]
        return [d for k in old for d in _differences(old[k], new[k], f"{path}/{k}")]
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"{path}: {len(old)} entries, now {len(new)}"]
        return [d for i, (a, b) in enumerate(zip(old, new, strict=True))
                for d in _differences(a, b, f"{path}[{i}]")]  # fmt: skip
    numbers = (int, float)
    if isinstance(old, float) and isinstance(new, numbers) and not isinstance(new, bool):
        if math.isnan(old) and math.isnan(new):
            return []
        return [] if abs(old - new) <= 1e-12 else [f"{path}: {old!r}, now {new!r}"]
    return [] if old == new and type(old) is type(new) else [f"{path}: {old!r}, now {new!r}"]


PINNED_CASES = _pinned()


def test_the_pinned_cases_cover_both_kinds_the_edge_cases_and_the_statistics() -> None:
    names = set(PINNED_CASES)
    for kind, n in (("score-jury", 60), ("jury", 45)):
        rules = ("mean", "median") if kind == "score-jury" else ("majority", "mean")
        for panel in ("mixed", "silent", "copies"):
            for size in (n, 1):
                assert {f"{kind} {panel} n={size} {rule}" for rule in rules} <= names
    assert {"alpha ordinal questions", "fleiss items", "effective questions",
            "spearman levels-means questions"} <= names  # fmt: skip
    assert len(names) == 38


def test_only_the_all_alike_rates_of_the_pairwise_panels_are_changed() -> None:
    changed = {
        name
        for name, case in PINNED_CASES.items()
        if "Wilson, all alike" in json.dumps(case) and name.startswith("jury ")
    }
    assert changed == {f"jury {p} n=45 {r}" for p in ("mixed", "silent", "copies")
                       for r in ("majority", "mean")}  # fmt: skip
    assert not any("Wilson" in json.dumps(c) for n, c in PINNED_CASES.items() if n not in changed)
    bound = {
        name for name, case in PINNED_CASES.items() if "bound from 0/15 off 0.5" in json.dumps(case)
    }
    assert bound == changed  # a consistent member's first-position share: 1/2 on every question
    undefined = {name for name, case in PINNED_CASES.items()
                 if "chance agreement is 1" in json.dumps(case)}  # fmt: skip
    assert undefined == {"jury mixed n=1 mean", "jury copies n=1 majority", "jury copies n=1 mean"}


@pytest.mark.parametrize("name", sorted(PINNED_CASES))
def test_a_case_equals_the_code_before_issue_25(name: str, computed: dict[str, Any]) -> None:
    assert _differences(PINNED_CASES[name], computed[name]) == []


def test_the_edge_cases_are_what_they_claim(computed: dict[str, Any]) -> None:
    # copies of one judge are one judge, and agree perfectly
    copies = computed["score-jury copies n=60 mean"]["diagnostics"]["diagnostics"][0]
    assert copies["effective_judges"]["estimate"] == pytest.approx(1.0)
    assert copies["krippendorff_alpha_ordinal"]["alpha"] == 1.0
    jury_copies = computed["jury copies n=45 majority"]["diagnostics"]
    assert jury_copies["fleiss_kappa"]["kappa"] == 1.0
    # a member that never scores: no answer is complete, its figures say why
    silent = computed["score-jury silent n=60 mean"]["diagnostics"]["diagnostics"][0]
    assert silent["n_complete_items"] == 0
    assert silent["effective_judges"] == {
        "skipped": "0 answer(s) scored by every member; needs at least 2"
    }
    assert "skipped" in silent["members"][3]["spearman_with_rest"]
    assert computed["jury silent n=45 majority"]["diagnostics"]["n_complete_items"] == 0
    # a single item: nothing to resample
    one = computed["score-jury mixed n=1 mean"]["diagnostics"]["diagnostics"][0]
    assert one["effective_judges"] == {
        "skipped": "1 answer(s) scored by every member; needs at least 2"
    }
    assert not one["krippendorff_alpha_ordinal"]["ci"]["estimable"]
