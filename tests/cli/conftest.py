from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def write_jsonl(tmp_path: Path):  # type: ignore[no-untyped-def]
    def _write(rows: list[object], name: str = "items.jsonl") -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path

    return _write


GOOD_ROWS = [
    {
        "id": "a",
        "question": "Capital of France?",
        "answer_1": "Paris.",
        "answer_2": "Lyon, surely.",
    },
    {"id": "b", "question": "2+2?", "answer_1": "4", "answer_2": "It is five."},
    {
        "id": "c",
        "question": "Largest planet?",
        "answer_1": "Jupiter is largest.",
        "answer_2": "Mars",
    },
]
