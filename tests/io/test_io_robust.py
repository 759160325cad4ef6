"""Input loader defects: line breaks, unreadable JSON, bounded reading, CSV record lines,
standard input, message wording, and the skipped rows as JSON records."""

from __future__ import annotations

import io
import json
import os
import random
import re
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge._errors import InputError
from fairjudge.cli import app
from fairjudge.io import _rows as _io_rows
from fairjudge.io import load_items, read_rows

LONGER = "python:tests.judge_fixtures:longer"
ROW = {"question": "q", "answer_1": "a", "answer_2": "b"}
GOOD = json.dumps(ROW)


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def stdin(monkeypatch: pytest.MonkeyPatch, data: bytes | io.RawIOBase) -> None:
    raw = io.BytesIO(data) if isinstance(data, bytes) else data
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(raw)))


# -- 1. Lines split on "\n" only -------------------------------------------------------

# Every character str.splitlines() breaks at, besides "\n" and "\r".
SPLITLINES_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def test_unicode_line_separators_inside_json_strings_are_characters(tmp_path: Path) -> None:
    # U+0085, U+2028 and U+2029 may stand unescaped in a JSON string.
    text = "a\x85b\u2028c\u2029d"
    row = json.dumps({**ROW, "question": text}, ensure_ascii=False)
    path = write(tmp_path, "items.jsonl", f"{row}\n{GOOD}\r\n{GOOD}\n")
    items = load_items(path).items
    assert [(it.id, it.question) for it in items] == [("1", text), ("2", "q"), ("3", "q")]
    assert [line for line, _ in read_rows(path)] == [1, 2, 3]


@pytest.mark.parametrize("brk", list(SPLITLINES_BREAKS))
def test_other_line_breaks_do_not_shift_line_numbers(tmp_path: Path, brk: str) -> None:
    # Raw in a string, \v \f and \x1c-\x1e are invalid JSON (control characters),
    # reported on their own line; U+0085, U+2028, U+2029 are text. Either way the
    # rows after keep their numbers.
    row = GOOD.replace('"q"', f'"q{brk}"')
    path = write(tmp_path, "items.jsonl", f"{GOOD}\n{row}\n{GOOD}\n")
    loaded = load_items(path, skip_invalid=True)
    if brk in "\x85\u2028\u2029":
        assert [(it.id, it.question) for it in loaded.items] == [
            ("1", "q"),
            ("2", f"q{brk}"),
            ("3", "q"),
        ]
        assert loaded.skipped == []
    else:
        assert [it.id for it in loaded.items] == ["1", "3"]
        assert [str(e) for e in loaded.skipped] == [
            f"{path}:2: invalid JSON (Invalid control character at column 16)"
        ]


@pytest.mark.parametrize("brk", ["\x85", "\u2028", "\u2029"])
def test_unicode_breaks_in_a_json_array_and_a_csv_load(tmp_path: Path, brk: str) -> None:
    rows = [{**ROW, "question": f"x{brk}y"}, ROW]
    path = write(tmp_path, "items.json", json.dumps(rows, ensure_ascii=False, indent=1))
    assert [it.id for it in load_items(path).items] == ["2", "7"]
    path = write(tmp_path, "items.csv", f"question,answer_1,answer_2\nx{brk}y,a,b\nq,a,b\n")
    assert [(it.id, it.question) for it in load_items(path).items] == [
        ("2", f"x{brk}y"),
        ("3", "q"),
    ]


# -- 2. Lone surrogates, deep nesting, huge numbers ------------------------------------

DEEP = 100_000


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ('{"question": "\\ud800", "answer_1": "a", "answer_2": "b"}', "lone surrogate \\ud800"),
        ('{"question": "q", "answer_1": "a", "\\udfff": "b"}', "lone surrogate \\udfff"),
        ("[" * DEEP + "]" * DEEP, "nested too deeply"),
        ('{"a":' * DEEP + "1" + "}" * DEEP, "nested too deeply"),
        ('{"question": "q", "answer_1": "a", "answer_2": "b", "n": ' + "9" * 5000 + "}", "digits"),
    ],
)
def test_unreadable_json_rows_are_input_errors_on_their_line(
    tmp_path: Path, row: str, problem: str
) -> None:
    path = write(tmp_path, "items.jsonl", f"{GOOD}\n{row}\n")
    with pytest.raises(InputError, match=re.escape("items.jsonl:2: invalid JSON (")) as exc:
        load_items(path)
    assert problem in str(exc.value)
    assert exc.value.line == 2
    assert [it.id for it in load_items(path, skip_invalid=True).items] == ["1"]


