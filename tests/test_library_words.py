"""The library speaks in parameters, the CLI in flags (DESIGN.md, issue 22).

Every string literal under ``src/fairjudge`` outside ``cli/`` is scanned for
something that reads as a command-line flag (``--bootstrap``): an error message, a
hint, a table header. Docstrings are left out (module, class and function
docstrings, and the bare string under an assignment that documents it): they are
documentation for the code's readers, who may be told which flag reaches a field;
what a user reads at run time is checked. Then the CLI's one table
(``fairjudge.cli._flags``) must turn every parameter a library error names back
into a flag, so CLI users read what they typed.
"""

from __future__ import annotations

import ast
import math
import os
import re
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairjudge._errors import ConfigError, FairJudgeError, InputError
from fairjudge.cli._flags import FLAGS, to_flags
from tests.cli_process import run_process
from tests.forked_cli import PACKAGES

SRC = Path(__file__).resolve().parents[1] / "src" / "fairjudge"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")

# Text that matches FLAG but is not a command-line flag of fairjudge, with why.
NOT_FLAGS: dict[str, str] = {
    # `pip install --force-reinstall` is pip's flag, in the fix for a broken weights package.
    "--force-reinstall": "pip's flag, not fairjudge's",
}


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (of a module, class, function or name)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                found.add(id(stmt.value))
    return found


def library_strings() -> Iterator[tuple[str, int, str]]:
    """(file, line, text) of every non-docstring string literal outside cli/."""
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] in ("cli", "testing"):  # front ends: the CLI's flags, pytest's options
            continue
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
            ):
                yield str(rel), node.lineno, node.value


# Files whose strings still name flags, and how many: issue 22 is moving them to
# parameters a file at a time. Each entry may only shrink; delete it at 0.
_BUSY = "being reworked by the budget-stop change of issue 22; converted after it lands"
_RECORDS = "failure records and report text the CLI prints as they are: needs a rewrite there too"
_FILES = "names a result file by the command that wrote it (`compare --out`)"
PENDING: dict[str, tuple[int, str]] = {
    "backends/_local.py": (1, _RECORDS),
}


def flags_in(text: str) -> list[str]:
    return [f for f in FLAG.findall(text) if f not in NOT_FLAGS]


def test_no_library_string_names_a_flag() -> None:
    found = [
        f"{rel}:{line}: {flags_in(text)} in {text[:80]!r}"
        for rel, line, text in library_strings()
        if flags_in(text)
    ]
    new = [f for f in found if f.split(":")[0] not in PENDING]
    assert new == [], "\n".join(new)
    counts = Counter(f.split(":")[0] for f in found)
    grown = {rel: (counts[rel], n) for rel, (n, _) in PENDING.items() if counts[rel] > n}
    assert grown == {}, f"pending files with more flags than before (now, allowed): {grown}"
    shrunk = {rel: (counts[rel], n) for rel, (n, _) in PENDING.items() if counts[rel] < n}
    assert shrunk == {}, f"lower PENDING to (now) or delete the entry: {shrunk}"


def test_the_scan_sees_fstring_parts_and_skips_docstrings() -> None:
    source = 'def f(n):\n    """Use --doc."""\n    x = 1\n    """Attr: --doc too."""\n'
    source += '    raise ValueError(f"--bootstrap must be >= 1; got {n}")\n'
    tree = ast.parse(source)
    docs = _docstrings(tree)
    texts = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]
    assert [flags_in(t) for t in texts] == [["--bootstrap"]]


def test_every_flag_in_the_table_is_a_flag_of_the_cli() -> None:
    cli = "".join(p.read_text("utf-8") for p in (SRC / "cli").glob("*.py"))
    for param, flag in FLAGS.items():
        for one in flag.split("/"):
            # typer derives a flag from the option's Python name, or takes it as written.
            name = one.removeprefix("--").replace("-", "_")
            assert f'"{one}"' in cli or re.search(rf"\b{name}\b\s*:", cli), (param, one)


def _library_errors() -> Iterator[tuple[str, FairJudgeError]]:
    """One library error for each kind of parameter check the CLI reaches."""
    from fairjudge.evaluation import EvalSettings
    from fairjudge.judges import BackendOptions
    from fairjudge.runner import RunOptions

    cases = {
        "n_resamples": lambda: EvalSettings(n_resamples=0),
        "level": lambda: EvalSettings(level=2),
        "rounds": lambda: EvalSettings(rounds=0),
        "rule": lambda: EvalSettings(rule="nope"),  # type: ignore[arg-type]
        "balanced": lambda: EvalSettings(rounds=3),
        "threads": lambda: BackendOptions(threads=0),
        "context": lambda: BackendOptions(context=10),
        "temperature": lambda: BackendOptions(temperature=5),
        "timeout": lambda: BackendOptions(timeout=0),
        "concurrency": lambda: RunOptions(concurrency=0),
        "rpm": lambda: RunOptions(rpm=0),
        "max_calls": lambda: RunOptions(max_calls=-1),
        "max_attempts": lambda: RunOptions.build(max_attempts=0),
        "price_output": lambda: RunOptions.build(price_input=1.0),
        "max_cost": lambda: RunOptions(max_cost=1.0, list_prices=False),
        "price_cached_input": lambda: RunOptions.build(price_cached_input=0.1),
        "price_input": lambda: RunOptions.build(price_input=math.nan, price_output=1.0),
    }
    for name, make in cases.items():
        with pytest.raises(FairJudgeError) as info:
            make()
        yield name, info.value


