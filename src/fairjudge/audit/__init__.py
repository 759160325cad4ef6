"""How far to trust a judge: calibration against human labels (bias experiments to come).

- :func:`calibration_report`: a pairwise judge's verdicts against human labels.
- :func:`score_calibration_report`: a pointwise judge's rubric scores against human
  scores, per dimension. It and its types load on first use (PEP 562), with scipy.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes
from fairjudge.audit._calibration import calibration_report, check_labels

if TYPE_CHECKING:
    from fairjudge.audit._score_calibration import (
        DimensionCalibration,
        ScoreCalibration,
        SystemScoreAgreement,
        check_score_labels,
        score_calibration_report,
        system_score_agreement,
    )

__getattr__ = lazy_attributes(
    __name__,
    {
        "fairjudge.audit._score_calibration": (
            "DimensionCalibration ScoreCalibration SystemScoreAgreement check_score_labels "
            "score_calibration_report system_score_agreement"
        ),
    },
)

__all__ = [
    "DimensionCalibration",
    "ScoreCalibration",
    "SystemScoreAgreement",
    "calibration_report",
    "check_labels",
    "check_score_labels",
    "score_calibration_report",
    "system_score_agreement",
]
