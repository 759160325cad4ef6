"""How far to trust a judge: calibration against human labels (bias experiments to come)."""

from fairjudge.audit._calibration import calibration_report, check_labels

__all__ = ["calibration_report", "check_labels"]
