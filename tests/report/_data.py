"""Input rows for the report tests: hostile text, conversations, categories, labels."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HOSTILE = [
    "<script>window.pwned = 'script'</script>",
    "<img src=x onerror=\"window.pwned = 'img'\">",
    "</textarea><script>window.pwned = 'textarea'</script>",
    "</script><script>window.pwned = 'close'</script><!--",
    "\u2028line\u2029separators & <b>bold</b> {{ 7*7 }}",
]


def hostile_rows() -> list[dict[str, Any]]:
    """Twelve items: each call kind, a conversation, and markup in every text field."""
    rows: list[dict[str, Any]] = []
    for i, text in enumerate(HOSTILE):
        rows.append(
            {"id": f"x{i}", "question": f"Which answer is safe? {text}", "answer_1": text,
             "answer_2": f"{text} and more words", "category": "<i>hostile</i>", "human": "1"}
        )  # fmt: skip
    markers = ["[parse]", "[error]", "[first]", "[probs]", "[first]", "plain"]
    for i, marker in enumerate(markers):
        rows.append(
            {"id": f"m{i}", "question": f"Question {i} {marker}", "answer_1": "short",
             "answer_2": "a longer answer", "category": "markers", "human": "2" if i % 2 else "1"}
        )  # fmt: skip
    rows.append(
        {"id": "conv", "category": "markers", "human": "2",
         "question": [{"role": "user", "content": "Hi <script>window.pwned='turn'</script>"},
                      {"role": "assistant", "content": "Hello! How can I help?"},
                      {"role": "user", "content": "Name a prime number."}],
         "answer_1": "4", "answer_2": "7 is prime."}
    )  # fmt: skip
    return rows


_VOCABULARY = (
    "the judge answer model swap order position bias verdict interval bootstrap cluster "
    "question because however therefore evidence correct wrong clear"
)
_WORDS = _VOCABULARY.split()


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n_words))


def large_rows(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` items with realistic lengths (question ~40 words, answers ~90 words)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        rows.append(
            {"id": f"item-{i:05d}", "question": _text(rng, rng.randint(20, 60)) + "?",
             "answer_1": _text(rng, rng.randint(40, 140)),
             "answer_2": _text(rng, rng.randint(40, 140)),
             "category": rng.choice(["math", "code", "writing", "facts"]),
             "human": rng.choice(["1", "2", "tie"])}
        )  # fmt: skip
    return rows


MODEL_1 = "a\u202egnp.exe"  # drawn as "aexe.png" when the override is live
MODEL_2 = "b\u2066\u200bx\u2069"


def bidi_rows() -> list[dict[str, Any]]:
    """Six items (one a call error) with hidden characters in every text field.

    Overrides, isolates, a zero-width space and joiner, a BOM and a tag character.
    """
    rows: list[dict[str, Any]] = []
    for i in range(6):
        marker = "[error]" if i == 5 else ""
        rows.append(
            {"id": f"r\u202e{i}", "question": f"Which file is safe?\ufeff {marker}",
             "answer_1": f"Open a\u202egnp.exe now {i}",
             "answer_2": "Open \u2066it\u2069 \u200bplease", "model_1": MODEL_1,
             "model_2": MODEL_2, "category": "zw\u200dj\U000e0041", "human": "1"}
        )  # fmt: skip
    return rows


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
