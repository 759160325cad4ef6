"""Versioned prompt templates and rubrics, and the parsers that read verdicts and scores.

The score parsers (:mod:`._score_parse`) load on first use (PEP 562): they build
pydantic models, and ``import fairjudge`` should not pay for pydantic.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes, publish
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

# Where each lazy name lives, for __getattr__; the TYPE_CHECKING imports above name the
# same for the type checker (tests/test_lazy.py keeps the two lists equal).
_LAZY = {
    "AnswerScores": "fairjudge.prompts._score_parse",
    "ScoreCall": "fairjudge.prompts._score_parse",
    "ScoreContext": "fairjudge.prompts._score_parse",
    "ScoreReading": "fairjudge.prompts._score_parse",
    "parse_scores": "fairjudge.prompts._score_parse",
    "read_scores": "fairjudge.prompts._score_parse",
    "validate_scores": "fairjudge.prompts._score_parse",
}
__getattr__ = lazy_attributes(__name__, _LAZY)

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

publish(globals())  # each public name reports this namespace (see fairjudge._lazy.publish)
