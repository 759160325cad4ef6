"""Every hostile file against every file reader of the command line, each in a process.

Files a user may be handed (jury files, recordings, results, rubrics, templates, a
baseline, the inputs themselves) must each give one line on stderr and exit code 2,
naming the file and the problem: never a traceback, never a hang. This module builds
the hostile files (nested 1,000 deep, not UTF-8, not the format, wrong types, naming
Python code, ``/dev/zero``, a named pipe with no writer, a directory, a missing
file, a jury file that points at any of those) and runs ``fairjudge`` on each, the
way a user would, with a timeout, so a hang is counted instead of waited on.

Call it from a benchmark or a test::

    from tests.untrusted_files import try_hostile_files

    tally = try_hostile_files(workers=2)
    tried, tracebacks, hangs, not_exit_2 = tally  # a NamedTuple: all but `tried` must be 0

:func:`try_hostile_files` ``(root=None, *, timeout=30.0, workers=2, on_case=None,
forks=None) -> Tally``:

- ``root``: a folder to build the files in (a temporary one, removed after, when
  ``None``); it must not exist yet or be empty.
- ``timeout``: seconds one process may run before it is killed and counted as a hang.
- ``workers``: processes run at once.
- ``on_case``: called with each :class:`Outcome`, in no particular order (for a
  table of what failed, say).
- ``forks``: fork servers (:class:`tests.forked_cli.CliForks`) to run the cases in,
  one at a time each; by default ``workers`` of them are started and closed after.
  Each case is still its own process, forked from one that has imported
  ``fairjudge.cli`` and the library already, which saves the imports that are most
  of a run's time.
- Returns :class:`Tally` ``(tried, tracebacks, hangs, not_exit_2)``: cases run (one
  file given to one reader), runs whose output held a traceback, runs killed at the
  timeout, and runs that ended with a code other than 2 (hangs not included).

Each run is also checked for a one-line error that names the file
(:attr:`Outcome.one_line`, :attr:`Outcome.names_file`); the test asserts those too.

One exception is by design: the comparison inputs (``compare FILE``) may be named
pipes, which are read as a stream (``fairjudge compare <(jq ...)``), so the pipe is
not tried against that reader; every other reader refuses a pipe unread.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from tests.forked_cli import LIBRARY, CliForks

__all__ = [
    "Case",
    "Outcome",
    "Tally",
    "environment",
    "hostile_cases",
    "run_case",
    "try_hostile_files",
]

ROOT = Path(__file__).resolve().parents[1]
HERE = "tests.untrusted_files"


class Tally(NamedTuple):
    """What :func:`try_hostile_files` saw; every field but ``tried`` must be 0."""

    tried: int
    tracebacks: int
    hangs: int
    not_exit_2: int


@dataclass(frozen=True)
class Case:
    """One hostile file given to one reader.

    Attributes:
        reader: Which reader (``replay``, ``report``, ``jury file``, ...).
        file: The hostile file's label (``deep-array-1000``, ``/dev/zero``, ...).
        argv: The ``fairjudge`` arguments.
        names: Any of these in stderr names the file (its name, or a file it points to).
    """

    reader: str
    file: str
    argv: tuple[str, ...]
    names: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    """How one :class:`Case` ended: ``code`` is ``None`` for a run killed at the timeout."""

    case: Case
    code: int | None
    stderr: str

    @property
    def traceback(self) -> bool:
        """Whether a traceback reached the user."""
        return "Traceback (most recent call last)" in self.stderr

    @property
    def one_line(self) -> bool:
        """Whether stderr is exactly one non-blank line."""
        return len([line for line in self.stderr.splitlines() if line.strip()]) == 1

    @property
    def names_file(self) -> bool:
        """Whether stderr names the hostile file (or the file a jury file points to)."""
        return any(name in self.stderr for name in self.case.names)

    @property
    def ok(self) -> bool:
        """Exit 2, one line naming the file, no traceback."""
        return self.code == 2 and self.one_line and self.names_file and not self.traceback


# -- Python judges the cases name, so a case reaches its reader and nothing else fails --


def first(question: str, answer_a: str, answer_b: str) -> str:
    """A pairwise judge: always the answer shown first."""
    return "A"


def middling(question: str, answer: str) -> dict[str, int]:
    """A pointwise judge: 3 on every dimension of the default rubric."""
    return dict.fromkeys(("accuracy", "relevance", "usefulness"), 3)


# -- The files ------------------------------------------------------------------------

_PAIRS = [{"id": str(i), "question": f"Q{i}?", "answer_1": "yes", "answer_2": "no"} for i in (1, 2)]
_SCORED = [{"id": str(i), "question": f"Q{i}?", "answer": "yes"} for i in (1, 2)]
_RUBRIC = 'name = "r"\nversion = "1"\n[[dimensions]]\nname = "accuracy"\ndescription = "d"\n'
_TEMPLATE = 'name = "t"\nversion = "1"\nuser = "{question} <answer_a>{answer_a}</answer_a> ' \
            '<answer_b>{answer_b}</answer_b>"\n'  # fmt: skip


# Hostile to the recording readers, but valid comparison inputs: an input's extra
# fields (the calls, the members) are not read.
_VALID_INPUTS = frozenset({"deep-calls-900", "deep-members-900", "wrong-calls"})


def _deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


def _json_files() -> dict[str, bytes]:
    """Hostile JSON Lines files, for every reader of recordings, results and inputs."""
    deep = _deep_json(900)
    record = {"question": "Q1?", "answer_1": "yes", "answer_2": "no", "answer_a": "yes",
              "answer_b": "no"}  # fmt: skip
    good = json.dumps(record)[:-1]  # to append fields to
    texts = {
        "deep-array-1000": _deep_json(1000),
        "deep-object-1000": '{"a": ' * 1000 + "1" + "}" * 1000,
        "deep-question-900": f'{{"question": {deep}, "answer_1": "a", "answer_2": "b", '
                             f'"answer_a": "a", "answer_b": "b", "verdict": "A", "calls": []}}',
        "deep-calls-900": f'{good}, "calls": [{{"order": "original", "verdict": "A", '
                          f'"probabilities": {{"A": {deep}}}}}]}}',
        "deep-members-900": f'{good}, "members": {{"m": {{"calls": {deep}}}, '
                            f'"n": {{"calls": []}}}}, '
                            f'"calls": [{{"order": "original", "verdict": "A"}}]}}',
        "deep-scores-900": f'{{"question": "Q1?", "scores": {{"accuracy": {deep}}}, '
                           f'"judge": {deep}, "rubric": {deep}}}',
        "huge-integer": f'{good}, "sample": {"9" * 5000}, "verdict": "A"}}',
        "infinity": f'{good}, "sample": Infinity, "verdict": "A", "human_score": NaN}}',
        "lone-surrogate": f'{good}, "verdict": "\\ud800"}}',
        "not-objects": '[1, 2]\n"text"\nnull\n',
        "wrong-types": '{"question": 1, "answer_1": [], "answer_2": {}, "answer_a": 2, '
                       '"calls": "x", "members": 3, "scores": [], "verdict": {}}',
        "wrong-calls": f'{good}, "calls": [{{"order": {{"x": 1}}, "sample": "s", "verdict": 7, '
                       f'"probabilities": [1], "failure": 3}}], "members": {{"m": {{"calls": '
                       f'[{{"order": "original", "verdict": "Q"}}], "weight": "heavy"}}, '
                       f'"n": {{"calls": 5}}}}}}',
        "empty": "",
    }  # fmt: skip
    files = {name: (text + "\n" if text else "").encode() for name, text in texts.items()}
    files["not-utf8"] = b'{"question": "caf\xe9", "answer_1": "a", "answer_2": "b"}\n'
    files["binary"] = bytes(range(256)) * 4
    return files


def _toml_files(kind: str) -> dict[str, bytes]:
    """Hostile TOML files for a ``kind`` reader: ``jury``, ``rubric`` or ``template``."""
    wrong = {
        "jury": '[[member]]\njudge = 3\n[[member]]\njudge = "openai/x"\nweight = "heavy"\n',
        "rubric": _RUBRIC.replace('version = "1"', "version = {a = 1}"),
        "template": _TEMPLATE.replace('version = "1"', "version = [1]"),
    }[kind]
    code = {
        "jury": '[[member]]\njudge = "python:os:execlp"\n[[member]]\njudge = "python:os:system"\n',
        "rubric": _RUBRIC + 'parser = "python:os:system"\n',
        "template": _TEMPLATE + 'judge = "python:os:system"\n',
    }[kind]
    texts = {
        "deep-array-1000": "a = " + _deep_json(1000),
        "deep-table-1000": "a = " + "{b = " * 1000 + "1" + "}" * 1000,
        "deep-array-100": "a = " + _deep_json(100),
        "not-toml": "this is = = not toml",
        "wrong-types": wrong,
        "names-python-code": code,
        "empty": "",
    }
    files = {name: (text + "\n").encode() for name, text in texts.items()}
    files["not-utf8"] = b'name = "caf\xe9"\n'
    files["binary"] = bytes(range(256)) * 4
    return files


def _jury_pointers() -> dict[str, tuple[str, str]]:
    """Jury files whose own text is fine but which point somewhere hostile.

    Each: (the member lines, the file it points to, for the message).
    """
    model = 'judge = "openai/m"\n'
    return {
        "replay-/dev/zero": ('judge = "replay:zero.jsonl"\n', "zero.jsonl"),
        "replay-named-pipe": ('judge = "replay:pipe.jsonl"\n', "pipe.jsonl"),
        "replay-deep": ('judge = "replay:deep.jsonl"\n', "deep.jsonl"),
        "template-/dev/zero": (model + 'template = "zero.toml"\n', "zero.toml"),
        "template-named-pipe": (model + 'template = "pipe.toml"\n', "pipe.toml"),
        "base-url-[::1": (model + 'base_url = "http://[::1"\n', "base_url"),
        "base-url-file": (model + 'base_url = "file:///etc/passwd"\n', "base_url"),
        "base-url-ftp": (model + 'base_url = "ftp://127.0.0.1/v1"\n', "base_url"),
        "base-url-no-scheme": (model + 'base_url = "127.0.0.1:8000/v1"\n', "base_url"),
    }


def _special(folder: Path, stem: str, suffix: str) -> dict[str, Path]:
    """Files that are not regular files, named with ``suffix``."""
    made = {
        "/dev/zero": folder / f"{stem}-zero{suffix}",
        "/dev/null": folder / f"{stem}-null{suffix}",
        "named pipe": folder / f"{stem}-pipe{suffix}",
        "directory": folder / f"{stem}-dir{suffix}",
        "missing": folder / f"{stem}-missing{suffix}",
    }
    made["/dev/zero"].symlink_to("/dev/zero")
    made["/dev/null"].symlink_to("/dev/null")
    os.mkfifo(made["named pipe"])
    made["directory"].mkdir()
    return made


def _write(path: Path, data: bytes | str) -> Path:
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return path


def hostile_cases(root: Path) -> list[Case]:
    """Build every hostile file under ``root``; every case to run, with its arguments."""
    root.mkdir(parents=True, exist_ok=True)
    pairs = _write(root / "pairs.jsonl", "".join(json.dumps(r) + "\n" for r in _PAIRS))
    scored = _write(root / "scored.jsonl", "".join(json.dumps(r) + "\n" for r in _SCORED))
    pairwise, pointwise = f"python:{HERE}:first", f"python:{HERE}:middling"
    out = str(root / "never-written.html")
    readers: dict[str, tuple[str, Callable[[str], list[str]]]] = {
        # name: (the suffix its files need, the arguments for a file)
        "input": (".jsonl", lambda f: ["compare", f, "--judge", pairwise]),
        "replay": (".jsonl", lambda f: ["compare", str(pairs), "--judge", f"replay:{f}"]),
        "report": (".jsonl", lambda f: ["report", f, "-o", out]),
        "recorded jury": (".jsonl", lambda f: ["jury", str(pairs), "--jury", f]),
        "baseline": (".jsonl", lambda f: ["score", str(scored), "--judge", pointwise,
                                          "--baseline", f]),
        "jury file": (".toml", lambda f: ["jury", str(pairs), "--jury", f]),
        "score-jury file": (".toml", lambda f: ["score-jury", str(scored), "--jury", f]),
        "rubric": (".toml", lambda f: ["score", str(scored), "--judge", pointwise,
                                       "--rubric", f]),
        "template": (".toml", lambda f: ["compare", str(pairs), "--judge", "openai/m",
                                         "--base-url", "http://127.0.0.1:9/v1", "--template", f]),
    }  # fmt: skip
    toml_kind = {"jury file": "jury", "score-jury file": "jury", "rubric": "rubric",
                 "template": "template"}  # fmt: skip
    cases: list[Case] = []
    for index, (reader, (suffix, argv)) in enumerate(readers.items()):
        folder = root / f"r{index}"
        folder.mkdir()
        files = _json_files() if suffix == ".jsonl" else _toml_files(toml_kind[reader])
        for label, data in files.items():
            if reader == "input" and label in _VALID_INPUTS:
                continue
            path = _write(folder / f"{label}{suffix}", data)
            cases.append(Case(reader, label, tuple(argv(str(path))), (path.name,)))
        for label, path in _special(folder, "special", suffix).items():
            if reader == "input" and label == "named pipe":
                continue  # the inputs are read as a stream by design (see the docstring)
            cases.append(Case(reader, label, tuple(argv(str(path))), (path.name,)))
    jury = root / "pointing"
    jury.mkdir()
    (jury / "zero.jsonl").symlink_to("/dev/zero")
    (jury / "zero.toml").symlink_to("/dev/zero")
    os.mkfifo(jury / "pipe.jsonl")
    os.mkfifo(jury / "pipe.toml")
    _write(jury / "deep.jsonl", _deep_json(1000) + "\n")
    for label, (member, target) in _jury_pointers().items():
        name = label.replace("/", "").replace("[", "").replace(":", "")
        path = _write(jury / f"{name}.toml", f"[[member]]\n{member}[[member]]\n{member}")
        for reader in ("jury file", "score-jury file"):
            if reader == "score-jury file" and ("replay" in label or "template" in label):
                continue  # a scoring panel takes no replay or template member
            argv = readers[reader][1](str(path))
            cases.append(Case(reader, f"jury: {label}", tuple(argv), (path.name, target)))
    return cases


# The process's memory is capped, so a reader that reads without bound (/dev/zero, in
# the old code) fails fast instead of taking the machine's memory with it.
MEMORY_CAP = 4 * 2**30
_MAIN = (
    "import resource; _, hard = resource.getrlimit(resource.RLIMIT_AS); "
    f"cap = {MEMORY_CAP} if hard == resource.RLIM_INFINITY else min({MEMORY_CAP}, hard); "
    "resource.setrlimit(resource.RLIMIT_AS, (cap, hard)); "
    "from fairjudge.cli import main; main()"
)


def environment() -> dict[str, str]:
    """The environment of every run: a key that reaches no server, plain fixed-width output."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-hostile-files-test", "NO_COLOR": "1",
           "COLUMNS": "400"}  # fmt: skip
    env.pop("OPENAI_BASE_URL", None)
    return env


