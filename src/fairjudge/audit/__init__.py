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
- :func:`merge_labels`, :func:`merge_score_labels`: two labellers' files of the same
  items merged, with their agreement (Cohen's kappa on pairwise labels; per dimension
  Krippendorff's alpha and Spearman on rubric scores), every disagreement kept.

Everything but the pairwise calibration loads on first use (PEP 562).
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface
from fairjudge.audit._calibration import CalibrationGate, calibration_report, check_labels

if TYPE_CHECKING:
    from fairjudge.audit._audit import AuditReport, audit, plan_experiments
    from fairjudge.audit._audit_items import AuditItem, builtin_items, load_audit_items
    from fairjudge.audit._calibration import MIN_KAPPA, MIN_SPEARMAN, check_threshold
    from fairjudge.audit._experiment import (
        THRESHOLDS,
        AuditJudge,
        AuditSettings,
        Effect,
        ExperimentResult,
        ModelAuditJudge,
    )
    from fairjudge.audit._label_merge import merge_labels
    from fairjudge.audit._score_calibration import (
        ScoreCalibration,
        check_score_labels,
        score_calibration_report,
    )
    from fairjudge.audit._score_label_merge import merge_score_labels

__all__ = [
    "MIN_KAPPA",
    "MIN_SPEARMAN",
    "THRESHOLDS",
    "AuditItem",
    "AuditJudge",
    "AuditReport",
    "AuditSettings",
    "CalibrationGate",
    "Effect",
    "ExperimentResult",
    "ModelAuditJudge",
    "ScoreCalibration",
    "audit",
    "builtin_items",
    "calibration_report",
    "check_labels",
    "check_score_labels",
    "check_threshold",
    "load_audit_items",
    "merge_labels",
    "merge_score_labels",
    "plan_experiments",
    "score_calibration_report",
]

_LAZY = {
    "AuditReport": "fairjudge.audit._audit",
    "audit": "fairjudge.audit._audit",
    "plan_experiments": "fairjudge.audit._audit",
    "AuditItem": "fairjudge.audit._audit_items",
    "builtin_items": "fairjudge.audit._audit_items",
    "load_audit_items": "fairjudge.audit._audit_items",
    "MIN_KAPPA": "fairjudge.audit._calibration",
    "MIN_SPEARMAN": "fairjudge.audit._calibration",
    "check_threshold": "fairjudge.audit._calibration",
    "Effect": "fairjudge.audit._experiment",
    "THRESHOLDS": "fairjudge.audit._experiment",
    "AuditSettings": "fairjudge.audit._experiment",
    "ExperimentResult": "fairjudge.audit._experiment",
    "AuditJudge": "fairjudge.audit._experiment",
    "ModelAuditJudge": "fairjudge.audit._experiment",
    "merge_labels": "fairjudge.audit._label_merge",
    "merge_score_labels": "fairjudge.audit._score_label_merge",
    "ScoreCalibration": "fairjudge.audit._score_calibration",
    "check_score_labels": "fairjudge.audit._score_calibration",
    "score_calibration_report": "fairjudge.audit._score_calibration",
}

package_surface(globals(), _LAZY)
