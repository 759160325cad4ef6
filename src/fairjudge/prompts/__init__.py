"""Versioned prompt templates and the parsers that read verdicts."""

from fairjudge.prompts._parse import (
    VERDICT_FORMATS,
    VerdictFormat,
    parse_verdict,
    probabilities_from_logprobs,
)
from fairjudge.prompts._templates import (
    PairwiseTemplate,
    defuse,
    get_template,
    list_templates,
    load_template,
)

__all__ = [
    "VERDICT_FORMATS",
    "PairwiseTemplate",
    "VerdictFormat",
    "defuse",
    "get_template",
    "list_templates",
    "load_template",
    "parse_verdict",
    "probabilities_from_logprobs",
]
