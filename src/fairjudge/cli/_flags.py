"""The one table from library parameters to command-line flags, and the rewrite.

The library speaks in parameters: an error names what a Python caller passed
(``n_resamples must be >= 1; got 0``, ``pass allow_empty=True``) and lists those
names in its ``params``. The command line speaks in flags: before it prints a
library error, :func:`to_flags` rewrites each named parameter to the flag that set
it (``--bootstrap must be >= 1; got 0``, ``pass --allow-empty``). This module is
the only place that knows both names.
"""

from __future__ import annotations

import re

__all__ = ["FLAGS", "FLAGS_BY_COMMAND", "PHRASES", "flag", "to_flags"]

FLAGS: dict[str, str] = {
    # evaluation settings (compare, calibrate, score, jury, score-jury, audit, rank, report)
    "n_resamples": "--bootstrap",
    "level": "--level",
    "seed": "--seed",
    "rule": "--rule",
    "rounds": "--rounds",
    "balanced": "--balanced",
    "tie_margin": "--tie-margin",
    "with_swap": "--with-swap",
    "aggregate": "--aggregate",
    "pairing": "--pairing",
    "baseline": "--baseline",
    "l2": "--l2",
    "anchor": "--anchor",
    "anchor_rating": "--anchor-rating",
    "style_control": "--style-control",
    "allow_different": "--allow-different",
    "stop_when": "--stop-when",
    "batch": "--batch",
    "population": "--population",
    # judges and backends
    "judge": "--judge",
    "judges": "--judge",
    "jury": "--jury",
    "template": "--template",
    "rubric": "--rubric",
    "mode": "--mode",
    "structured": "--structured",
    "allow_python_judges": "--allow-python-judges",
    "allow_servers": "--allow-jury-servers",
    "allow_python": "--allow-python-judges",
    "base_url": "--base-url",
    "model_path": "--model-path",
    "threads": "--threads",
    "context": "--context",
    "n_ctx": "--context",
    "temperature": "--temperature",
    "max_tokens": "--max-tokens",
    "reasoning_effort": "--reasoning-effort",
    "thinking_budget": "--thinking-budget",
    "timeout": "--timeout",
    # run options
    "store": "--store",
    "concurrency": "--concurrency",
    "rpm": "--rpm",
    "tpm": "--tpm",
    "max_calls": "--max-calls",
    "max_cost": "--max-cost",
    "prices": "--price-input/--price-output",
    "price_input": "--price-input",
    "price_output": "--price-output",
    "retry": "--max-attempts",
    "price_cached_input": "--price-cached-input",
    "max_attempts": "--max-attempts",
    "executor": "--executor",
    "address": "--ray-address",  # RayExecutor(address=...)
    "batch_api": "--batch-api",
    "wait": "--wait",  # BatchExecutor(wait=...)
    "batch_poll_s": "--batch-poll",
    # input files
    "allow_empty": "--allow-empty",
    "skip_invalid": "--skip-invalid",
    "columns.question": "--question-col",
    "columns.answer_1": "--answer1-col",
    "columns.answer_2": "--answer2-col",
    "columns.human": "--human-col",
    "columns.answer": "--answer-col",  # fairjudge.score(columns=...)
    "answer_col": "--answer-col",
    "pairs_per_question": "--pairs-per-question",
    # audit
    "items": "--items",
    "limit": "--limit",
    "experiments": "--experiments",
    "target_words": "--target-words",
    "framing_templates": "--framing-templates",
    "strict_rubric": "--strict-rubric",
    "anti_verbose_rubric": "--anti-verbose-rubric",
    "concise_template": "--concise-template",
    "judge_families": "--judge-family",
    # result files
    "out": "--out",
    "html": "--html",
}
"""Each library parameter's flag, where every command spells it the same way."""

FLAGS_BY_COMMAND: dict[str, dict[str, str]] = {
    # compare --via-scores scores each answer with a rubric judge; its mode is --score-mode.
    "compare": {"mode": "--score-mode"},
}
"""The flags one command spells its own way, over :data:`FLAGS`."""

PHRASES: dict[str, str] = {
    # A batch run that did not wait: the library says "work", the command line "command".
    "run the same work again": "run the same command again",
    # The ridge's advice names "l2 > 0", a value, not the flag; rank has always shown
    # the flag beside it, so a parameter rewrite cannot say it.
    "pass --l2 > 0 or add battles": "pass l2 > 0 (--l2 on the command line) or add battles",
    "Pass --l2 > 0 to shrink ratings toward each other (--l2 0.1), or add battles": (
        "Pass l2 > 0 to shrink ratings toward each other (--l2 0.1 on the command line, "
        "l2=0.1 in Python), or add battles"
    ),
}
"""Phrases the command line has always worded its own way: rewritten -> shown."""


def flag(param: str, command: str | None = None) -> str:
    """The flag that sets ``param`` on ``command`` (any command when ``None``).

    Raises:
        KeyError: No flag sets that parameter.
    """
    return FLAGS_BY_COMMAND.get(command or "", {}).get(param) or FLAGS[param]


# A parameter's name that follows a determiner is the English word ("an empty judge
# spec", "the judge samples", "once per judge", "a fairjudge store"), not the
# parameter: it stays as it is. A name with "_" or "." is never a word.
_DETERMINERS = (
    "a", "an", "the", "no", "each", "every", "this", "that", "empty", "unknown", "per",
    "fairjudge",
)  # fmt: skip
_NOUN = "".join(rf"(?<!\b{word} )" for word in _DETERMINERS)


def _negated(flag_: str) -> str:
    return "--no-" + flag_.removeprefix("--")


def to_flags(message: str, params: tuple[str, ...], command: str | None = None) -> str:
    """``message`` with each parameter in ``params`` written as its flag.

    ``name=True`` becomes the flag, ``name=False`` its ``--no-`` form, ``name=VALUE``
    the flag and the value, and a bare ``name`` the flag, unless a determiner comes
    before it ("the judge"): then it is the English word. A parameter no flag sets is
    left as it is. Last, a phrase in :data:`PHRASES` is replaced by the CLI's own.

    Example:
        >>> to_flags("n_resamples must be >= 1; got 0", ("n_resamples",))
        '--bootstrap must be >= 1; got 0'
        >>> to_flags("pass allow_empty=True to judge them", ("allow_empty",))
        'pass --allow-empty to judge them'
    """
    for param in params:
        try:
            flag_ = flag(param, command)
        except KeyError:
            continue

        def rewrite(match: re.Match[str], flag_: str = flag_) -> str:
            value = match.group(1)
            if value is None:
                return flag_
            if value == "True":
                return flag_
            if value == "False":
                return _negated(flag_)
            return f"{flag_} {value}"

        # Not inside a path or file name: "/data/store", "out.jsonl", "store-wal".
        pattern = rf"(?<![\w.\-'\"/\\]){re.escape(param)}(?:=([^\s,;:)]+))?(?![\w'\"(=-]|\.\w)"
        noun = "" if "_" in param or "." in param else _NOUN
        message = re.sub(noun + pattern, rewrite, message)
    for rewritten, shown in PHRASES.items():
        message = message.replace(rewritten, shown)
    return message