def test_a_one_line_deep_array_is_a_row_not_a_json_array(tmp_path: Path) -> None:
    path = write(tmp_path, "items.jsonl", "[" * DEEP + "]" * DEEP + "\n")
    with pytest.raises(InputError, match=re.escape("items.jsonl:1: invalid JSON (nested too")):
        load_items(path)


def test_deep_and_surrogate_elements_of_a_json_array(tmp_path: Path) -> None:
    surrogate = '{"question": "\\udc00", "answer_1": "a", "answer_2": "b"}'
    path = write(tmp_path, "items.json", f"[\n{GOOD},\n{surrogate},\n{GOOD}\n]\n")
    loaded = load_items(path, skip_invalid=True)
    assert [it.id for it in loaded.items] == ["2", "4"]
    assert [str(e) for e in loaded.skipped] == [
        f"{path}:3: invalid JSON (lone surrogate \\udc00 in a string is not text)"
    ]
    deep = "[" * DEEP + "]" * DEEP
    path = write(tmp_path, "items.json", f"[\n{GOOD},\n{deep}\n]\n")
    with pytest.raises(InputError, match=re.escape("items.json:3: invalid JSON array (nested")):
        load_items(path, skip_invalid=True)


def test_csv_cells_with_unreadable_json(tmp_path: Path) -> None:
    cell = '"[{""role"": ""user"", ""content"": ""\\ud800""}]"'
    path = write(tmp_path, "items.csv", f"question,answer_1,answer_2\nq,a,b\n{cell},a,b\n")
    with pytest.raises(
        InputError,
        match=re.escape(
            "items.csv:3: 'question' looks like a JSON list of messages but is not valid JSON "
            "(lone surrogate \\ud800 in a string is not text)"
        ),
    ):
        load_items(path)
    # Brackets without a role are a plain question, however deep.
    path = write(tmp_path, "items.csv", f"question,answer_1,answer_2\n{'[' * DEEP},a,b\n")
    assert load_items(path).items[0].question == "[" * DEEP


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('"human_score": 1' + "0" * 400, "'human_score' must be a number, got 1000"),
        # Messages quote values cut short: deep lists and megabytes of text alike.
        ('"human": ' + "[" * 900 + "]" * 900, "'human' must be 1, 2 or tie, got [[[[...]]]]"),
        ('"id": ' + "[" * 900 + "]" * 900, "'id' must be a string or integer, got [[[[...]]]]"),
        ('"answer_2": ["' + "x" * 10**6 + '"]', "'answer_2' must be a string, got list ['xxx"),
    ],
)
def test_values_python_cannot_convert_or_repr_are_input_errors(
    tmp_path: Path, extra: str, message: str
) -> None:
    path = write(tmp_path, "items.jsonl", GOOD[:-1] + ", " + extra + "}\n")
    with pytest.raises(InputError, match=re.escape(f"items.jsonl:1: {message}")) as exc:
        load_items(path)
    assert len(str(exc.value)) < len(str(path)) + 200


# -- 3. Bounded, streaming reading -----------------------------------------------------


def test_a_device_is_refused_without_reading() -> None:
    with pytest.raises(InputError, match=re.escape("/dev/zero: is a device, not a file")):
        load_items("/dev/zero")


