"""Where a key that the server echoes ends up: every output of real commands, grepped.

The scripted server runs with ``echo_key`` (see :class:`tests.server.Script`): it puts
the key the client presented into every text field of every reply (id, model, finish
reason, fingerprint, usage, logprob tokens and alternatives, thinking block, stop
sequence, error messages, a response header) and, through ``reply_format``, into the
reply text. Then ``fairjudge compare``, ``score`` and ``jury`` run as processes, as a
user runs them, against it, through each route a reply can take:

- ``lean``: the OpenAI backend's own HTTP client;
- ``sdk``: the OpenAI backend through the ``openai`` SDK, which ``transport="auto"``
  picks because ``HTTP_PROXY`` names the scripted server (which also speaks as a
  proxy, so the key reaches it the way it would reach a debugging proxy);
- ``anthropic``: the Anthropic backend (its SDK).

Every byte each run leaves behind is searched for the key: the store (the SQLite file,
its ``-wal`` and anything else in the folder), ``--out``, ``--html``, and the
command's stdout (``--json``) and stderr.

:func:`count_echoed_keys` is the figure ``benchmarks/bench_hostile.py`` reports (it
must be 0); :func:`echoed_key_leaks` says where.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

from tests.server import JudgeServer, Pair, Script

__all__ = ["COMMANDS", "ECHO_KEY", "ROUTES", "count_echoed_keys", "echoed_key_leaks"]

ECHO_KEY = "fj-echo-7c3e9a1b5d4f2e6a8b0c"
"""The key the server requires and echoes. Not shaped like ``sk-...`` on purpose: only
scrubbing the exact value the backend holds can catch it, not a key-shaped pattern."""

Route = Literal["lean", "sdk", "anthropic"]
Command = Literal["compare", "score", "jury"]
ROUTES: tuple[Route, ...] = ("lean", "sdk", "anthropic")
COMMANDS: tuple[Command, ...] = ("compare", "score", "jury")

_FAIRJUDGE = "from fairjudge.cli import main; main()"
_ROOT = Path(__file__).resolve().parents[2]
_TOO_LONG = "ECHO-TOO-LONG"  # an item the server refuses (400): an error row, echo included
_QUOTED = "ECHO-QUOTED"  # an item whose reply quotes the key and is no verdict: a parse failure
_SCORE = '{{"accuracy": 4, "relevance": 3, "usefulness": 4, "reason": "authorized by {key}"}}'


def echoed_key_leaks(
    workdir: Path,
    *,
    routes: Sequence[Route] = ROUTES,
    commands: Sequence[Command] = COMMANDS,
    timeout_s: float = 120.0,
    workers: int = 1,
) -> dict[str, int]:
    """Run each command through each route against an echoing server; count the key.

    Args:
        workdir: An empty folder for the inputs and every run's outputs.
        routes: Which routes (see the module docstring).
        commands: Which commands. ``jury`` seats an OpenAI and an Anthropic member
            at once, so under ``anthropic`` it is the same run as under ``lean`` and
            is made once.
        timeout_s: Limit for one command.
        workers: Runs at once. Each run has a scripted server of its own, so runs
            at once share nothing.

    Returns:
        ``{"<route> <command> <output>": occurrences}`` for every output of every
        run (the store's files by name, ``stdout``, ``stderr``), zeros included,
        plus ``"<route> <command> exit"`` holding 1 when the command did not exit 0
        (its outputs are counted all the same).
    """
    runs = [
        (route, command)
        for route in routes
        for command in commands
        if not (command == "jury" and route == "anthropic" and "lean" in routes)
    ]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        counted = list(pool.map(lambda run: _leaks(workdir, *run, timeout_s), runs))
    return {where: n for found in counted for where, n in found.items()}


def _leaks(workdir: Path, route: Route, command: Command, timeout_s: float) -> dict[str, int]:
    """One command through one route, against a server of its own: where the key is."""
    found: dict[str, int] = {}
    with JudgeServer(Script(api_key=ECHO_KEY, echo_key=True, retry_after="0")) as server:
        run_dir = workdir / f"{route}-{command}"
        run_dir.mkdir(parents=True)
        _configure(server, command)
        argv, env = _command(server, run_dir, route, command)
        proc = subprocess.run(
            [sys.executable, "-c", _FAIRJUDGE, *argv],
            cwd=run_dir,
            env=env,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    where = f"{route} {command}"
    found[f"{where} exit"] = int(proc.returncode != 0)
    found[f"{where} stdout"] = proc.stdout.count(ECHO_KEY.encode())
    found[f"{where} stderr"] = proc.stderr.count(ECHO_KEY.encode())
    for path in sorted(run_dir.rglob("*")):
        if path.is_file() and path.suffix != ".toml" and path.name != "items.jsonl":
            count = path.read_bytes().count(ECHO_KEY.encode())
            found[f"{where} {path.relative_to(run_dir)}"] = count
    return found


def count_echoed_keys(
    workdir: Path,
    *,
    routes: Sequence[Route] = ROUTES,
    commands: Sequence[Command] = COMMANDS,
    timeout_s: float = 120.0,
) -> int:
    """Occurrences of the echoed key in every output of every run; must be 0.

    Takes the arguments of :func:`echoed_key_leaks`. A run that did not exit 0 adds
    nothing here (its outputs are still searched): :func:`echoed_key_leaks` says which.
    """
    leaks = echoed_key_leaks(workdir, routes=routes, commands=commands, timeout_s=timeout_s)
    return sum(n for where, n in leaks.items() if not where.endswith(" exit"))


def _pairwise_judge(pair: Pair) -> str:
    """``A``, but a reply that quotes the key (and is no verdict) for the item so marked.

    A verdict-only reply is nothing but the label, so the key reaches a pairwise reply's
    text only in a reply that cannot be read: stored, printed and reported all the same.
    """
    return f"Authorized by {ECHO_KEY}" if _QUOTED in pair.question else "A"


def _configure(server: JudgeServer, command: Command) -> None:
    """The script for one command: the key in the reply text too."""
    # Two faults first, whose messages echo the key, so retried errors are covered too.
    faults = ("server_error", "rate_limit")
    if command == "score":  # a JSON reply whose reason quotes the key, read as scored
        server.configure(
            judge="always_a", reply_format=_SCORE, too_long_marker=_TOO_LONG, fault_sequence=faults
        )
    else:
        server.configure(
            judge=_pairwise_judge,
            reply_format="{verdict}",
            too_long_marker=_TOO_LONG,
            fault_sequence=faults,
        )


def _command(
    server: JudgeServer, run_dir: Path, route: Route, command: Command
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of one run."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_")) and not k.lower().endswith("_proxy")
    }
    env["OPENAI_API_KEY"] = env["ANTHROPIC_API_KEY"] = ECHO_KEY
    env["PYTHONPATH"] = str(_ROOT / "src")
    openai_url = server.base_url
    root = server.base_url.removesuffix("/v1")
    if route == "sdk":  # a proxy applies, so the OpenAI backend takes the SDK path
        env["HTTP_PROXY"] = root
        openai_url = "http://echo-proxy.invalid/v1"  # only the proxy resolves it
    judge, url = ("openai/echo-m", openai_url)
    if route == "anthropic":
        judge, url = ("anthropic/echo-m", root)
    store = ["--store", "store/calls.sqlite"]
    items = run_dir / "items.jsonl"
    if command == "score":
        rows = [
            {"id": f"s{i}", "question": q, "answer": "An answer."}
            for i, q in enumerate(["What is 2 + 2?", "Name a colour.", f"{_TOO_LONG} q"])
        ]
        _write(items, rows)
        argv = ["score", str(items), "--judge", judge, "--base-url", url, "--out", "out.jsonl"]
        return [*argv, *store, "--json", "--max-unresolved", "1"], env
    rows = [
        {"id": f"c{i}", "question": q, "answer_1": "four", "answer_2": "It is 4."}
        for i, q in enumerate(["What is 2 + 2?", "What is 3 - 1?", f"{_TOO_LONG} q", _QUOTED])
    ]
    _write(items, rows)
    outputs = ["--out", "out.jsonl", "--json", "--max-unresolved", "1"]
    if command == "compare":
        argv = ["compare", str(items), "--judge", judge, "--base-url", url, "--html", "report.html"]
        return [*argv, *outputs, *store], env
    jury = run_dir / "jury.toml"
    jury.write_text(
        f'[[member]]\njudge = "openai/echo-m"\nbase_url = "{openai_url}"\n\n'
        f'[[member]]\njudge = "anthropic/echo-m"\nbase_url = "{root}"\n'
    )
    # The SDK route's server is a name only the proxy resolves, not a loopback address:
    # the user allows it, as they would a jury file of their own.
    allow = ["--allow-jury-servers"] if route == "sdk" else []
    return ["jury", str(items), "--jury", str(jury), *allow, *outputs, *store], env  # no --html


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
