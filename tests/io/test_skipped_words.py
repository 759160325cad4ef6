"""A skipped row's message is worded where the reader makes it, for whoever reads it.

A notebook reads the parameter (``allow_empty=True``); a caller that declared its own
words with :func:`fairjudge._errors.wording` (the command line) reads those, and the
file the message names stays as it is.
"""

from __future__ import annotations

from pathlib import Path

from fairjudge._errors import wording
from fairjudge.io import load_items

ROW = '{{"question": "q", "answer_1": "{a1}", "answer_2": "b"}}\n'


def _loaded(path: Path):  # type: ignore[no-untyped-def]
    path.write_text(ROW.format(a1="a") + ROW.format(a1=""), encoding="utf-8")
    return load_items(path, skip_invalid=True)


def test_a_skipped_row_names_the_parameter_in_a_notebook(tmp_path: Path) -> None:
    [record] = _loaded(tmp_path / "p.jsonl").skipped_records()
    assert record["line"] == 2
    assert record["message"] == (
        "'answer_1' is empty; fill it in, or pass allow_empty=True "
        "to judge empty answers as they are"
    )


def test_a_skipped_row_takes_the_callers_words(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path / "p.jsonl")
    seen: list[tuple[str, ...]] = []

    def words(text: str, params: tuple[str, ...]) -> str:
        seen.append(params)
        return text.replace("allow_empty=True", "--allow-empty")

    with wording(words):
        [record] = loaded.skipped_records()
    assert seen == [("allow_empty",)]
    assert record["message"] == (
        "'answer_1' is empty; fill it in, or pass --allow-empty to judge empty answers as they are"
    )
    # Outside the block, the notebook's words again: worded when asked, not when read.
    assert "allow_empty=True" in str(loaded.skipped_records()[0]["message"])


def test_the_file_a_skipped_row_names_is_not_reworded(tmp_path: Path) -> None:
    """A file named like a parameter stays the user's file, word for word."""
    folder = tmp_path / "allow_empty"
    folder.mkdir()
    path = folder / "p.jsonl"
    path.write_text('{"question": "q", "answer_1": "a", "answer_2": "b"}\n[1]\n', encoding="utf-8")
    loaded = load_items(path, skip_invalid=True)
    loaded.skipped[0].params = ("allow_empty",)  # a message that names its file and a parameter
    loaded.skipped[0].args = (f"{path}:2: {path} holds a list; pass allow_empty",)

    def words(text: str, params: tuple[str, ...]) -> str:
        return text.replace("allow_empty", "--allow-empty")

    with wording(words):
        [record] = loaded.skipped_records()
    assert record["message"] == f"{path} holds a list; pass --allow-empty"
