"""Where the keys inside a ``--base-url`` end up: every output of a real command, searched.

``fairjudge compare`` runs as a process, as a user runs it, with a base URL that
carries four credentials at once, each its own way:

- :data:`PATH_TOKEN`, a gateway key in the path, key-shaped (24 hex digits);
- :data:`ENV_KEY`, the API key itself (``$OPENAI_API_KEY`` / ``$ANTHROPIC_API_KEY``)
  as a path segment, shaped like nothing: only knowing the key masks it;
- :data:`QUERY_KEY`, the value of ``?k%65y=`` (``key``, percent-encoded), shaped like
  nothing: only the parameter's name marks it;
- :data:`AUTH_KEY`, the value of ``&%2561uth=`` (``auth``, encoded twice);

plus ``api-version=2024-10-21``, which must reach the server. The scripted server
answers under the path (``Script.mount``) and counts the query of every request. Each
route a request can take is run: ``lean`` (the OpenAI backend's own client), ``sdk``
(the ``openai`` SDK, picked because ``HTTP_PROXY`` names the scripted server, which
also speaks as a proxy) and ``anthropic``. Every byte each run leaves is searched for
each credential, raw, decoded and percent-encoded: the store (the SQLite file, its
``-wal`` and anything else in the folder), ``--out``, ``--html``, stdout (``--json``)
and stderr. A run against a port where nothing listens is searched the same way: its
error names the server, and must not name the keys.

:func:`url_secret_leaks` says where (``benchmarks/bench_hostile.py`` reports the sum,
which must be 0).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qsl, quote

from tests.server import JudgeServer, Script

__all__ = [
    "AUTH_KEY",
    "ENV_KEY",
    "PATH_TOKEN",
    "QUERY_KEY",
    "ROUTES",
    "UrlRun",
    "secret_forms",
    "url_secret_leaks",
]

PATH_TOKEN = "d41c8e97a2b36f05c9e1d7a4"
ENV_KEY = "plain-words-api-key"
QUERY_KEY = "quietly-kept-query-value"
AUTH_KEY = "another-quiet-value"
AZURE = ("api-version", "2024-10-21")

Route = Literal["lean", "sdk", "anthropic", "unreachable"]
ROUTES: tuple[Route, ...] = ("lean", "sdk", "anthropic", "unreachable")

# The process is the `fairjudge` command, so the header records its whole command line.
_FAIRJUDGE = "import sys; sys.argv[0] = 'fairjudge'; from fairjudge.cli import main; main()"
_ROOT = Path(__file__).resolve().parents[2]


def secret_forms() -> list[str]:
    """Each credential as given, as decoded and percent-encoded (once and twice)."""
    forms = []
    for secret in (PATH_TOKEN, ENV_KEY, QUERY_KEY, AUTH_KEY):
        once = quote(secret, safe="")
        forms += [secret, once, quote(once, safe="")]
    return sorted(set(forms))


class UrlRun:
    """One run of ``fairjudge compare`` through one route, and what it left behind.

    Attributes:
        leaks: ``{output: occurrences of any credential form}`` for every file in the
            run's folder, ``stdout`` and ``stderr`` (zeros included).
        exit_code: The command's exit status.
        queries: The query of every chat request the server received, parsed.
        stored_urls: The distinct ``base_url`` values of the store's rows.
        stdout: The command's stdout (its ``--json``).
        stderr: The command's stderr.
    """

    def __init__(self, workdir: Path, route: Route, *, timeout_s: float = 120.0) -> None:
        self.leaks: dict[str, int] = {}
        self.queries: list[list[tuple[str, str]]] = []
        self.stored_urls: list[str] = []
        run_dir = workdir / route
        run_dir.mkdir(parents=True)
        with JudgeServer(Script(api_key=ENV_KEY, retry_after="0")) as server:
            argv, env, mount = _command(server, run_dir, route)
            server.configure(mount=mount)
            proc = subprocess.run(
                [sys.executable, "-c", _FAIRJUDGE, *argv],
                cwd=run_dir,
                env=env,
                capture_output=True,
                timeout=timeout_s,
                check=False,
            )
            for query, n in server.app.queries().items():
                self.queries += [parse_qsl(query, keep_blank_values=True)] * n
        self.exit_code = proc.returncode
        self.stdout = proc.stdout.decode(errors="replace")
        self.stderr = proc.stderr.decode(errors="replace")
        forms = [form.encode() for form in secret_forms()]
        self.leaks["stdout"] = sum(proc.stdout.count(f) for f in forms)
        self.leaks["stderr"] = sum(proc.stderr.count(f) for f in forms)
        for path in sorted(run_dir.rglob("*")):
            if path.is_file() and path.name != "items.jsonl":
                data = path.read_bytes()
                self.leaks[str(path.relative_to(run_dir))] = sum(data.count(f) for f in forms)
        store = run_dir / "store" / "calls.sqlite"
        if store.exists():
            self.stored_urls = _stored_urls(store)


def url_secret_leaks(workdir: Path, routes: tuple[Route, ...] = ROUTES) -> dict[str, int]:
    """``{"<route> <output>": occurrences}`` over every route's run; each must be 0."""
    return {
        f"{route} {where}": n
        for route in routes
        for where, n in UrlRun(workdir, route).leaks.items()
    }


def _command(
    server: JudgeServer, run_dir: Path, route: Route
) -> tuple[list[str], dict[str, str], str]:
    """The command line, the environment and the server's mount of one run."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_")) and not k.lower().endswith("_proxy")
    }
    env["OPENAI_API_KEY"] = env["ANTHROPIC_API_KEY"] = ENV_KEY
    env["PYTHONPATH"] = str(_ROOT / "src")
    query = f"?k%65y={QUERY_KEY}&{AZURE[0]}={AZURE[1]}&%2561uth={AUTH_KEY}"
    root = server.base_url.removesuffix("/v1")
    judge, origin, mount = "openai/url-m", root, f"/v1/{PATH_TOKEN}/{ENV_KEY}"
    if route == "sdk":  # a proxy applies, so the OpenAI backend takes the SDK path
        env["HTTP_PROXY"] = root
        origin = "http://url-proxy.invalid"  # only the proxy resolves it
    elif route == "anthropic":  # the SDK appends /v1/messages to the base URL
        judge, mount = "anthropic/url-m", f"/{PATH_TOKEN}/{ENV_KEY}"
    elif route == "unreachable":
        origin = f"http://127.0.0.1:{_closed_port()}"
    url = f"{origin}{mount}{query}"
    items = run_dir / "items.jsonl"
    rows = [
        {"id": f"u{i}", "question": q, "answer_1": "four", "answer_2": "It is 4."}
        for i, q in enumerate(["What is 2 + 2?", "What is 3 + 1?", "What is 5 - 1?"])
    ]
    items.write_text("".join(json.dumps(row) + "\n" for row in rows))
    argv = [
        "compare", str(items), "--judge", judge, "--base-url", url, "--html", "report.html",
        "--out", "out.jsonl", "--json", "--store", "store/calls.sqlite",
    ]  # fmt: skip
    return argv, env, mount


def _closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stored_urls(store: Path) -> list[str]:
    import sqlite3

    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = connection.execute("SELECT DISTINCT base_url FROM calls").fetchall()
    finally:
        connection.close()
    return sorted(str(row[0]) for row in rows)
