"""Rankings: their inputs (long-format answers, pairings, judged battles) and the fit.

Which model is "model 1" is a seeded coin flip per pair. ``fairjudge rank`` and
:func:`fairjudge.rank` fit the same way, here, with the ridge the command line falls
back to (:data:`FALLBACK_L2`) when ``l2`` is 0 and the battles have no finite maximum.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from fairjudge._errors import ConfigError, InputError
from fairjudge._items import Item
from fairjudge._protocol import item_seed
from fairjudge._types import Outcome
from fairjudge.evaluation._results import PairwiseResult
from fairjudge.io import read_header, read_rows

if TYPE_CHECKING:
    from fairjudge.stats import BradleyTerryResult, StyleControlResult

__all__ = [
    "FALLBACK_L2",
    "Battles",
    "LongAnswers",
    "battles_from",
    "fit_battles",
    "load_ranking_input",
    "make_pairs",
]


_WINNER = {
    "model_a": Outcome.ONE,
    "a": Outcome.ONE,
    "1": Outcome.ONE,
    "model_b": Outcome.TWO,
    "b": Outcome.TWO,
    "2": Outcome.TWO,
    "tie": Outcome.TIE,
    "tie (bothbad)": Outcome.TIE,
    "0": Outcome.TIE,
}


@dataclass(frozen=True, slots=True)
class LongAnswers:
    """Answers per question: ``answers[question_id][model] = answer``."""

    answers: dict[str, dict[str, str]]
    questions: dict[str, str]

    @property
    def models(self) -> list[str]:
        """Every model seen, sorted."""
        return sorted({m for per in self.answers.values() for m in per})


@dataclass(frozen=True, slots=True)
class Battles:
    """Already-judged battles."""

    model_a: list[str]
    model_b: list[str]
    outcomes: list[Outcome]
    questions: list[str] | None
    """The question of each battle; ``None`` when the input named none, so the
    bootstrap resamples battles, not questions."""
    answers_a: list[str] | None = None
    """Model A's answer per battle, when known (needed for style control)."""
    answers_b: list[str] | None = None
    """Model B's answer per battle, when known."""


def _text(row: dict[str, object], key: str, path: str, line: int) -> str:
    value = row.get(key)
    if value is None:
        raise InputError(f"missing column {key!r}", path=path, line=line)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{key!r} must be a non-empty string, got {value!r}", path=path, line=line)
    return value


def load_ranking_input(path: str | Path, *, allow_empty: bool = False) -> LongAnswers | Battles:
    """Read long-format answers or judged battles; the columns decide which.

    Args:
        path: The file (JSONL, CSV or Parquet).
        allow_empty: Keep empty or blank answers; by default each is refused, as by
            every other reader (an empty answer is most often a lost column or a
            failed generation, and judged it loses every comparison without a word).

    Raises:
        InputError: Bad rows, duplicate (question, model) answers, or fewer than
            two models; messages name the file and line.
    """
    p = str(path)
    answers: dict[str, dict[str, str]] = defaultdict(dict)
    questions: dict[str, str] = {}
    questions_seen: list[str] = []
    battles = Battles([], [], [], questions_seen)
    named_questions = False
    kind: str | None = None
    rank_file = False
    for line, row in read_rows(path):
        if isinstance(row, InputError):
            raise row
        data = dict(row)
        if kind is None and not rank_file and (header := read_header(data, path=p, line=line)):
            header.expect(("rank",), reader="rank", path=p,
                          advice="or long-format answers, or battles")  # fmt: skip
            rank_file = True
            continue
        this = "battles" if "model_a" in data and "model_b" in data else "long"
        if kind is None:
            kind = this
        elif kind != this:
            raise InputError(
                f"row looks like {this} but the file started as {kind}", path=p, line=line
            )
        if this == "battles":
            if rank_file and data.get("winner") is None:
                continue  # an unresolved pair: no battle, as in the run that wrote the file
            a, b = _text(data, "model_a", p, line), _text(data, "model_b", p, line)
            winner = str(data.get("winner", "")).strip().lower()
            if winner not in _WINNER:
                raise InputError(
                    f"'winner' must be model_a, model_b or tie; got {data.get('winner')!r}",
                    path=p,
                    line=line,
                )
            if a == b:
                raise InputError(f"a model cannot battle itself ({a!r})", path=p, line=line)
            battles.model_a.append(a)
            battles.model_b.append(b)
            battles.outcomes.append(_WINNER[winner])
            qid = data.get("question_id")
            named_questions = named_questions or qid is not None
            questions_seen.append(str(qid) if qid is not None else f"line{line}")
            continue
        qid = _text(data, "question_id", p, line)
        model = _text(data, "model", p, line)
        answer = data.get("answer")
        if not isinstance(answer, str):
            raise InputError(f"'answer' must be a string, got {answer!r}", path=p, line=line)
        if not allow_empty and not answer.strip():
            raise InputError(
                "'answer' is empty; fill it in, or pass allow_empty=True "
                "to judge empty answers as they are",
                path=p,
                line=line,
                params="allow_empty",
            )
        if model in answers[qid]:
            raise InputError(
                f"duplicate answer of {model!r} to question {qid!r}", path=p, line=line
            )
        answers[qid][model] = answer
        question = data.get("question")
        if isinstance(question, str) and question.strip():
            questions.setdefault(qid, question)
    if kind is None:
        raise InputError("file holds no rows", path=p)
    if kind == "battles":
        if len(set(battles.model_a) | set(battles.model_b)) < 2:
            raise InputError("need battles between at least two models", path=p)
        if not named_questions:
            return replace(battles, questions=None)
        return battles
    result = LongAnswers(dict(answers), questions)
    if len(result.models) < 2:
        raise InputError(f"need answers from at least two models; found {result.models}", path=p)
    return result


