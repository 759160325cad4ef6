"""Replies built to trip the parsers' case folding and text handling, and what became of them.

Two kinds:

- :data:`LOOK_ALIKES`: a label or a slot key spelled with a character outside ASCII
  that Python's Unicode folding would take for an ASCII one (dotless ``ı``, dotted
  ``İ``, Kelvin sign ``K``, long ``ſ``, full-width and Cyrillic letters, a combining
  mark). The parsers fold ASCII only, so each must be a counted parse failure:
  *believed* counts the ones read as a verdict or as scores, and must be 0.
- :data:`BROKEN_TEXT`: lone surrogates (what a JSON ``"\\ud800"`` decodes to) around,
  inside and instead of a verdict. No parser may raise on them, and no run may stop
  on them: a store, a file or a terminal cannot write a lone surrogate, so the runner
  replaces it (U+FFFD) before anything reads or stores the reply.

:func:`count_offline` reads each reply with every template's verdict format and every
rubric mode, plus seeded random text over every code point; :func:`count_process`
runs ``fairjudge compare`` as a process against a scripted server that gives one of
these replies per item and reads its ``--out`` file. ``benchmarks/bench_hostile.py``
reports both (``parser folding``); ``tests/prompts/test_parse_folding.py`` and
``tests/cli/test_reply_folding.py`` assert them.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from fairjudge import ParseFailure
from fairjudge.prompts import Rubric, get_template, list_rubrics, list_templates, parse_verdict
from fairjudge.prompts._score_parse import parse_score_label, parse_scores
from tests.server import JudgeServer, Pair, Script

__all__ = [
    "BROKEN_TEXT",
    "LOOK_ALIKES",
    "Tally",
    "count_offline",
    "count_process",
    "score_look_alikes",
]

LOOK_ALIKES: tuple[str, ...] = (
    "[[t\u0131e]]",
    "[[T\u0130E]]",
    "T\u0130E",
    "t\u0131e",
    "**t\u0131e**",
    "Verdict: t\u0131e",
    "verd\u0131ct: A",
    "VERD\u0130CT: B",
    "Final verd\u0131ct: [[A]]",  # also a real bracket slot: read only in "explained"
    "Verdict: \uff21",
    "[[\u0410]]",
    "\u0412",
    "Answer A\u0307",
    "[[A\u0307]]",
    '{"verdict": "T\u0130E"}',
    '{"verdict": "\uff21"}',
)
"""Pairwise replies whose only verdict-shaped text is a look-alike (one exception, marked)."""


def score_look_alikes(names: tuple[str, ...]) -> list[str]:
    """Rubric replies scoring every dimension, the last under a look-alike of its key.

    The look-alikes: a combining dot after it, its first ``s`` as a long ``ſ``, its
    first ``i`` dotless, upper case with a dotted ``İ``, a Kelvin sign for ``k``.
    """
    *kept, last = names
    variants = {last + "\u0307", last.replace("s", "\u017f", 1), last.replace("i", "\u0131", 1),
                last.upper().replace("I", "\u0130", 1), last.replace("k", "\u212a", 1)}  # fmt: skip
    variants.discard(last)
    variants.discard(last.upper())
    return [
        json.dumps({**dict.fromkeys(kept, 3), variant: 3}, ensure_ascii=False)
        for variant in sorted(variants)
    ]


BROKEN_TEXT: tuple[str, ...] = (
    "\ud800",
    "A\udfff",
    "[[A]]\ud800",
    "\udfff\n[[B]]",
    "Verdict: \ud800",
    '{"verdict": "\ud800"}',
    "\ud83d\ude00 [[A]]",  # a pair: one character, not broken
)
"""Replies holding lone surrogates, as a JSON reply's ``\\ud800`` decodes."""


class Tally(NamedTuple):
    """What the replies did: read (and how often wrongly), failed, raised."""

    tried: int
    believed: int
    unreadable: int
    tracebacks: int


def _formats() -> list[str]:
    return sorted({get_template(name).verdict_format for name in list_templates()})


def _random_text(rng: random.Random) -> str:
    """Up to 40 code points drawn from all of Unicode, surrogates included."""
    pieces = ["[[", "]]", "A", "tie", "Verdict: ", "{", "}", '"verdict"', "\n", "\ud800"]
    out = []
    for _ in range(rng.randrange(41)):
        if rng.random() < 0.3:
            out.append(rng.choice(pieces))
        else:
            out.append(chr(rng.randrange(0x110000)))
    return "".join(out)