class Zeros(io.RawIOBase):
    """An endless stream of zero bytes, like /dev/zero piped into standard input."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        buffer[:] = bytes(len(buffer))
        return len(buffer)


def test_endless_input_stops_at_the_line_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin(monkeypatch, Zeros())
    with pytest.raises(InputError, match=re.escape("<stdin>:1: line is longer than 64 MiB")):
        load_items("-")


def test_line_limit_names_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_io_rows, "MAX_LINE_BYTES", 1000)
    long_row = json.dumps({**ROW, "question": "x" * 990})  # over 1000 bytes
    path = write(tmp_path, "items.jsonl", f"{GOOD}\n{GOOD}\n{long_row}\n")
    with pytest.raises(InputError, match=re.escape("items.jsonl:3: line is longer than")):
        load_items(path, skip_invalid=True)
    fits = json.dumps({**ROW, "question": "x" * (1000 - len(GOOD) + 1)})
    assert len(fits.encode()) == 1000  # the limit itself, without its newline, is allowed
    assert len(load_items(write(tmp_path, "ok.jsonl", f"{fits}\n")).items) == 1
    big_cell = "question,answer_1,answer_2\n" + "q,a," + "b" * 2000 + "\n"
    with pytest.raises(InputError, match=re.escape("items.csv:2: line is longer than")):
        load_items(write(tmp_path, "items.csv", big_cell))


def test_json_array_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_io_rows, "MAX_ARRAY_BYTES", 1000)
    path = write(tmp_path, "items.json", json.dumps([ROW] * 40, indent=2))
    with pytest.raises(InputError, match=re.escape("items.json: a JSON array over 0 MiB")):
        load_items(path)


def test_csv_fields_longer_than_the_csv_module_default_load(tmp_path: Path) -> None:
    answer = "word " * 100_000  # 500 kB; the csv module refuses fields over 128 kB
    path = write(tmp_path, "items.csv", f'question,answer_1,answer_2\nq,"{answer}",b\n')
    assert load_items(path).items[0].answer_1 == answer


def test_a_named_pipe_streams(tmp_path: Path) -> None:
    fifo = tmp_path / "items.jsonl"
    os.mkfifo(fifo)

    def feed() -> None:
        with fifo.open("w", encoding="utf-8") as out:
            out.write(f"{GOOD}\n{GOOD}\n")

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert [it.id for it in load_items(fifo).items] == ["1", "2"]
    finally:
        writer.join(timeout=10)


def test_invalid_utf8_names_line_and_byte_offset(tmp_path: Path) -> None:
    head = f"{GOOD}\n{GOOD}\n".encode()
    path = write(tmp_path, "items.jsonl", head + b'{"question": "caf\xe9"}\n')
    offset = len(head) + len(b'{"question": "caf')
    with pytest.raises(
        InputError,
        match=re.escape(
            f"items.jsonl:3: file is not UTF-8 (invalid byte 0xe9 at byte offset {offset}); "
            "re-encode it as UTF-8"
        ),
    ):
        load_items(path, skip_invalid=True)


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_are_input_errors_naming_a_line(tmp_path: Path, seed: int) -> None:
    data = random.Random(seed).randbytes(4096)
    for name in ("items.jsonl", "items.csv", "items.json"):
        with pytest.raises(InputError) as exc:
            load_items(write(tmp_path, name, data))
        assert exc.value.path == str(tmp_path / name)
        if "not UTF-8" in str(exc.value):
            assert exc.value.line is not None
            assert "at byte offset" in str(exc.value)


def test_parquet_bytes_in_a_text_file_say_so(tmp_path: Path) -> None:
    path = write(tmp_path, "items.jsonl", b"PAR1\x15\x04\x15\x80\xff\x01\n")
    with pytest.raises(InputError, match=re.escape("this is a Parquet file; rename it to end")):
        load_items(path)


# -- 4. A CSV record is named by the line it starts on ----------------------------------


def test_multi_line_csv_record_is_reported_where_it_starts(tmp_path: Path) -> None:
    text = 'question,answer_1,answer_2,human\nq,a,b,1\n"one\ntwo\nthree",a,b,x\nq2,a,b,2\n'
    path = write(tmp_path, "items.csv", text)
    with pytest.raises(InputError, match=re.escape("items.csv:3: 'human' must be 1, 2 or tie")):
        load_items(path)
    loaded = load_items(path, skip_invalid=True)
    assert [it.id for it in loaded.items] == ["2", "6"]
    assert [line for line, _ in read_rows(path)] == [2, 3, 6]


def test_csv_with_lone_carriage_returns_counts_them_as_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "items.csv", 'question,answer_1,answer_2\rq,a,b\r"x\ry",a,b\rz,a,b\r')
    assert [(it.id, it.question) for it in load_items(path).items] == [
        ("2", "q"),
        ("3", "x\ry"),
        ("5", "z"),
    ]


# -- 5. "-" reads standard input --------------------------------------------------------


def test_stdin_jsonl(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin(monkeypatch, f"{GOOD}\n{{bad\n".encode())
    with pytest.raises(InputError, match=re.escape("<stdin>:2: invalid JSON (Expecting")):
        load_items("-")
    stdin(monkeypatch, f"{GOOD}\n{{bad\n".encode())
    loaded = load_items(Path("-"), skip_invalid=True)
    assert (loaded.path, [it.id for it in loaded.items]) == ("<stdin>", ["1"])


def test_stdin_json_array_and_csv(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin(monkeypatch, json.dumps([ROW, ROW], indent=2).encode())
    assert [it.id for it in load_items("-").items] == ["2", "7"]
    stdin(monkeypatch, b"\xef\xbb\xbfquestion;answer_1;answer_2\nq;a;b\n")
    assert [(it.id, it.answer_1) for it in load_items("-").items] == [("2", "a")]
    stdin(monkeypatch, b"model_a,model_b,winner\nx,y,tie\n")
    assert list(read_rows("-")) == [(2, {"model_a": "x", "model_b": "y", "winner": "tie"})]


def test_stdin_parquet_and_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin(monkeypatch, b"PAR1\x15\x04\x15\x80\xff\x01\x00")
    with pytest.raises(
        InputError, match=re.escape("<stdin>:1: this is a Parquet file; save it to a file")
    ):
        load_items("-")
    stdin(monkeypatch, b" \n\n")
    with pytest.raises(InputError, match=re.escape("<stdin>: file is empty")):
        load_items("-")


def test_cli_compare_reads_stdin() -> None:
    result = CliRunner().invoke(
        app, ["compare", "-", "--judge", LONGER, "--json"], input=f"{GOOD}\n{GOOD}\n"
    )
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["compare", "-", "--judge", LONGER], input="{oops\n")
    assert result.exit_code == 2
    assert "<stdin>:1: invalid JSON" in " ".join(result.output.split())


# -- 6. Messages say each word once -----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"question": "abc', "invalid JSON (Unterminated string starting at column 14)"),
        ('{"question": "a\x01"}', "invalid JSON (Invalid control character at column 16)"),
    ],
)
def test_json_messages_do_not_double_words(tmp_path: Path, line: str, message: str) -> None:
    path = write(tmp_path, "items.jsonl", line + "\n")
    with pytest.raises(InputError) as exc:
        load_items(path)
    assert str(exc.value) == f"{path}:1: {message}"
    path = write(tmp_path, "items.json", "[" + line)
    with pytest.raises(InputError) as exc:
        load_items(path)
    assert not re.search(r"\b(\w+) \1\b", str(exc.value)), str(exc.value)


# -- 7. Skipped rows as JSON records ----------------------------------------------------


def test_skipped_records_are_json_ready(tmp_path: Path) -> None:
    path = write(tmp_path, "items.jsonl", f'{GOOD}\n{{"question": "q"}}\n\n[1]\n')
    loaded = load_items(path, skip_invalid=True)
    records = loaded.skipped_records()
    assert records == [
        {
            "source": str(path),
            "line": 2,
            "message": "missing column 'answer_1'; this row has keys: 'question'; "
            "to read another key, pass columns.answer_1=NAME",
        },
        {"source": str(path), "line": 4, "message": "expected a JSON object, got list"},
    ]
    assert json.loads(json.dumps(records)) == records
    assert load_items(write(tmp_path, "ok.jsonl", f"{GOOD}\n")).skipped_records() == []
