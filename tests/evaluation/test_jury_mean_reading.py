"""JuryResult.mean_reading: what a panel's mean averaged, probabilities or labels (QA 41 #5)."""

from __future__ import annotations

from collections.abc import Callable

from fairjudge import Item
from fairjudge.evaluation import EvalSettings, evaluate_jury
from fairjudge.judges import CallableJudge, Jury, JuryMember

ONE, TWO = "answer one", "a longer answer two"
ITEMS = [Item(f"q{i}", ONE, TWO, id=str(i)) for i in range(3)]
Judge = Callable[[str, str, str], object]


def label(question: str, answer_a: str, answer_b: str) -> str:
    return "B" if len(answer_b) > len(answer_a) else "A"


def measured(question: str, answer_a: str, answer_b: str) -> dict[str, float]:
    return {"A": 0.3, "B": 0.7} if len(answer_b) > len(answer_a) else {"A": 0.7, "B": 0.3}


def partly(question: str, answer_a: str, answer_b: str) -> object:
    """Probabilities on q0's calls only: 2 of 6 calls measured."""
    return measured(question, answer_a, answer_b) if question == "q0" else label(
        question, answer_a, answer_b)  # fmt: skip


def reading(aggregation: str, **members: Judge) -> tuple[str, str | None]:
    jury = Jury([JuryMember(n, CallableJudge(j)) for n, j in members.items()])
    result = evaluate_jury(jury, ITEMS, EvalSettings(n_resamples=50), aggregation=aggregation)
    return result.mean_reading()


def test_every_member_measured() -> None:
    assert reading("mean", x=measured, y=measured) == ("mean", None)


def test_no_member_measured() -> None:
    label_text, note = reading("mean", x=label, y=label)
    assert label_text == "mean of the labels, no probabilities"
    assert note is not None
    assert note.startswith("No member gave probabilities: under the mean rule each member's")


def test_mixed_members_are_named() -> None:
    label_text, note = reading("mean", x=measured, y=label, z=partly)
    assert label_text == "mean; 2 of 3 members by label"
    assert note == (
        "y, z (4 of 6 calls) gave no probabilities: under the mean rule each of their calls "
        "counts as its label (model 1 better 1, tie ½, model 2 better 0), averaged with the "
        "probabilities measured by x, so this win rate is not a probability the panel measured."
    )
    _, partial_only = reading("mean", y=label, z=partly)
    assert partial_only is not None
    assert "averaged with the probabilities measured on the other calls" in partial_only


def test_majority_is_a_vote_whatever_the_members_gave() -> None:
    assert reading("majority", x=measured, y=label) == ("majority", None)
