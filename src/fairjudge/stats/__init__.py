"""Pure numerics: intervals, win rates, position-bias metrics, rankings, agreement."""

from fairjudge.stats._intervals import ConfidenceInterval, bootstrap_mean

__all__ = ["ConfidenceInterval", "bootstrap_mean"]
