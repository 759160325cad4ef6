"""How far to trust a judge: its biases measured, and its agreement with human labels.

- :func:`audit`: the report card of one or more judges on position, verbosity,
  framing and self-preference bias, each effect with its CI, a verdict against
  documented thresholds and the residual after its mitigation
  (:class:`AuditReport`). Runs on the built-in suite (:func:`builtin_items`) or the
  user's items (:func:`load_audit_items`).
- :func:`calibration_report`: a pairwise judge's verdicts against human labels, with
  its gate (:class:`CalibrationGate`: Cohen's kappa and Spearman checks).
- :func:`score_calibration_report`: a pointwise judge's rubric scores against human
  scores, per dimension.

Everything but the pairwise calibration loads on first use (PEP 562).
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes
from fairjudge.audit._calibration import (
    CalibrationGate,
    GateCheck,
    calibration_report,
    check_labels,
)

if TYPE_CHECKING:
    from fairjudge.audit._audit import EXPERIMENTS, AuditReport, audit, plan_experiments
    from fairjudge.audit._audit_items import AuditItem, builtin_items, load_audit_items
    from fairjudge.audit._effects import THRESHOLDS, Effect
    from fairjudge.audit._experiment import AuditSettings, ExperimentResult
    from fairjudge.audit._judges import AuditJudge, ModelAuditJudge, family_of
    from fairjudge.audit._padding import pad_answer, repetitive_list
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
        "fairjudge.audit._audit": "EXPERIMENTS AuditReport audit plan_experiments",
        "fairjudge.audit._audit_items": "AuditItem builtin_items load_audit_items",
        "fairjudge.audit._effects": "THRESHOLDS Effect",
        "fairjudge.audit._experiment": "AuditSettings ExperimentResult",
        "fairjudge.audit._judges": "AuditJudge ModelAuditJudge family_of",
        "fairjudge.audit._padding": "pad_answer repetitive_list",
        "fairjudge.audit._score_calibration": (
            "DimensionCalibration ScoreCalibration SystemScoreAgreement check_score_labels "
            "score_calibration_report system_score_agreement"
        ),
    },
)

__all__ = [
    "EXPERIMENTS",
    "THRESHOLDS",
    "AuditItem",
    "AuditJudge",
    "AuditReport",
    "AuditSettings",
    "CalibrationGate",
    "DimensionCalibration",
    "Effect",
    "ExperimentResult",
    "GateCheck",
    "ModelAuditJudge",
    "ScoreCalibration",
    "SystemScoreAgreement",
    "audit",
    "builtin_items",
    "calibration_report",
    "check_labels",
    "check_score_labels",
    "family_of",
    "load_audit_items",
    "pad_answer",
    "plan_experiments",
    "repetitive_list",
    "score_calibration_report",
    "system_score_agreement",
]
