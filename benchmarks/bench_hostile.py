"""Hostile input: nothing planted is believed, no key is stored, no budget is overspent.

One table, its sections each run by the same code the test suite uses (so the
benchmark and the tests cannot drift apart):

- ``planted``: every built-in template and rubric renders real prompts whose answers
  carry planted verdicts (``[[B]]``, ``Verdict: B``, ``{"accuracy": 5, ...}``,
  appended, on a line of their own, embedded); a judge replies with its own reading
  and then echoes the answer (``echoing``) or quotes it (``quoting``, before, after
  or inside the JSON ``reason``). Each reply is read by the session's own readers.
  ``changed / tried``: replies read as the plant; must be 0. ``unreadable``: replies
  that became counted parse failures instead (``tests/prompts/planted.py``).
- ``keys``: ``compare``, ``score`` and ``jury`` run as processes through the lean
  HTTP client, the OpenAI SDK and the Anthropic backend against the scripted server
  echoing the API key into every field of every reply (model, id, finish reason,
  logprob tokens, usage, error bodies, headers). Count: occurrences of the key in
  the store file and its ``-wal``, ``--out``, ``--html``, ``--json`` and stderr; must
  be 0 (``tests/backends/echoed_key.py``).
- ``budget``: ``compare --max-cost 0.01`` against a server that counts 1x, 4x and 8x
  the tokens fairjudge guesses, at ``--concurrency`` 1, 16 and 64. ``spent/max``
  must be at most 1.00 (``benchmarks/_budget.py``; see ``fairjudge.runner._prices``
  for the bound).
- ``files``: hostile files (nested 1,000 deep, not UTF-8, ``/dev/zero``, a named
  pipe, a folder, a Python judge named by a shared jury file, ...) given to every
  reader (inputs, ``replay:``, ``report``, ``--jury``, ``--rubric``, ``--template``,
  ``--baseline``) as ``fairjudge`` processes; tracebacks, hangs and exits other than
  2 must be 0 (``tests/untrusted_files.py``). Plus damaged store rows (malformed JSON
  and wrong types in every column), each read three ways (a run, ``records()``,
  ``usage_rows()``); tracebacks must be 0 (``tests/runner/_hostile_rows.py``).
- ``store schemas``: stores carrying an object fairjudge does not write (a trigger
  that rewrites replies, any trigger, a view, an extra index, table or column, a
  retyped, reordered, missing or re-declared column, a changed constraint, an odd
  name), each opened; ``believed`` (opened anyway), refusals that do not name the
  object, and tracebacks must be 0 (``tests/runner/_hostile_schemas.py``).
- ``usage values``: ``compare --max-cost 1 --json`` as a process against a server
  whose every reply carries one hostile value in ``usage.prompt_tokens`` or
  ``usage.completion_tokens`` (negative, NaN, +-Infinity, a string, a boolean,
  2**70, missing). ``believed`` (replies whose usage was used) and tracebacks must be
  0, ``spent/max`` at most 1.00, stdout strict JSON (``tests/cli/_hostile_usage.py``).
- ``URLs``: ``compare`` as a process through the lean client, the OpenAI SDK and the
  Anthropic backend, and against a port where nothing listens, with a ``--base-url``
  carrying four keys (a key-shaped path segment, the API key as a path segment,
  ``?k%65y=``, ``&%2561uth=``) and ``api-version=``. Keys stored or printed (every
  form, in the store and its ``-wal``, ``--out``, ``--html``, ``--json``, stderr),
  requests that lost the query, and runs that did not exit 0 must be 0
  (``tests/backends/url_secrets.py``).
- ``parser folding``: replies that spell a label or key with a look-alike (``[[tıe]]``,
  ``TİE``, ``verdıct: A``, a long ``ſ`` in a rubric key) or carry lone surrogates,
  read offline by every template's format and every rubric mode (plus seeded random
  text over every code point), and given by a server to ``compare`` as a process.
  ``believed`` (a look-alike read as a verdict or scores) and tracebacks must be 0
  (``tests/prompts/hostile_replies.py``).

Run: ``python benchmarks/bench_hostile.py`` (a few minutes on 2 cores);
``--quick`` skips the slowest parts (the key check runs ``compare`` only, the budget
grid is 1x/8x at concurrency 1/64). Writes ``benchmarks/results/bench_hostile.json``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _budget import budget_rows  # noqa: E402
from _common import environment, table, write_json  # noqa: E402

from tests.backends.echoed_key import echoed_key_leaks  # noqa: E402
from tests.backends.url_secrets import AZURE, UrlRun  # noqa: E402
from tests.cli._hostile_usage import HOSTILE, MAX_COST, try_usage  # noqa: E402
from tests.prompts.hostile_replies import count_offline, count_process  # noqa: E402
from tests.prompts.planted import attempts  # noqa: E402
from tests.runner._hostile_rows import count_hostile_rows  # noqa: E402
from tests.runner._hostile_schemas import count_hostile_schemas  # noqa: E402
from tests.untrusted_files import try_hostile_files  # noqa: E402

HEADERS = ["section", "case", "result", "must be", "ok", "seconds"]


def _row(section: str, case: str, result: str, bound: str, ok: bool, t0: float) -> list[Any]:
    return [section, case, result, bound, "yes" if ok else "NO", f"{time.perf_counter() - t0:.1f}"]


def planted_rows() -> list[list[Any]]:
    rows = []
    for kind in ("pairwise", "pointwise"):
        for judge in ("echoing", "quoting"):
            t0 = time.perf_counter()
            got = attempts(kind, judge)  # type: ignore[arg-type]
            result = f"{got.changed} / {got.tried} changed ({got.unreadable} unreadable)"
            rows.append(
                _row("planted", f"{kind} {judge}", result, "0 changed", got.changed == 0, t0)
            )
    return rows


def key_rows(quick: bool) -> list[list[Any]]:
    t0 = time.perf_counter()
    commands = ("compare",) if quick else ("compare", "score", "jury")
    with tempfile.TemporaryDirectory() as tmp:
        leaks = echoed_key_leaks(Path(tmp), commands=commands)
    found = sum(n for where, n in leaks.items() if not where.endswith(" exit"))
    failed_runs = sum(n for where, n in leaks.items() if where.endswith(" exit"))
    outputs = sum(1 for where in leaks if not where.endswith(" exit"))
    result = f"{found} keys in {outputs} outputs of {'/'.join(commands)} x 3 routes"
    ok = found == 0 and failed_runs == 0
    rows = [_row("keys", "echoed in every reply field", result, "0 keys", ok, t0)]
    if failed_runs:
        rows.append(["keys", "runs that did not exit 0", str(failed_runs), "0", "NO", ""])
    return rows


def budget_table_rows(quick: bool) -> list[list[Any]]:
    t0 = time.perf_counter()
    ratios, concurrencies = ((1, 8), (1, 64)) if quick else ((1, 4, 8), (1, 16, 64))
    rows = []
    # One grid run: its time is shown on the first row, the others read "".
    for r in budget_rows(ratios, concurrencies):
        result = (
            f"spent/max {r['spent_over_max']:.3f} ({r['calls_made']} calls, "
            f"{r['calls_that_fit']} fit, exit {r['exit_code']})"
        )
        case = f"tokens x{r['token_ratio']}, conc {r['concurrency']}"
        rows.append(_row("budget", case, result, "<= 1.000", r["spent_over_max"] <= 1.0, t0))
    for row in rows[1:]:
        row[-1] = ""
    return rows


def file_rows() -> list[list[Any]]:
    t0 = time.perf_counter()
    tally = try_hostile_files()
    bad = tally.tracebacks + tally.hangs + tally.not_exit_2
    result = (
        f"{tally.tried} tried: {tally.tracebacks} tracebacks, {tally.hangs} hangs, "
        f"{tally.not_exit_2} not exit 2"
    )
    rows = [_row("files", "hostile files x readers", result, "0 / 0 / 0", bad == 0, t0)]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tried, tracebacks = count_hostile_rows(Path(tmp))
    result = f"{tried} tried: {tracebacks} tracebacks"
    rows.append(_row("files", "damaged store rows x 3 reads", result, "0", tracebacks == 0, t0))
    return rows


def schema_rows() -> list[list[Any]]:
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tried, believed, unnamed, tracebacks = count_hostile_schemas(Path(tmp))
    result = f"{tried} planted: {believed} believed, {unnamed} unnamed, {tracebacks} tracebacks"
    ok = believed == unnamed == tracebacks == 0
    return [_row("store schemas", "objects fairjudge does not write", result, "0 / 0 / 0", ok, t0)]


def usage_rows(quick: bool) -> list[list[Any]]:
    from tests.server import JudgeServer, Script

    rows = []
    fields = ("completion_tokens",) if quick else ("prompt_tokens", "completion_tokens")
    with JudgeServer(Script()) as server:
        for field in fields:
            for name, value in HOSTILE:
                t0 = time.perf_counter()
                server.reset()
                with tempfile.TemporaryDirectory() as tmp:
                    got = try_usage(server, Path(tmp), {field: value})
                ratio = got.spent / MAX_COST
                result = (
                    f"spent/max {ratio:.3f}, {got.believed} believed, {int(got.traceback)} "
                    f"tracebacks ({got.made} calls, exit {got.exit_code})"
                )
                ok = ratio <= 1.0 and got.believed == 0 and not got.traceback and got.strict_json
                rows.append(_row("usage values", f"{field} {name}", result, "<= 1 / 0 / 0", ok, t0))
    return rows


def url_rows() -> list[list[Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for route in ("lean", "sdk", "anthropic", "unreachable"):
            t0 = time.perf_counter()
            run = UrlRun(Path(tmp), route)
            keys = sum(run.leaks.values())
            lost = sum(1 for query in run.queries if AZURE not in query)
            exit_ok = run.exit_code != 0 if route == "unreachable" else run.exit_code == 0
            tracebacks = int("Traceback" in run.stderr or "internal error" in run.stderr)
            result = (
                f"{keys} keys in {len(run.leaks)} outputs, {tracebacks} tracebacks, {lost} of "
                f"{len(run.queries)} requests without the query, exit {run.exit_code}"
            )
            sent = route == "unreachable" or bool(run.queries)
            ok = keys == tracebacks == lost == 0 and exit_ok and sent
            rows.append(_row("URLs", f"keys in --base-url, {route}", result, "0 / 0 / 0", ok, t0))
    return rows


def folding_rows() -> list[list[Any]]:
    t0 = time.perf_counter()
    got = count_offline()
    result = (
        f"{got.tried} read: {got.believed} believed, {got.tracebacks} tracebacks "
        f"({got.unreadable} parse failures)"
    )
    ok = got.believed == got.tracebacks == 0
    rows = [_row("parser folding", "look-alikes, surrogates, any text", result, "0 / 0", ok, t0)]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        got, exit_code = count_process(Path(tmp))
    result = (
        f"{got.tried} calls: {got.believed} believed, {got.tracebacks} tracebacks "
        f"({got.unreadable} parse failures, exit {exit_code})"
    )
    ok = got.believed == got.tracebacks == 0 and got.tried > 0
    rows.append(_row("parser folding", "hostile replies via compare", result, "0 / 0", ok, t0))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller grid (about a minute)")
    args = parser.parse_args()
    rows = planted_rows() + key_rows(args.quick) + budget_table_rows(args.quick) + file_rows()
    rows += schema_rows()
    rows += usage_rows(args.quick)
    rows += url_rows() + folding_rows()
    print(table(HEADERS, rows, left=(0, 1, 2, 3)))
    failed = [r for r in rows if r[4] != "yes"]
    path = write_json(
        "bench_hostile",
        {
            "environment": environment(),
            "quick": args.quick,
            "rows": [dict(zip(HEADERS, r, strict=True)) for r in rows],
            "all_ok": not failed,
        },
    )
    print(f"\n{len(rows) - len(failed)}/{len(rows)} rows hold; written {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