def run_case(
    case: Case, *, timeout: float = 30.0, cwd: Path | None = None, forks: CliForks | None = None
) -> Outcome:
    """Run one case as its own ``fairjudge`` process; a run past ``timeout`` is a hang.

    With ``forks`` (``CliForks(environment(), preload=LIBRARY)``) the process is
    forked from one that has already imported ``fairjudge.cli`` and the library
    (:mod:`tests.forked_cli`): the same run, less the imports.
    """
    if forks is not None:
        code, _, err = forks.run(case.argv, cwd=cwd or ROOT, timeout=timeout, memory_cap=MEMORY_CAP)
        return Outcome(case, code, err)
    args = [sys.executable, "-c", _MAIN, *case.argv]
    try:
        done = subprocess.run(
            args, cwd=cwd or ROOT, env=environment(), capture_output=True, text=True,
            errors="replace", timeout=timeout, stdin=subprocess.DEVNULL, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
        return Outcome(case, None, err)
    return Outcome(case, done.returncode, done.stderr)


def _tally(outcomes: list[Outcome]) -> Tally:
    return Tally(
        tried=len(outcomes),
        tracebacks=sum(o.traceback for o in outcomes),
        hangs=sum(o.code is None for o in outcomes),
        not_exit_2=sum(o.code is not None and o.code != 2 for o in outcomes),
    )


def _outcomes(root: Path, timeout: float, pool: Sequence[CliForks]) -> Iterator[Outcome]:
    cases = hostile_cases(root)
    idle: queue.SimpleQueue[CliForks] = queue.SimpleQueue()
    for forks in pool:
        idle.put(forks)

    def run(case: Case) -> Outcome:
        forks = idle.get()  # one run at a time per fork server
        try:
            return run_case(case, timeout=timeout, forks=forks)
        finally:
            idle.put(forks)

    # The processes run from ROOT, so "python:tests.untrusted_files:..." imports.
    with ThreadPoolExecutor(max_workers=len(pool)) as threads:
        yield from threads.map(run, cases)


def try_hostile_files(
    root: Path | None = None,
    *,
    timeout: float = 30.0,
    workers: int = 2,
    on_case: Callable[[Outcome], object] | None = None,
    forks: Sequence[CliForks] | None = None,
) -> Tally:
    """Give every hostile file to every reader, each run a ``fairjudge`` process.

    Args:
        root: An empty or new folder to build the files in; ``None``: a temporary
            folder, removed afterwards.
        timeout: Seconds one run may take before it is killed and counted as a hang.
        workers: Runs at once.
        on_case: Called with each :class:`Outcome` as it is known.
        forks: Fork servers to run the cases in (one run at a time each, so as many
            runs at once as there are servers; ``workers`` is then unused); ``None``:
            ``workers`` of them, started here and closed after.

    Returns:
        ``(tried, tracebacks, hangs, not_exit_2)``; see the module docstring.
    """
    outcomes: list[Outcome] = []

    def collect(folder: Path, pool: Sequence[CliForks]) -> None:
        for outcome in _outcomes(folder, timeout, pool):
            outcomes.append(outcome)
            if on_case is not None:
                on_case(outcome)

    with ExitStack() as stack:
        if forks is None:
            forks = [
                stack.enter_context(CliForks(environment(), preload=LIBRARY))
                for _ in range(max(1, workers))
            ]
        if root is not None:
            collect(root, forks)
        else:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="fairjudge-hostile-"))
            collect(Path(folder), forks)
    return _tally(outcomes)


if __name__ == "__main__":
    failed: list[Outcome] = []
    tally = try_hostile_files(on_case=lambda o: None if o.ok else failed.append(o))
    for o in failed:
        first_line = (o.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        print(f"{o.case.reader:16} {o.case.file:24} exit {o.code}: {first_line[:150]}")
    print(tally)
