"""Pure numerics: intervals, win rates, position-bias metrics, rankings, agreement.

Names are loaded on first use (PEP 562), so ``import fairjudge`` does not pay for
scipy: the command line and the core protocol start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes

if TYPE_CHECKING:
    from fairjudge.stats._agreement import (
        AgreementResult,
        ConfusionMatrix,
        judge_agreement,
    )
    from fairjudge.stats._bradley_terry import (
        BradleyTerryResult,
        bradley_terry,
    )
    from fairjudge.stats._elo import (
        OnlineEloResult,
        online_elo,
    )
    from fairjudge.stats._intervals import (
        ConfidenceInterval,
        bootstrap_mean,
        shared_resamples,
    )
    from fairjudge.stats._leaderboard import ModelRating
    from fairjudge.stats._length_control import (
        LengthControlledWinRate,
        length_controlled_win_rate,
    )
    from fairjudge.stats._panel import (
        EffectiveJudges,
        FleissKappa,
        agreement_matrix,
        effective_judges,
        fleiss_kappa,
        krippendorff_alpha,
    )
    from fairjudge.stats._position_bias import (
        PositionBiasResult,
        Proportion,
        outcomes_from_positions,
        position_bias,
    )
    from fairjudge.stats._rank_stats import (
        CorrelationResult,
        score_correlation,
    )
    from fairjudge.stats._style_control import (
        StyleCoefficient,
        StyleControlResult,
        style_controlled_bradley_terry,
    )
    from fairjudge.stats._style_features import (
        StyleFeatures,
        style_features,
    )
    from fairjudge.stats._system_agreement import (
        SystemAgreementResult,
        system_agreement,
    )

__getattr__ = lazy_attributes(
    __name__,
    {
        "fairjudge.stats._agreement": "AgreementResult ConfusionMatrix judge_agreement",
        "fairjudge.stats._bradley_terry": "BradleyTerryResult bradley_terry",
        "fairjudge.stats._intervals": "ConfidenceInterval bootstrap_mean shared_resamples",
        "fairjudge.stats._length_control": "LengthControlledWinRate length_controlled_win_rate",
        "fairjudge.stats._leaderboard": "ModelRating",
        "fairjudge.stats._elo": "OnlineEloResult online_elo",
        "fairjudge.stats._panel": (
            "EffectiveJudges FleissKappa agreement_matrix effective_judges fleiss_kappa "
            "krippendorff_alpha"
        ),
        "fairjudge.stats._position_bias": (
            "PositionBiasResult Proportion outcomes_from_positions position_bias"
        ),
        "fairjudge.stats._rank_stats": "CorrelationResult score_correlation",
        "fairjudge.stats._style_control": (
            "StyleCoefficient StyleControlResult style_controlled_bradley_terry"
        ),
        "fairjudge.stats._style_features": "StyleFeatures style_features",
        "fairjudge.stats._system_agreement": "SystemAgreementResult system_agreement",
    },
)

__all__ = [
    "AgreementResult",
    "BradleyTerryResult",
    "ConfidenceInterval",
    "ConfusionMatrix",
    "CorrelationResult",
    "EffectiveJudges",
    "FleissKappa",
    "LengthControlledWinRate",
    "ModelRating",
    "OnlineEloResult",
    "PositionBiasResult",
    "Proportion",
    "StyleCoefficient",
    "StyleControlResult",
    "StyleFeatures",
    "SystemAgreementResult",
    "agreement_matrix",
    "bootstrap_mean",
    "bradley_terry",
    "effective_judges",
    "fleiss_kappa",
    "judge_agreement",
    "krippendorff_alpha",
    "length_controlled_win_rate",
    "online_elo",
    "outcomes_from_positions",
    "position_bias",
    "score_correlation",
    "shared_resamples",
    "style_controlled_bradley_terry",
    "style_features",
    "system_agreement",
]
