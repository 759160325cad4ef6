"""What must hold for every input: whatever its bytes, a file either loads or is
rejected with an InputError naming the file (and the line, where there is one);
never another exception, never a traceback from the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fairjudge._errors import InputError
from fairjudge.cli import app
from fairjudge.io import LoadedItems, load_items

LONGER = "python:tests.judge_fixtures:longer"
ROW = {"question": "q", "answer_1": "a", "answer_2": "b"}
CONVERSATION = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]

VALID = {
    ".jsonl": "".join(
        json.dumps(row, ensure_ascii=False) + "\n"
        for row in [
            {**ROW, "id": "x", "human": "1", "human_score": 0.5},
            {**ROW, "question": CONVERSATION, "answer_1": "caf\u00e9 \u2028 \U0001f600"},
            {**ROW, "category": "c", "reference": "r", "model_1": "m1", "model_2": "m2"},
        ]
    ).encode(),
    ".csv": (
        b'id,question,answer_1,answer_2,human,human_score\nx,q,a,b,1,0.5\n"y","multi\nline",'
        b'"say ""hi""",b,tie,\nz,"[{""role"": ""user"", ""content"": ""Hi""}]",a,b,,\n'
    ),
    ".json": json.dumps([ROW, {**ROW, "id": 7}, {**ROW, "question": CONVERSATION}], indent=2)
    .replace("Hi", "H\\u00ef")
    .encode(),
}
# Whole-file problems have no one line to name.
WHOLE_FILE = re.compile(
    r": (file is empty|file holds no items|no valid row found|file is a JSON array|"
    r"a JSON array over|this is a Parquet file)"
)
# Bytes that make JSON and CSV interesting when inserted: structure, escapes, breaks.
INTERESTING = [*b'[]{}",:\\\n\r\t u0dD8', 0x00, 0x85, 0xE2, 0x80, 0xA8, 0xFF]


def attempt(path: Path, *, skip_invalid: bool) -> LoadedItems | InputError:
    """The loaded items, or the InputError; any other exception fails the test."""
    try:
        return load_items(path, skip_invalid=skip_invalid)
    except InputError as exc:
        return exc


def check(path: Path, *, skip_invalid: bool) -> None:
    loaded = attempt(path, skip_invalid=skip_invalid)
    if isinstance(loaded, InputError):
        assert loaded.path == str(path), str(loaded)
        assert loaded.line is not None or WHOLE_FILE.search(str(loaded)), str(loaded)
        return
    assert loaded.items
    for item in loaded.items:  # every string loaded is text that can be written out
        for text in (item.question_text, item.answer_1, item.answer_2, item.id):
            assert text is not None
            text.encode("utf-8")
    for record in loaded.skipped_records():
        json.dumps(record).encode("utf-8")


def mutate(data: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    """Apply (kind, position, byte) edits: 0 inserts, 1 deletes, 2 flips bits."""
    buf = bytearray(data)
    for kind, position, value in edits:
        at = position % (len(buf) + 1)
        if kind == 0:
            buf[at:at] = bytes([value])
        elif buf:
            at %= len(buf)
            if kind == 1:
                del buf[at]
            else:
                buf[at] ^= value or 1
    return bytes(buf)


BYTE = st.sampled_from(INTERESTING) | st.integers(0, 255)
EDITS = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10_000), BYTE), max_size=8)
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

DEEP = "[" * 100_000
# Inputs that once escaped as other exceptions: RecursionError, ValueError (an integer
# over 4300 digits), OverflowError (float of a 400-digit integer), csv.Error (a field
# over 128 kB), or a lone surrogate that loaded and failed when written.
NASTY = {
    ".jsonl": [
        f"{DEEP}\n".encode(),
        b'{"a":' * 100_000,
        b'{"question": "q", "answer_1": "a", "answer_2": "b", "n": ' + b"1" * 5000 + b"}\n",
        b'{"question": "q", "answer_1": "a", "answer_2": "b", "human_score": 1'
        + b"0" * 400
        + b"}\n",
        b'{"question": "\\ud800", "answer_1": "a", "answer_2": "b"}\n',
        b'{"question": "q\xe2\x80\xa8", "answer_1": "a", "answer_2": "b"}\n',
    ],
    ".csv": [
        b'question,answer_1,answer_2\nq,"' + b"x" * 200_000 + b'",b\n',
        b'question,answer_1,answer_2\n"[{""role"": ""user"", ""content"": ""\\udc00""}]",a,b\n',
    ],
    ".json": [
        f"[{json.dumps(ROW)},\n{DEEP}]".encode(),
        f"[\n{DEEP}".encode(),
        b'[{"question": "\\udbff", "answer_1": "a", "answer_2": "b"}]',
    ],
}


@pytest.mark.parametrize("suffix", list(VALID))
def test_nasty_inputs_load_or_are_input_errors(tmp_path: Path, suffix: str) -> None:
    for index, data in enumerate(NASTY[suffix]):
        path = tmp_path / f"nasty{index}{suffix}"
        path.write_bytes(data)
        check(path, skip_invalid=False)
        check(path, skip_invalid=True)


@pytest.mark.parametrize("suffix", list(VALID))
def test_valid_files_load(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"items{suffix}"
    path.write_bytes(VALID[suffix])
    assert len(load_items(path).items) == 3


@FUZZ
@given(data=st.binary(max_size=600), suffix=st.sampled_from(list(VALID)), skip=st.booleans())
@example(data=b"\xef\xbb\xbf", suffix=".csv", skip=False)
@example(data=b"[\n\xe2\x80\xa8]", suffix=".json", skip=True)
def test_random_bytes_load_or_are_input_errors(
    tmp_path: Path, data: bytes, suffix: str, skip: bool
) -> None:
    path = tmp_path / f"random{suffix}"
    path.write_bytes(data)
    check(path, skip_invalid=skip)


@FUZZ
@given(edits=EDITS, suffix=st.sampled_from(list(VALID)), skip=st.booleans())
@example(edits=[(0, 14, ord("\\"))], suffix=".jsonl", skip=False)
@example(edits=[(1, 5, 0)], suffix=".csv", skip=True)
def test_mutated_files_load_or_are_input_errors(
    tmp_path: Path, edits: list[tuple[int, int, int]], suffix: str, skip: bool
) -> None:
    path = tmp_path / f"mutated{suffix}"
    path.write_bytes(mutate(VALID[suffix], edits))
    check(path, skip_invalid=skip)


def run_cli(path: Path, *extra: str) -> None:
    result = CliRunner().invoke(app, ["compare", str(path), "--judge", LONGER, *extra])
    assert result.exit_code in (0, 2), (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


@settings(FUZZ, max_examples=40)
@given(edits=EDITS, suffix=st.sampled_from(list(VALID)), json_out=st.booleans())
def test_cli_exits_0_or_2_on_mutated_files(
    tmp_path: Path, edits: list[tuple[int, int, int]], suffix: str, json_out: bool
) -> None:
    path = tmp_path / f"mutated{suffix}"
    path.write_bytes(mutate(VALID[suffix], edits))
    run_cli(path, "--skip-invalid", *(["--json"] if json_out else []))


@pytest.mark.parametrize("suffix", list(VALID))
def test_cli_exits_0_or_2_on_nasty_and_random_files(tmp_path: Path, suffix: str) -> None:
    for index, data in enumerate([*NASTY[suffix], bytes(range(256)) * 4]):
        path = tmp_path / f"nasty{index}{suffix}"
        path.write_bytes(data)
        run_cli(path)
        run_cli(path, "--skip-invalid", "--json")
