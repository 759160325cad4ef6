"""Versioned prompt templates and rubrics, and the parsers that read verdicts and scores.

The score parsers (:mod:`._score_parse`) load on first use (PEP 562): they build
pydantic models, and ``import fairjudge`` should not pay for pydantic.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes
from fairjudge.prompts._parse import (
    VERDICT_FORMATS,
    VerdictFormat,
    parse_verdict,
    probabilities_from_logprobs,
)
from fairjudge.prompts._rubrics import (
    DEFAULT_RUBRIC,
    Dimension,
    Rubric,
    defuse_blocks,
    get_rubric,
    list_rubrics,
    load_rubric,
)
from fairjudge.prompts._templates import (
    PairwiseTemplate,
    defuse,
    get_template,
    list_templates,
    load_template,
)

if TYPE_CHECKING:
    from fairjudge.prompts._score_parse import (
        ExpectedScore,
        ScoreReading,
        expected_score,
        parse_score_label,
        parse_scores,
        validate_scores,
    )

__getattr__ = lazy_attributes(
    __name__,
    {
        "fairjudge.prompts._score_parse": (
            "ExpectedScore ScoreReading expected_score parse_score_label "
            "parse_scores validate_scores"
        ),
    },
)

__all__ = [
    "DEFAULT_RUBRIC",
    "VERDICT_FORMATS",
    "Dimension",
    "ExpectedScore",
    "PairwiseTemplate",
    "Rubric",
    "ScoreReading",
    "VerdictFormat",
    "defuse",
    "defuse_blocks",
    "expected_score",
    "get_rubric",
    "get_template",
    "list_rubrics",
    "list_templates",
    "load_rubric",
    "load_template",
    "parse_score_label",
    "parse_scores",
    "parse_verdict",
    "probabilities_from_logprobs",
    "validate_scores",
]
