"""Versioned prompt templates and rubrics, and the parsers that read verdicts and scores.

The score parsers (:mod:`._score_parse`) load on first use (PEP 562): they build
pydantic models, and ``import fairjudge`` should not pay for pydantic.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface
from fairjudge.prompts._parse import VerdictFormat, parse_verdict, probabilities_from_logprobs
from fairjudge.prompts._rubrics import (
    DEFAULT_RUBRIC,
    Dimension,
    Rubric,
    get_rubric,
    list_rubrics,
    load_rubric,
)
from fairjudge.prompts._templates import (
    PairwiseTemplate,
    get_template,
    list_templates,
    load_template,
)

if TYPE_CHECKING:
    from fairjudge.prompts._score_parse import (
        AnswerScores,
        ScoreCall,
        ScoreContext,
        ScoreReading,
        parse_scores,
        read_scores,
        validate_scores,
    )

__all__ = [
    "DEFAULT_RUBRIC",
    "AnswerScores",
    "Dimension",
    "PairwiseTemplate",
    "Rubric",
    "ScoreCall",
    "ScoreContext",
    "ScoreReading",
    "VerdictFormat",
    "get_rubric",
    "get_template",
    "list_rubrics",
    "list_templates",
    "load_rubric",
    "load_template",
    "parse_scores",
    "parse_verdict",
    "probabilities_from_logprobs",
    "read_scores",
    "validate_scores",
]

_LAZY = {
    "AnswerScores": "fairjudge.prompts._score_parse",
    "ScoreCall": "fairjudge.prompts._score_parse",
    "ScoreContext": "fairjudge.prompts._score_parse",
    "ScoreReading": "fairjudge.prompts._score_parse",
    "parse_scores": "fairjudge.prompts._score_parse",
    "read_scores": "fairjudge.prompts._score_parse",
    "validate_scores": "fairjudge.prompts._score_parse",
}

package_surface(globals(), _LAZY)
