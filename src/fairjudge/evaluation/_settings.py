"""How one evaluation runs, and the frame every result shares.

:class:`~fairjudge.evaluation.EvalSettings` is frozen and checked once, when built, so
a bad ``--rounds`` names the flag before the first judge call. :class:`ResultFrame`
holds what every result has: its seed, level, resamples, stop and failures.
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from fairjudge._errors import ConfigError
from fairjudge._types import CallError, ParseFailure, Resolution, never_made

__all__ = [
    "MAX_PLANNED_CALLS",
    "MAX_ROUNDS",
    "EvalSettings",
    "Failure",
    "ResultFrame",
    "RuleLike",
    "SettingsFrame",
    "as_rule",
    "check_bootstrap",
    "check_plan",
    "check_probabilities",
    "check_repeats",
    "failure_reasons",
    "max_calls_of",
    "members_failures",
]


MAX_ROUNDS = 100
"""The most calls per item a run plans (``rounds``, ``--rounds``): :func:`check_repeats`.

Past the first call in each order, a round samples the judge again: the rounds measure
how often the judge gives each label on an item (the soft rule's score, the majority's
support), with a standard error of at most ``0.5 / sqrt(rounds)`` per item, 0.05 at
100. The win rate's interval is made from how much the items differ from each other,
to which that error adds a part ``rounds`` times smaller than itself: past 100 rounds
no report shows a change, and more calls only cost. A larger number is a typo:
``--rounds 1000000`` on 20 items planned 40 million calls. :class:`EvalSettings` takes
any number, as it also describes runs already made (a results file read back).
"""

MAX_PLANNED_CALLS = 1_000_000
"""The most calls a run plans without a ``max_calls`` budget (:func:`check_plan`).