def make_pairs(
    data: LongAnswers,
    *,
    pairing: Literal["all", "baseline", "sample"] = "all",
    baseline: str | None = None,
    pairs_per_question: int = 1,
    seed: int = 0,
) -> list[Item]:
    """Pair up the answers to each question.

    Args:
        data: Long-format answers.
        pairing: ``all`` pairs of models; every model against ``baseline``; or a
            seeded ``sample`` of ``pairs_per_question`` pairs per question.
        baseline: The baseline model, for ``pairing="baseline"``.
        pairs_per_question: Pairs drawn per question, for ``pairing="sample"``.
        seed: Seed for the sample and for which model is shown as model 1.

    Raises:
        ConfigError: A bad pairing option.
    """
    # Each option is read by one pairing only: given with another, it would change nothing.
    if baseline is not None and pairing != "baseline":
        raise ConfigError(
            "baseline applies with pairing='baseline' only; set pairing='baseline', or drop "
            "baseline",
            params=("baseline", "pairing"),
        )
    if pairs_per_question != 1 and pairing != "sample":
        raise ConfigError(
            "pairs_per_question applies with pairing='sample' only; set pairing='sample', or "
            "drop pairs_per_question",
            params=("pairs_per_question", "pairing"),
        )
    if pairing == "baseline":
        if baseline is None:
            raise ConfigError(
                "pairing='baseline' needs baseline=MODEL", params=("pairing", "baseline")
            )
        if baseline not in data.models:
            raise ConfigError(f"baseline {baseline!r} is not a model; models: {data.models}")
    if pairing == "sample" and pairs_per_question < 1:
        raise ConfigError(
            f"pairs_per_question must be >= 1; got {pairs_per_question}",
            params="pairs_per_question",
        )
    if pairing not in ("all", "baseline", "sample"):
        raise ConfigError(
            f"pairing must be all, baseline or sample; got {pairing!r}", params="pairing"
        )
    items: list[Item] = []
    for qid in sorted(data.answers):
        per = data.answers[qid]
        models = sorted(per)
        if pairing == "baseline":
            pairs = [(baseline, m) for m in models if m != baseline and baseline in per]
        else:
            pairs = list(itertools.combinations(models, 2))
            if pairing == "sample":
                rng = random.Random(item_seed(seed, "pairs", qid))
                pairs = rng.sample(pairs, min(pairs_per_question, len(pairs)))
        question = data.questions.get(qid, qid)
        for m1, m2 in pairs:
            assert m1 is not None
            if random.Random(item_seed(seed, "slot", qid, m1, m2)).random() < 0.5:
                m1, m2 = m2, m1
            items.append(
                Item(
                    question=question,
                    answer_1=per[m1],
                    answer_2=per[m2],
                    id=f"{qid}:{m1}:{m2}",
                    cluster=qid,
                    model_1=m1,
                    model_2=m2,
                )
            )
    return items


def battles_from(result: PairwiseResult) -> Battles:
    """The resolved pairs of a ranking run as battles; unresolved pairs are left out.

    An unresolved pair (a parse failure or a call error) is never counted as a tie:
    it is not a battle at all, and :attr:`PairwiseResult.n_unresolved` says how many.
    """
    done = [
        j
        for j in result.judgments
        if j.outcome is not None and j.item.model_1 is not None and j.item.model_2 is not None
    ]
    return Battles(
        model_a=[j.item.model_1 or "" for j in done],
        model_b=[j.item.model_2 or "" for j in done],
        outcomes=[j.outcome for j in done if j.outcome is not None],
        questions=[j.item.cluster_key for j in done],
        answers_a=[j.item.answer_1 for j in done],
        answers_b=[j.item.answer_2 for j in done],
    )


FALLBACK_L2 = 0.1
"""The ridge a ranking fits with when ``l2`` is 0 and the judged battles have no finite
maximum (a model that never lost, or never won): a prior sd of about 550 Elo points.
Found only after judging, so it is said with the leaderboard rather than refused."""


def fit_battles(
    battles: Battles,
    *,
    ties: Literal["half", "davidson"] = "half",
    style_control: bool = False,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    l2: float = 0.0,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[BradleyTerryResult, StyleControlResult | None]:
    """Bradley-Terry ratings of the battles, and the style-controlled fit when asked for.

    Both bootstrap over questions when the battles name them, and fall back to a
    ridge of :data:`FALLBACK_L2` when ``l2`` is 0 and the ratings have no finite
    maximum (each result says so).

    Returns:
        The leaderboard, and the style-controlled one (``None`` unless ``style_control``).

    Raises:
        ConfigError: ``style_control`` on battles without their answers.
    """
    from fairjudge.stats import bradley_terry, style_controlled_bradley_terry  # scipy: lazily

    outcomes = [o.value for o in battles.outcomes]
    leaderboard = bradley_terry(
        battles.model_a, battles.model_b, outcomes, ties=ties, anchor=anchor,
        anchor_rating=anchor_rating, l2=l2, fallback_l2=FALLBACK_L2,
        n_resamples=n_resamples, seed=seed, questions=battles.questions,
    )  # fmt: skip
    styled = None
    if style_control:
        if battles.answers_a is None or battles.answers_b is None:
            raise ConfigError(
                "style_control needs the answers: give long-format input", params="style_control"
            )
        styled = style_controlled_bradley_terry(
            battles.model_a, battles.model_b, outcomes, battles.answers_a, battles.answers_b,
            anchor=anchor, anchor_rating=anchor_rating, l2=l2, fallback_l2=FALLBACK_L2,
            n_resamples=n_resamples, seed=seed, questions=battles.questions,
        )  # fmt: skip
    return leaderboard, styled
