"""Pure numerics: intervals, win rates, position-bias metrics, rankings, agreement."""

from fairjudge.stats._agreement import AgreementResult, ConfusionMatrix, judge_agreement
from fairjudge.stats._bradley_terry import BradleyTerryResult, ModelRating, bradley_terry
from fairjudge.stats._correlation import (
    CorrelationResult,
    SystemAgreementResult,
    score_correlation,
    system_agreement,
)
from fairjudge.stats._elo import OnlineEloResult, online_elo
from fairjudge.stats._intervals import ConfidenceInterval, bootstrap_mean
from fairjudge.stats._length_control import LengthControlledWinRate, length_controlled_win_rate
from fairjudge.stats._position_bias import (
    PositionBiasResult,
    Proportion,
    outcomes_from_positions,
    position_bias,
)
from fairjudge.stats._style_control import (
    StyleCoefficient,
    StyleControlResult,
    StyleFeatures,
    style_controlled_bradley_terry,
    style_features,
)

__all__ = [
    "AgreementResult",
    "BradleyTerryResult",
    "ConfidenceInterval",
    "ConfusionMatrix",
    "CorrelationResult",
    "LengthControlledWinRate",
    "ModelRating",
    "OnlineEloResult",
    "PositionBiasResult",
    "Proportion",
    "StyleCoefficient",
    "StyleControlResult",
    "StyleFeatures",
    "SystemAgreementResult",
    "bootstrap_mean",
    "bradley_terry",
    "judge_agreement",
    "length_controlled_win_rate",
    "online_elo",
    "outcomes_from_positions",
    "position_bias",
    "score_correlation",
    "style_controlled_bradley_terry",
    "style_features",
    "system_agreement",
]
