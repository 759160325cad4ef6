"""Pure numerics: intervals, win rates, position-bias metrics, rankings, agreement.

Names are loaded on first use (PEP 562), so ``import fairjudge`` does not pay for
scipy: the command line and the core protocol start fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
    from fairjudge.stats._correlation import (
        CorrelationResult,
        score_correlation,
    )
    from fairjudge.stats._elo import (
        OnlineEloResult,
        online_elo,
    )
    from fairjudge.stats._intervals import (
        ConfidenceInterval,
        bootstrap_mean,
    )
    from fairjudge.stats._leaderboard import ModelRating
    from fairjudge.stats._length_control import (
        LengthControlledWinRate,
        length_controlled_win_rate,
    )
    from fairjudge.stats._position_bias import (
        PositionBiasResult,
        Proportion,
        outcomes_from_positions,
        position_bias,
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

_LAZY = {
    "AgreementResult": "fairjudge.stats._agreement",
    "BradleyTerryResult": "fairjudge.stats._bradley_terry",
    "ConfidenceInterval": "fairjudge.stats._intervals",
    "ConfusionMatrix": "fairjudge.stats._agreement",
    "CorrelationResult": "fairjudge.stats._correlation",
    "LengthControlledWinRate": "fairjudge.stats._length_control",
    "ModelRating": "fairjudge.stats._leaderboard",
    "OnlineEloResult": "fairjudge.stats._elo",
    "PositionBiasResult": "fairjudge.stats._position_bias",
    "Proportion": "fairjudge.stats._position_bias",
    "StyleCoefficient": "fairjudge.stats._style_control",
    "StyleControlResult": "fairjudge.stats._style_control",
    "StyleFeatures": "fairjudge.stats._style_features",
    "SystemAgreementResult": "fairjudge.stats._system_agreement",
    "bootstrap_mean": "fairjudge.stats._intervals",
    "bradley_terry": "fairjudge.stats._bradley_terry",
    "judge_agreement": "fairjudge.stats._agreement",
    "length_controlled_win_rate": "fairjudge.stats._length_control",
    "online_elo": "fairjudge.stats._elo",
    "outcomes_from_positions": "fairjudge.stats._position_bias",
    "position_bias": "fairjudge.stats._position_bias",
    "score_correlation": "fairjudge.stats._correlation",
    "style_controlled_bradley_terry": "fairjudge.stats._style_control",
    "style_features": "fairjudge.stats._style_features",
    "system_agreement": "fairjudge.stats._system_agreement",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairjudge.stats' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