def count_offline(random_replies: int = 2000, seed: int = 0) -> Tally:
    """Read every reply with every verdict format and rubric mode; count what happened.

    Args:
        random_replies: How many seeded random texts to add (every code point).
        seed: Seeds them.

    Returns:
        ``believed``: look-alikes read as a verdict or scores (the one marked reply in
        :data:`LOOK_ALIKES`, which also holds a real ``[[A]]``, only when not read as
        ``A`` in the ``explained`` format); ``tracebacks``: any exception raised.
    """
    tried = believed = unreadable = tracebacks = 0
    rng = random.Random(seed)
    texts = [*LOOK_ALIKES, *BROKEN_TEXT, *(_random_text(rng) for _ in range(random_replies))]
    for text in texts:
        for verdict_format in _formats():
            tried += 1
            try:
                reading = parse_verdict(text, verdict_format)  # type: ignore[arg-type]
            except Exception:  # what is counted: any exception at all
                tracebacks += 1
                continue
            if isinstance(reading, ParseFailure):
                unreadable += 1
            elif text in LOOK_ALIKES and not (
                text.endswith("[[A]]") and verdict_format == "explained"
            ):
                believed += 1
    for rubric in list_rubrics():
        shaped = score_look_alikes(rubric.names)
        for reply in (*shaped, *texts):
            for reading in _score_readings(reply, rubric):
                tried += 1
                if isinstance(reading, Exception):
                    tracebacks += 1
                elif isinstance(reading, ParseFailure):
                    unreadable += 1
                elif reply in shaped:
                    believed += 1
    return Tally(tried, believed, unreadable, tracebacks)


def _score_readings(reply: str, rubric: Rubric) -> list[object]:
    """The reply read in JSON mode and as a bare number; an exception is returned."""
    readings: list[object] = []
    for mode in ("json", "label"):
        try:
            if mode == "json":
                readings.append(parse_scores(reply, rubric))
            else:
                readings.append(parse_score_label(reply, rubric, rubric.names[0]))
        except Exception as exc:  # what is counted: any exception at all
            readings.append(exc)
    return readings


_FAIRJUDGE = "from fairjudge.cli import main; main()"
_ROOT = Path(__file__).resolve().parents[2]
_REPLIES = (*LOOK_ALIKES, *BROKEN_TEXT)


def _reply_for(pair: Pair) -> str:
    """The hostile reply of the item whose question names its index (``case 7``)."""
    index = int(pair.question.split("case ", 1)[1].split(":", 1)[0])
    return _REPLIES[index]


def count_process(workdir: Path, *, timeout_s: float = 120.0) -> tuple[Tally, int]:
    """``fairjudge compare`` against a server giving one hostile reply per item.

    Returns:
        The tally over every call in the ``--out`` file (``believed``: a look-alike
        reply read as a verdict; ``tracebacks``: 1 when the command printed one or
        stopped on an internal error), and the command's exit status (4 is right:
        every item is unresolved).
    """
    workdir.mkdir(parents=True, exist_ok=True)
    items = workdir / "items.jsonl"
    rows = [
        {"id": f"h{i}", "question": f"case {i}: which is better?", "answer_1": "x", "answer_2": "y"}
        for i in range(len(_REPLIES))
    ]
    items.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with JudgeServer(Script(judge=_reply_for, reply_format="{verdict}")) as server:
        assert server.api_key is not None
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        env.update(OPENAI_API_KEY=server.api_key, PYTHONPATH=str(_ROOT / "src"))
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            env.pop(name, None)
        argv = [
            "compare", str(items), "--judge", "openai/hostile", "--base-url", server.base_url,
            "--template", "explain", "--out", "out.jsonl", "--html", "report.html", "--json",
            "--store", "store/calls.sqlite",
        ]  # fmt: skip
        proc = subprocess.run(
            [sys.executable, "-c", _FAIRJUDGE, *argv],
            cwd=workdir,
            env=env,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    stderr = proc.stderr.decode(errors="replace")
    crashed = int("Traceback" in stderr or "internal error" in stderr or proc.returncode == 1)
    tried = believed = unreadable = 0
    out = workdir / "out.jsonl"
    records = out.read_text().splitlines()[1:] if out.exists() else []
    for line in records:
        record = json.loads(line)
        look_alike = _REPLIES[int(record["id"][1:])] in LOOK_ALIKES
        for call in record["calls"]:
            tried += 1
            if call["verdict"] is not None and look_alike and "[[A]]" not in call["raw"]:
                believed += 1
            if (call.get("failure") or {}).get("type") == "parse_failure":
                unreadable += 1
    return Tally(tried, believed, unreadable, crashed), proc.returncode
