"""Reading comparison files: formats, whole-file mistakes, row problems, conversations."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge._errors import InputError
from fairjudge.cli import app
from fairjudge.io import Columns, load_items, read_rows

LONGER = "python:tests.judge_fixtures:longer"
ROW = {"question": "q", "answer_1": "a", "answer_2": "b"}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(tmp_path: Path, rows: list[object], name: str = "items.jsonl") -> Path:
    return write(tmp_path, name, "".join(json.dumps(r) + "\n" for r in rows))


# -- 1. CSV separators and missing columns ------------------------------------------------


@pytest.mark.parametrize("sep", [";", "\t"])
def test_semicolon_and_tab_separated_csv_load(tmp_path: Path, sep: str) -> None:
    text = sep.join(["question", "answer_1", "answer_2"]) + "\n"
    text += sep.join(["Capital, of France?", "Paris", "Lyon"]) + "\n"
    loaded = load_items(write(tmp_path, "items.csv", text))
    [item] = loaded.items
    assert (item.question, item.answer_1, item.answer_2, item.id) == (
        "Capital, of France?",
        "Paris",
        "Lyon",
        "2",
    )


def test_semicolon_csv_reaches_ranking_rows(tmp_path: Path) -> None:
    path = write(tmp_path, "battles.csv", "model_a;model_b;winner\nx;y;tie\n")
    assert list(read_rows(path)) == [(2, {"model_a": "x", "model_b": "y", "winner": "tie"})]


def test_comma_csv_with_semicolons_in_values_keeps_commas(tmp_path: Path) -> None:
    path = write(tmp_path, "items.csv", 'question,answer_1,answer_2\n"a;b",x;y,z\n')
    [item] = load_items(path).items
    assert (item.question, item.answer_1) == ("a;b", "x;y")


@pytest.mark.parametrize("skip_invalid", [False, True])
def test_csv_missing_column_is_reported_once_on_the_header(
    tmp_path: Path, skip_invalid: bool
) -> None:
    path = write(tmp_path, "items.csv", "question;answer_1;answer\nq;a;b\nq2;a;b\n")
    expected = (
        f"{path}:1: missing column 'answer_2'; found columns: 'question', 'answer_1', "
        "'answer'; to read another column, pass columns.answer_2=NAME"
    )
    with pytest.raises(InputError, match=f"^{re.escape(expected)}$") as exc:
        load_items(path, skip_invalid=skip_invalid)
    assert exc.value.line == 1


def test_csv_missing_several_columns_names_every_flag(tmp_path: Path) -> None:
    path = write(tmp_path, "items.csv", "prompt,x,y\nq,a,b\n")
    expected = (
        "items.csv:1: missing column 'question' (and 'answer_1', 'answer_2'); "
        "found columns: 'prompt', 'x', 'y'; "
        "to read other columns, pass columns.question, columns.answer_1, columns.answer_2"
    )
    with pytest.raises(InputError, match=re.escape(expected) + "$"):
        load_items(path)
    cols = Columns(question="prompt", answer_1="x", answer_2="y")
    assert [it.question for it in load_items(path, columns=cols).items] == ["q"]


def test_csv_missing_mapped_column_names_the_mapped_name(tmp_path: Path) -> None:
    path = write(tmp_path, "items.csv", "question,answer_1,answer_2\nq,a,b\n")
    with pytest.raises(
        InputError,
        match=re.escape(
            "items.csv:1: missing column 'prompt'; found columns: 'question', 'answer_1', "
            "'answer_2'; to read another column, pass columns.question=NAME"
        ),
    ):
        load_items(path, columns=Columns(question="prompt"))


def test_csv_short_row_has_no_value(tmp_path: Path) -> None:
    path = write(tmp_path, "items.csv", "question,answer_1,answer_2\nq,a\n")
    with pytest.raises(
        InputError, match=re.escape("items.csv:2: missing column 'answer_2' (this row has no")
    ):
        load_items(path)


def test_parquet_missing_column_lists_the_columns(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "items.parquet"
    pq.write_table(pa.Table.from_pylist([{"question": "q", "answer_1": "a"}]), path)
    with pytest.raises(
        InputError,
        match=re.escape(
            "items.parquet: missing column 'answer_2'; found columns: 'question', 'answer_1'; "
            "to read another column, pass columns.answer_2=NAME"
        ),
    ):
        load_items(path, skip_invalid=True)


def test_jsonl_row_missing_column_lists_its_keys_and_the_flag(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [ROW, {"prompt": "q", "answer_1": "a", "answer_2": "b"}])
    with pytest.raises(
        InputError,
        match=re.escape(
            "items.jsonl:2: missing column 'question'; this row has keys: 'prompt', "
            "'answer_1', 'answer_2'; to read another key, pass columns.question=NAME"
        ),
    ):
        load_items(path)


def test_jsonl_null_value_has_no_value(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [{**ROW, "answer_1": None}])
    with pytest.raises(
        InputError,
        match=re.escape("items.jsonl:1: missing column 'answer_1' (this row has no value for it)"),
    ):
        load_items(path)


def test_cli_prints_the_header_problem_on_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "items.csv", "prompt;answer_1;answer_2\nq;a;b\n")
    result = CliRunner().invoke(app, ["compare", str(path), "--judge", LONGER])
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert "items.csv:1: missing column 'question'; found columns: 'prompt'," in flat
    assert "pass --question-col NAME" in flat


# -- 2. JSON arrays -------------------------------------------------------------------------

ARRAY_MESSAGE = (
    "file is a JSON array, but fairjudge reads JSON Lines (one object per line); "
    "convert it with: jq -c '.[]' items.jsonl > items.lines.jsonl "
    "(or name it .json, which may hold an array)"
)


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson"])
def test_jsonl_holding_an_array_says_so(tmp_path: Path, indent: int | None, suffix: str) -> None:
    path = write(tmp_path, f"items{suffix}", json.dumps([ROW, ROW], indent=indent))
    message = ARRAY_MESSAGE.replace("items.jsonl >", f"items{suffix} >")
    with pytest.raises(InputError, match=f"^{re.escape(f'{path}: {message}')}$"):
        load_items(path)
    with pytest.raises(InputError, match="file is a JSON array"):
        read_rows(path)


def test_json_array_loads(tmp_path: Path) -> None:
    rows = [{**ROW, "id": "x"}, {"question": "q2", "answer_1": "c", "answer_2": "d"}]
    path = write(tmp_path, "items.json", json.dumps(rows))
    assert [(it.id, it.question) for it in load_items(path).items] == [("x", "q"), ("1", "q2")]
    # Pretty-printed: an element without an id is named by the line it starts on.
    path = write(tmp_path, "items.json", json.dumps(rows, indent=2))
    assert [it.id for it in load_items(path).items] == ["x", "8"]
    assert [line for line, _ in read_rows(path)] == [2, 8]


def test_json_array_errors_name_the_line_each_element_starts_on(tmp_path: Path) -> None:
    path = write(
        tmp_path, "items.json", f'[\n  {json.dumps(ROW)},\n\n  {{"question": 3}}, [1]\n]\n'
    )
    with pytest.raises(
        InputError, match=re.escape("items.json:4: 'question' must be a string or a list")
    ):
        load_items(path)
    loaded = load_items(path, skip_invalid=True)
    assert [e.line for e in loaded.skipped] == [4, 4]
    assert "expected a JSON object, got list" in str(loaded.skipped[1])


def test_json_array_with_bad_syntax_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "items.json", f"[\n  {json.dumps(ROW)}\n  {json.dumps(ROW)}\n]\n")
    with pytest.raises(
        InputError,
        match=re.escape("items.json:3: invalid JSON array (Expecting ',' delimiter at column 3)"),
    ):
        load_items(path)


def test_json_lines_in_a_json_file_still_load(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [ROW, {**ROW, "question": "q2"}], name="items.json")
    assert [it.id for it in load_items(path).items] == ["1", "2"]


def test_a_one_line_list_row_is_still_a_row_error(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [["q", "a", "b"]])
    with pytest.raises(
        InputError, match=re.escape("items.jsonl:1: expected a JSON object, got list")
    ):
        load_items(path)


def test_a_bad_row_starting_with_a_bracket_is_not_called_an_array(tmp_path: Path) -> None:
    path = write(tmp_path, "items.jsonl", f"[oops\n{json.dumps(ROW)}\n")
    with pytest.raises(InputError, match=re.escape("items.jsonl:1: invalid JSON (")):
        load_items(path)


def test_empty_json_array_holds_no_items(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=re.escape("items.json: file holds no items")):
        load_items(write(tmp_path, "items.json", "[]\n"))


# -- 3. --skip-invalid when nothing is valid ----------------------------------------------


def test_skip_invalid_with_every_row_bad_lists_the_first_five_and_the_count(
    tmp_path: Path,
) -> None:
    rows: list[object] = [{**ROW, "question": ""} for _ in range(6)]
    rows.append({"question": "q"})
    path = jsonl(tmp_path, rows)
    problems = " | ".join(f"line {n}: 'question' is empty" for n in range(1, 6))
    expected = f"{path}: no valid row found (7 invalid rows; the first 5): {problems}"
    with pytest.raises(InputError, match=f"^{re.escape(expected)}$") as exc:
        load_items(path, skip_invalid=True)
    assert exc.value.line is None


def test_skip_invalid_with_few_bad_rows_lists_them_all(tmp_path: Path) -> None:
    path = write(tmp_path, "items.jsonl", '{not json\n{"question": "q"}\n')
    expected = (
        "no valid row found (2 invalid rows): line 1: invalid JSON (Expecting property name "
        "enclosed in double quotes at column 2) | line 2: missing column 'answer_1'; this row "
        "has keys: 'question'; to read another key, pass columns.answer_1=NAME"
    )
    with pytest.raises(InputError, match=re.escape(expected) + "$"):
        load_items(path, skip_invalid=True)
    with pytest.raises(InputError, match=re.escape("(1 invalid row): line 1:")):
        load_items(jsonl(tmp_path, [{**ROW, "human": "x"}]), skip_invalid=True)


def test_skip_invalid_keeps_the_good_rows(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [ROW, {**ROW, "answer_2": 3}])
    loaded = load_items(path, skip_invalid=True)
    assert [it.id for it in loaded.items] == ["1"]
    assert [e.line for e in loaded.skipped] == [2]


def test_cli_skip_invalid_with_every_row_bad_exits_2(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [{"question": "q"}, {"question": ""}])
    result = CliRunner().invoke(app, ["compare", str(path), "--judge", LONGER, "--skip-invalid"])
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert "no valid row found (2 invalid rows): line 1: missing column 'answer_1'" in flat
    assert "to read another key, pass --answer1-col NAME | line 2: 'question' is empty" in flat


# -- 4. Conversations as questions --------------------------------------------------------

CONVERSATION = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello."},
    {"role": "user", "content": "Capital of France?"},
]
EXPECTED = (
    ("system", "Be brief."),
    ("user", "Hi"),
    ("assistant", "Hello."),
    ("user", "Capital of France?"),
)


def test_jsonl_conversation_question(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [{**ROW, "question": CONVERSATION}, ROW])
    first, second = load_items(path).items
    assert first.question == EXPECTED
    assert first.question_text.startswith("[system]\nBe brief.")
    assert second.question == "q"


def test_csv_conversation_question_is_a_json_string(tmp_path: Path) -> None:
    cell = json.dumps(CONVERSATION).replace('"', '""')
    path = write(tmp_path, "items.csv", f'question,answer_1,answer_2\n"{cell}",a,b\n')
    [item] = load_items(path).items
    assert item.question == EXPECTED


def test_parquet_conversation_as_list_or_string(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    as_list = tmp_path / "list.parquet"
    pq.write_table(pa.Table.from_pylist([{**ROW, "question": CONVERSATION}]), as_list)
    as_text = tmp_path / "text.parquet"
    pq.write_table(pa.Table.from_pylist([{**ROW, "question": json.dumps(CONVERSATION)}]), as_text)
    assert load_items(as_list).items[0].question == EXPECTED
    assert load_items(as_text).items[0].question == EXPECTED


def test_bracketed_plain_questions_stay_strings(tmp_path: Path) -> None:
    csv_path = write(tmp_path, "items.csv", 'question,answer_1,answer_2\n"[INST] Hi [/INST]",a,b\n')
    assert load_items(csv_path).items[0].question == "[INST] Hi [/INST]"
    # In JSON a conversation is a real list, so a string is always a plain question.
    text = json.dumps(CONVERSATION)
    assert load_items(jsonl(tmp_path, [{**ROW, "question": text}])).items[0].question == text


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ([], "'question' is an empty list of messages"),
        (
            ["hi"],
            "'question'[0] must be an object with 'role' and 'content', got str 'hi'",
        ),
        (
            [{"role": "bot", "content": "x"}, {"role": "user", "content": "q"}],
            "'question'[0] 'role' must be one of 'system', 'user', 'assistant'; got 'bot'",
        ),
        (
            [{"content": "q"}],
            "'question'[0] 'role' must be one of 'system', 'user', 'assistant'; got None",
        ),
        (
            [{"role": "system", "content": "s"}, {"role": "user", "content": 3}],
            "'question'[1] 'content' must be a string, got int 3",
        ),
        (
            [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
            "'question'[1] is from 'assistant', but a conversation must end with a 'user' "
            "message, which the answers continue",
        ),
        ([{"role": "user", "content": "  "}], "'question'[0] 'content' is empty"),
        (3, "'question' must be a string or a list of messages, got int 3"),
    ],
)
def test_bad_conversations_name_file_line_and_message(
    tmp_path: Path, question: object, message: str
) -> None:
    path = jsonl(tmp_path, [ROW, {**ROW, "question": question}])
    with pytest.raises(InputError, match=f"^{re.escape(f'{path}:2: {message}')}$"):
        load_items(path)


def test_csv_conversation_with_bad_json_is_an_error(tmp_path: Path) -> None:
    cell = '[{""role"": ""user"", ""content"": ""q""},]'
    path = write(tmp_path, "items.csv", f'question,answer_1,answer_2\n"{cell}",a,b\n')
    with pytest.raises(
        InputError,
        match=re.escape(
            "items.csv:2: 'question' looks like a JSON list of messages but is not valid JSON "
            "(Expecting value at column 35)"
        ),
    ):
        load_items(path)


def test_csv_conversation_is_validated(tmp_path: Path) -> None:
    cell = json.dumps([{"role": "assistant", "content": "a"}]).replace('"', '""')
    path = write(tmp_path, "items.csv", f'question,answer_1,answer_2\n"{cell}",a,b\n')
    with pytest.raises(
        InputError, match=re.escape("items.csv:2: 'question'[0] is from 'assistant'")
    ):
        load_items(path)