def test_library_errors_name_parameters_the_table_turns_into_flags() -> None:
    for name, exc in _library_errors():
        assert exc.params, name
        message = str(exc)
        assert not flags_in(message), message
        for param in exc.params:
            assert param in FLAGS, f"{param!r} (named by {message!r}) has no flag in cli/_flags"
            assert param in message, (param, message)
        assert flags_in(to_flags(message, exc.params)), (name, message)


@pytest.mark.parametrize(
    ("error", "command", "shown"),
    [
        (ConfigError("n_resamples must be >= 1; got 0", params="n_resamples"), None,
         "--bootstrap must be >= 1; got 0"),
        (ConfigError("rounds=3 with balanced=True must be even; or balanced=False",
                     params=("rounds", "balanced")), None,
         "--rounds 3 with --balanced must be even; or --no-balanced"),
        (InputError("'a' is empty; fill it in, or pass allow_empty=True to judge it",
                    params="allow_empty"), None,
         "'a' is empty; fill it in, or pass --allow-empty to judge it"),
        (InputError("to read another key, pass columns.answer_1=NAME",
                    params="columns.answer_1"), None,
         "to read another key, pass --answer1-col NAME"),
        (ConfigError("judge: empty judge spec ''; or leave judge out", params="judge"), None,
         "--judge: empty judge spec ''; or leave --judge out"),
        (ConfigError("mode must be one of json, label", params="mode"), "compare",
         "--score-mode must be one of json, label"),
        (ConfigError("mode must be one of json, label", params="mode"), "score",
         "--mode must be one of json, label"),
        (ConfigError("model_path, threads do not apply", params=("model_path", "threads")),
         None, "--model-path, --threads do not apply"),
    ],
)  # fmt: skip
def test_to_flags(error: FairJudgeError, command: str | None, shown: str) -> None:
    assert to_flags(str(error), error.params, command) == shown


def test_a_word_after_a_determiner_stays_a_word() -> None:
    message = "the judge samples; unknown judge 'x'; an empty judge spec; judge: bad"
    assert to_flags(message, ("judge",)) == (
        "the judge samples; unknown judge 'x'; an empty judge spec; --judge: bad"
    )


def _fairjudge(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command line in a process of its own, its lines wide enough not to wrap."""
    env = {**os.environ, "COLUMNS": "400"}
    return run_process(args, env=env, cwd=cwd, timeout=120, preload=PACKAGES)  # few runs


def test_the_cli_still_names_its_flags(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"question": "q", "answer_1": "a", "answer_2": "b"}\n', "utf-8")
    judge = "python:fairjudge.examples.judges:longer"
    runs = [
        (["--bootstrap", "0"], "--bootstrap must be >= 1; got 0"),
        (["--rounds", "3"], "--rounds 3 with --balanced must be even"),
        (["--concurrency", "0"], "--concurrency must be an integer >= 1; got 0"),
        (["--level", "1.5"], "--level must be in (0, 1); got 1.5"),
    ]
    for extra, shown in runs:
        done = _fairjudge("compare", str(items), "--judge", judge, *extra, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert shown in done.stderr, done.stderr
        assert "n_resamples" not in done.stderr


def test_the_cli_names_the_flag_of_an_input_remedy(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"question": "q", "answer_1": "", "answer_2": "b"}\n', "utf-8")
    done = _fairjudge("compare", str(items), "--judge", "python:fairjudge.examples.judges:longer",
                      "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "pass --allow-empty to judge empty answers" in done.stderr
    assert "allow_empty" not in done.stderr
    assert "pass --allow-empty" in done.stdout  # the --json error object reads the same


def test_a_file_name_a_noun_and_an_identifier_are_left_or_rewritten_as_read() -> None:
    message = "'/d/store.sqlite' is not a usable fairjudge store; pass another path with store"
    assert to_flags(message, ("store",)) == (
        "'/d/store.sqlite' is not a usable fairjudge store; pass another path with --store"
    )
    assert to_flags("out.jsonl: written by `compare out`", ("out",)) == (
        "out.jsonl: written by `compare --out`"
    )
    assert to_flags("give judge once per judge", ("judge",)) == "give --judge once per judge"
    assert to_flags("pick a strict_rubric", ("strict_rubric",)) == "pick a --strict-rubric"
    assert to_flags("(a group never lost); pass l2 > 0 or add battles", ("l2",)) == (
        "(a group never lost); pass l2 > 0 (--l2 on the command line) or add battles"
    )


def test_report_text_is_worded_for_the_command_running_now() -> None:
    from fairjudge._errors import worded, wording

    text = "no item was judged in both orders (rounds=1)"
    assert worded(text, "rounds") == text  # a library caller reads the parameter
    with wording(to_flags):
        assert worded(text, "rounds") == "no item was judged in both orders (--rounds 1)"
    assert worded(text, "rounds") == text
