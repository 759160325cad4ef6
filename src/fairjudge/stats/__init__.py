"""Pure numerics: intervals, win rates, position-bias metrics, rankings, agreement.

Names are loaded on first use (PEP 562), so ``import fairjudge`` does not pay for
scipy: the command line and the core protocol start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface

if TYPE_CHECKING:
    from fairjudge.stats._agreement import (
        AgreementResult,
        KrippendorffAlpha,
        judge_agreement,
        krippendorff_alpha_ci,
        system_agreement,
    )
    from fairjudge.stats._bradley_terry import BradleyTerryResult, bradley_terry
    from fairjudge.stats._bt_data import online_elo
    from fairjudge.stats._confseq import POPULATIONS, ConfidenceSequence, Population, StopRule
    from fairjudge.stats._intervals import (
        ConfidenceInterval,
        bootstrap_mean,
        did_not_vary,
        prefetch_resamples,
        shared_resamples,
        single_cluster_reason,
    )
    from fairjudge.stats._leaderboard import ModelRating
    from fairjudge.stats._logistic import LengthControlledWinRate, length_controlled_win_rate
    from fairjudge.stats._panel import (
        EffectiveJudges,
        FleissKappa,
        agreement_matrix,
        effective_judges,
        fleiss_kappa,
        krippendorff_alpha,
    )
    from fairjudge.stats._position_bias import PositionBiasResult, position_bias
    from fairjudge.stats._rank_stats import (
        CorrelationResult,
        RankCorrelation,
        correlation_fields,
        rank_corr_rows,
        score_correlation,
    )
    from fairjudge.stats._resample import (
        chunk_sizes,
        cluster_draws,
        percentile_bounds,
        plan_bootstrap,
        weighted_means,
    )
    from fairjudge.stats._style_control import StyleControlResult, style_controlled_bradley_terry
    from fairjudge.stats._validate import FloatArray

__all__ = [
    "POPULATIONS",
    "AgreementResult",
    "BradleyTerryResult",
    "ConfidenceInterval",
    "ConfidenceSequence",
    "CorrelationResult",
    "EffectiveJudges",
    "FleissKappa",
    "FloatArray",
    "KrippendorffAlpha",
    "LengthControlledWinRate",
    "ModelRating",
    "Population",
    "PositionBiasResult",
    "RankCorrelation",
    "StopRule",
    "StyleControlResult",
    "agreement_matrix",
    "bootstrap_mean",
    "bradley_terry",
    "chunk_sizes",
    "cluster_draws",
    "correlation_fields",
    "did_not_vary",
    "effective_judges",
    "fleiss_kappa",
    "judge_agreement",
    "krippendorff_alpha",
    "krippendorff_alpha_ci",
    "length_controlled_win_rate",
    "online_elo",
    "percentile_bounds",
    "plan_bootstrap",
    "position_bias",
    "prefetch_resamples",
    "rank_corr_rows",
    "score_correlation",
    "shared_resamples",
    "single_cluster_reason",
    "style_controlled_bradley_terry",
    "system_agreement",
    "weighted_means",
]

_LAZY = {
    "AgreementResult": "fairjudge.stats._agreement",
    "judge_agreement": "fairjudge.stats._agreement",
    "KrippendorffAlpha": "fairjudge.stats._agreement",
    "krippendorff_alpha_ci": "fairjudge.stats._agreement",
    "FloatArray": "fairjudge.stats._validate",
    "BradleyTerryResult": "fairjudge.stats._bradley_terry",
    "bradley_terry": "fairjudge.stats._bradley_terry",
    "ConfidenceSequence": "fairjudge.stats._confseq",
    "online_elo": "fairjudge.stats._bt_data",
    "ConfidenceInterval": "fairjudge.stats._intervals",
    "bootstrap_mean": "fairjudge.stats._intervals",
    "did_not_vary": "fairjudge.stats._intervals",
    "prefetch_resamples": "fairjudge.stats._intervals",
    "shared_resamples": "fairjudge.stats._intervals",
    "single_cluster_reason": "fairjudge.stats._intervals",
    "ModelRating": "fairjudge.stats._leaderboard",
    "LengthControlledWinRate": "fairjudge.stats._logistic",
    "length_controlled_win_rate": "fairjudge.stats._logistic",
    "EffectiveJudges": "fairjudge.stats._panel",
    "FleissKappa": "fairjudge.stats._panel",
    "agreement_matrix": "fairjudge.stats._panel",
    "effective_judges": "fairjudge.stats._panel",
    "fleiss_kappa": "fairjudge.stats._panel",
    "krippendorff_alpha": "fairjudge.stats._panel",
    "PositionBiasResult": "fairjudge.stats._position_bias",
    "position_bias": "fairjudge.stats._position_bias",
    "CorrelationResult": "fairjudge.stats._rank_stats",
    "RankCorrelation": "fairjudge.stats._rank_stats",
    "correlation_fields": "fairjudge.stats._rank_stats",
    "rank_corr_rows": "fairjudge.stats._rank_stats",
    "score_correlation": "fairjudge.stats._rank_stats",
    "chunk_sizes": "fairjudge.stats._resample",
    "cluster_draws": "fairjudge.stats._resample",
    "percentile_bounds": "fairjudge.stats._resample",
    "plan_bootstrap": "fairjudge.stats._resample",
    "weighted_means": "fairjudge.stats._resample",
    "POPULATIONS": "fairjudge.stats._confseq",
    "Population": "fairjudge.stats._confseq",
    "StopRule": "fairjudge.stats._confseq",
    "StyleControlResult": "fairjudge.stats._style_control",
    "style_controlled_bradley_terry": "fairjudge.stats._style_control",
    "system_agreement": "fairjudge.stats._agreement",
}

package_surface(globals(), _LAZY)