A run builds every call (its prompt rendered, its key hashed, its store row looked
up) before it sends the first. ``benchmarks/bench_plan.py`` (``compare --judge
openai/... --max-calls 0``, items of about 170 characters, on two shared cores) measured
about 1.7 KB of peak memory and 75 microseconds of CPU a call, on top of about 235 MB
for the interpreter, the imports and the bootstrap's resampling plan: 300,000 calls
peaked at 574 MB after 22 s of CPU, so 1,000,000 calls need about 2 GB and more than a
minute (longer prompts cost more). From 100,000 calls a line on standard error says the
plan is being built (:func:`~fairjudge.runner._progress.announce_plan`). A plan past
this limit is refused unless ``max_calls`` says the run is meant to be that large.
"""


def check_plan(n_items: int, rounds: int, judge: object) -> None:
    """Refuse a plan of more than :data:`MAX_PLANNED_CALLS` calls when no budget is set.

    Checked before any call is built. The plan is ``n_items x rounds`` calls for each
    of a panel's members (``judge.members``); a replay (:class:`~fairjudge.judges.
    ReplayJudge`, a panel read back from its results file) calls no one: no limit.

    Raises:
        ConfigError: The plan is past the limit and the judge has no ``max_calls``
            budget; the message names the count and the way to run it.
    """
    from fairjudge.judges import ReplayJudge

    judges = [getattr(m, "judge", None) for m in getattr(judge, "members", ())] or [judge]
    planned = n_items * rounds * len(judges)
    if planned <= MAX_PLANNED_CALLS or all(isinstance(j, ReplayJudge) for j in judges):
        return
    if max_calls_of(judge) is not None:
        return
    panel = f" x {len(judges):,} judges" if len(judges) > 1 else ""
    raise ConfigError(
        f"this run would plan {planned:,} judge calls ({n_items:,} items x rounds={rounds}"
        f"{panel}), more than the {MAX_PLANNED_CALLS:,} a run plans with no max_calls budget "
        "(every call is built in memory, about 1.2 KB each, before the first is sent); "
        "check rounds and the input, or set max_calls=N to run it with a cap on the new calls",
        params=("rounds", "max_calls"),
    )


def max_calls_of(judge: object) -> int | None:
    """The ``max_calls`` budget ``judge`` runs under (``None``: none).

    A panel's is its own :attr:`~fairjudge.judges.Jury.max_calls` (the one rule for a
    panel, which its Python members share out as they answer); one judge's is its
    session's (a model judge) or its own run options' (a Python judge).
    """
    from fairjudge.judges import Jury, PointwiseJury

    if isinstance(judge, Jury | PointwiseJury):
        return judge.max_calls
    for owner in (getattr(judge, "session", None), judge):
        limit = getattr(getattr(owner, "options", None), "max_calls", None)
        if isinstance(limit, int):
            return limit
    return None


RuleLike = Resolution | Literal["conservative", "lenient", "soft"]


def as_rule(rule: RuleLike) -> Resolution:
    """The rule as a :class:`~fairjudge.Resolution`.

    Raises:
        ConfigError: Not a known rule; the message lists them.
    """
    try:
        return Resolution(rule)
    except ValueError:
        names = ", ".join(r.value for r in Resolution)
        raise ConfigError(f"rule must be one of {names}; got {rule!r}", params="rule") from None


def check_repeats(rounds: int, temperature: float | None) -> None:
    """Refuse rounds past :data:`MAX_ROUNDS`, and beyond 2 on a judge that does not sample.

    Beyond the first call in each order, a round repeats an identical request; at
    temperature 0 it is byte-identical, so it would be paid for again (it differs in
    its sample index, and so in its cache key) and would only repeat the first answer.
    Checked where a run is planned: before a model judge opens, and in
    :func:`~fairjudge.evaluation.evaluate` before any call is built.

    Raises:
        ConfigError: ``rounds`` past :data:`MAX_ROUNDS` (the message says why and
            what to use), or ``rounds`` > 2 and ``temperature`` is 0.
    """
    if rounds > MAX_ROUNDS:
        raise ConfigError(
            f"rounds must be at most {MAX_ROUNDS}; got {rounds}: past 2, each round samples "
            f"the judge again, and at {MAX_ROUNDS} the sampling error of an item's score is "
            "at most 0.05, too small to move the interval; use 4 to 20 (more measure an "
            f"item's score more finely), up to {MAX_ROUNDS}",
            params="rounds",
        )
    if rounds > 2 and temperature is not None and not temperature > 0:
        raise ConfigError(
            f"rounds={rounds} repeats each order {rounds // 2} times, but the judge does not "
            f"sample (temperature={temperature:g}), so the repeats would be identical "
            "calls paid for again; sample above 0 (e.g. temperature=0.7), or use rounds=2",
            params=("rounds", "temperature"),
        )


def check_probabilities(rule: Resolution, rounds: int, judge: object) -> None:
    """Refuse the soft rule on a judge that reports no probabilities and does not sample.

    The soft rule averages the judge's probability of each label. A judge that gives
    no logprobs (an OpenAI reasoning model, Claude) gives a label only, so its
    "probability" would be 0 or 1 unmeasured; when its replies are samples (a
    temperature above 0, as reasoning models and extended thinking fix at 1), the
    mean over ``rounds`` sampled labels estimates the probability instead, with a
    standard error of at most ``0.5 / sqrt(rounds)`` per item.

    Raises:
        ConfigError: ``rule`` is soft, the judge's backend sends no logprob requests,
            and it does not sample with ``rounds`` above 2.
    """
    if rule != Resolution.SOFT:
        return
    backend = getattr(judge, "backend", None)
    if backend is None or getattr(backend, "sends_logprobs", True):
        return
    temperature = getattr(judge, "temperature", None)
    samples = temperature is not None and temperature > 0
    if samples and rounds > 2:
        return
    name = f"{getattr(backend, 'name', '?')}/{getattr(backend, 'model', '?')}"
    fix = (
        "sample it: rounds=4 or more, an even number when balanced (its replies are samples, "
        "so the soft score is the share of sampled labels; more rounds measure it more finely)"
        if samples
        else "use rule=conservative or rule=lenient"
    )
    raise ConfigError(
        f"rule=soft needs the judge's probabilities, and {name} reports no logprobs; "
        f"{fix}: fairjudge never reports a probability it did not measure",
        params=("rule", "rounds"),
    )


def check_bootstrap(level: float, n_resamples: int, seed: int = 0) -> None:
    """Refuse a confidence level outside (0, 1), fewer than one resample or a negative seed.

    Checked before any judge call: a negative seed would otherwise fail in the
    bootstrap, after every call was made and paid for.

    Raises:
        ConfigError: One is out of range; the message names the parameter.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ConfigError(f"seed must be >= 0; got {seed!r}", params="seed")
    if not 0 < level < 1:
        raise ConfigError(f"level must be in (0, 1); got {level!r}", params="level")
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1; got {n_resamples!r}", params="n_resamples")


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """The protocol and statistics settings of one evaluation.

    Attributes:
        rule: How the calls on an item resolve (:class:`fairjudge.Resolution`).
        rounds: Calls per item: 2 is the seed's swap; 1 is a single order (no
            swap, so no debiasing and no consistency figure); more sample the
            judge several times in each order; a run plans at most
            :data:`MAX_ROUNDS` (100), checked by :func:`check_repeats`.
        balanced: With ``rounds`` > 2, exactly half the calls in each order.
        seed: Run seed for randomised orders and the bootstrap.
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples.
        judge: Which judge produced the calls, for the record.
        template: Template name and version, for the record.
        source: The input file, for the record.

    Raises:
        ConfigError: A setting is out of range; the message names the parameter.
    """

    rule: Resolution = Resolution.CONSERVATIVE
    rounds: int = 2
    balanced: bool = True
    seed: int = 0
    level: float = 0.95
    n_resamples: int = 2000
    judge: str | None = None
    template: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule", as_rule(self.rule))
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            raise ConfigError(
                f"rounds must be an integer >= 1; got {self.rounds!r}", params="rounds"
            )
        if self.rounds > 2 and self.balanced and self.rounds % 2:
            raise ConfigError(
                f"rounds={self.rounds} with balanced=True must be even, so that each order "
                "gets half the calls; use an even number, or balanced=False for coin-flip orders",
                params=("rounds", "balanced"),
            )
        check_bootstrap(self.level, self.n_resamples, self.seed)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``None`` provenance fields are left out."""
        data = asdict(self)
        data["rule"] = self.rule.value
        return {k: v for k, v in data.items() if v is not None}


Failure = ParseFailure | CallError | None
"""What one call's reply failed with, or ``None`` when it produced a reading."""


def failure_reasons(failures: Iterable[Failure]) -> Counter[str]:
    """Failures grouped by reason: ``"parse failure: <reason>"`` or ``"<kind>: <message>"``.

    A call a budget never started (``NotRun``) is not a failure: it is counted by
    :attr:`ResultFrame.n_not_run` instead.
    """
    reasons: Counter[str] = Counter()
    for f in failures:
        if isinstance(f, ParseFailure):
            reasons[f"parse failure: {f.reason}"] += 1
        elif isinstance(f, CallError) and not never_made(f):
            reasons[f"{f.kind}: {f.message}"] += 1
    return reasons


def members_failures(names: Sequence[str], members: Sequence[ResultFrame]) -> Counter[str]:
    """A panel's failures: each member's, each reason prefixed by the member's name."""
    reasons: Counter[str] = Counter()
    for name, member in zip(names, members, strict=True):
        for reason, count in member.failures.items():
            reasons[f"{name}: {reason}"] += count
    return reasons


class ResultFrame:
    """The facts every result shares, and their JSON, written once.

    Attributes:
        seed: The bootstrap seed (a field or a property of the result).
        level: The intervals' confidence level.
        n_resamples: Bootstrap resamples.
        stopped: Why the run stopped before every call was made (a spent budget), or
            ``None`` when it ran to the end. A stopped result is partial.
    """

    __slots__ = ()

    # Given by each result as dataclass fields or properties: declared for the type
    # checker only, as a class attribute here would become a field's default.
    if TYPE_CHECKING:

        @property
        def seed(self) -> int:
            raise NotImplementedError

        @property
        def level(self) -> float:
            raise NotImplementedError

        @property
        def n_resamples(self) -> int:
            raise NotImplementedError

        @property
        def stopped(self) -> str | None:
            raise NotImplementedError

    def item_failures(self) -> Iterator[Iterable[Failure]]:
        """Per item, its calls' failures (``None`` for a call that gave a reading)."""
        raise NotImplementedError  # pragma: no cover - each result gives it

    @property
    def partial(self) -> bool:
        """Whether a budget stopped the run before every call was made."""
        return self.stopped is not None

    @property
    def n_not_run(self) -> int:
        """Items with a call never made (a budget stopped the run first)."""
        return sum(any(never_made(f) for f in item) for item in self.item_failures())

    @property
    def failures(self) -> Counter[str]:
        """Why calls failed, grouped: ``"parse failure: <reason>"`` or ``"<kind>: <message>"``."""
        return failure_reasons(f for item in self.item_failures() for f in item)

    def settings_dict(self) -> dict[str, Any]:
        """The settings' part of the JSON: the bootstrap's seed, level and resamples.

        A result whose settings hold more (the pairwise rule and rounds) renders them
        whole instead, under ``"settings"``.
        """
        return {"seed": self.seed, "level": self.level, "n_resamples": self.n_resamples}

    def frame_dict(self, *, partial: bool = True) -> dict[str, Any]:
        """The frame's part of the JSON: the settings, ``partial`` and ``stopped``.

        Args:
            partial: Whether to include ``partial`` (``score``'s JSON never had it,
                and its JSON does not change).
        """
        stop: dict[str, Any] = {"partial": self.partial} if partial else {}
        return {**self.settings_dict(), **stop, "stopped": self.stopped}


class SettingsFrame(ResultFrame):
    """A :class:`ResultFrame` whose bootstrap is its ``settings``' (pairwise results).

    The result gives ``settings`` (an :class:`EvalSettings`) as a dataclass field; the
    JSON carries them whole, under ``"settings"``.
    """

    __slots__ = ()

    if TYPE_CHECKING:  # a dataclass field of each result (see ResultFrame)
        settings: EvalSettings

    @property
    def seed(self) -> int:
        """The run's seed (from :attr:`settings`)."""
        return self.settings.seed

    @property
    def level(self) -> float:
        """The intervals' confidence level (from :attr:`settings`)."""
        return self.settings.level

    @property
    def n_resamples(self) -> int:
        """Bootstrap resamples (from :attr:`settings`)."""
        return self.settings.n_resamples

    def settings_dict(self) -> dict[str, Any]:
        """The settings whole (rule, rounds and the bootstrap), under ``"settings"``."""
        return {"settings": self.settings.to_dict()}
