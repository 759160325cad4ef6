"""How one evaluation runs: a frozen, validated value recorded with every result.

A result carries the settings that produced it (rule, rounds, seed, bootstrap), so
it can be reproduced and re-resolved; and the settings are checked once, when they
are built, so a bad ``--rounds`` is an error that names the flag before the first
judge call, never a traceback after it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from fairjudge._errors import ConfigError
from fairjudge._types import Resolution

__all__ = [
    "EvalSettings",
    "RuleLike",
    "as_rule",
    "check_bootstrap",
    "check_probabilities",
    "check_repeats",
]

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
    """Refuse rounds beyond 2 on a judge that does not sample.

    Beyond the first call in each order, a round repeats an identical request; at
    temperature 0 it is byte-identical, so it would be paid for again (it differs in
    its sample index, and so in its cache key) and would only repeat the first answer.

    Raises:
        ConfigError: ``rounds`` > 2 and ``temperature`` is 0.
    """
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


def check_bootstrap(level: float, n_resamples: int) -> None:
    """Refuse a confidence level outside (0, 1) or fewer than one resample.

    Raises:
        ConfigError: Either is out of range; the message names the parameter.
    """
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
            judge several times in each order.
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
        check_bootstrap(self.level, self.n_resamples)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``None`` provenance fields are left out."""
        data = asdict(self)
        data["rule"] = self.rule.value
        return {k: v for k, v in data.items() if v is not None}
