"""The labelling page's server: one person, one file, on 127.0.0.1 only.

``fairjudge label FILE`` serves a page where a person labels each pair blind (see
``templates/label.html``). The server holds the :class:`~fairjudge.io.LabelSheet`
and is the only place that knows which side is model 1: the page is sent the
answers as *left* and *right* and answers with a side, which the sheet maps back
and writes to the file before the reply goes out (so the page shows "saved" only
for a label that is on disk). A file of single answers is scored on a rubric
instead: the page is sent the answers in the sheet's shown order (never the system's
name or the item's id) with the rubric's dimensions, and posts one score at a time by
position in that order (:func:`score_state`, :func:`score_label`).

Other people and pages on the same machine must not read the answers or post
labels: the server listens on 127.0.0.1 only, behind a random token, checks the
``Host`` header, takes JSON only, and the page runs under a strict
Content-Security-Policy.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import hmac
import json
import secrets
import socket
import threading
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, NoReturn

from fairjudge._errors import ConfigError
from fairjudge.io import LabelSheet, ScoreSheet, Side, strict_dumps
from fairjudge.prompts import Rubric
from fairjudge.report._text import visible

__all__ = ["LabelServer", "label_page", "score_label", "score_state"]

HOST = "127.0.0.1"
_SIDES: dict[Any, Side | None] = {"left": "left", "right": "right", "tie": "tie", None: None}
_MAX_BODY = 4096  # a label is a few bytes; anything larger is not one


def _asset(name: str) -> str:
    return resources.files("fairjudge.report").joinpath("templates", name).read_text("utf-8")


@cache
def label_page() -> tuple[str, str]:
    """The page's HTML (its script inline) and its Content-Security-Policy."""
    script = _asset("label.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = (
        f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
        "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )
    page = _asset("label.html").replace("/*SCRIPT*/", script)
    return page, policy


def _question(question: Any) -> Any:
    """The question as the page draws it: text, or ``[[role, content], ...]``."""
    if isinstance(question, str):
        return visible(question)
    return [[visible(role), visible(content)] for role, content in question]


def score_state(sheet: ScoreSheet, rubric: Rubric, question: Any) -> dict[str, Any]:
    """The page's state for a scoring sheet; ``question`` draws a question for the page."""
    shown = [sheet.items[i] for i in sheet.order]
    return {
        "kind": "scores",
        "scale": list(sheet.scale),
        "dimensions": [
            {
                "name": d.name,
                "description": visible(d.description),
                "low": visible(d.low),
                "high": visible(d.high),
            }
            for d in rubric.dimensions
        ],
        "items": [{"question": question(i.question), "answer": visible(i.answer)} for i in shown],
        "scores": [
            {d: _number(sheet.scores[i][d]) for d in sheet.dimensions if d in sheet.scores[i]}
            for i in sheet.order
        ],
    }


def _number(score: float) -> float | int:
    """A whole score as an integer (a mean of raters stays a float)."""
    return int(score) if score.is_integer() else score


def score_label(sheet: ScoreSheet, body: Any) -> tuple[int, dict[str, Any]]:
    """Store one score: ``{"index": shown position, "dimension": name, "score": n|null}``."""
    if not isinstance(body, dict) or set(body) != {"index", "dimension", "score"}:
        return 400, {"error": 'send {"index": <item>, "dimension": <name>, "score": <n>|null}'}
    index, score = body["index"], body["score"]
    count = len(sheet.items)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
        return 400, {"error": f"index must be an item number from 0 to {count - 1}"}
    if score is not None and (not isinstance(score, int) or isinstance(score, bool)):
        return 400, {"error": "score must be a whole number on the rubric's scale, or null"}
    if not isinstance(body["dimension"], str):
        return 400, {"error": "dimension must be one of the rubric's dimensions"}
    try:
        sheet.set_score(sheet.order[index], body["dimension"], score)
    except ConfigError as exc:
        return 400, {"error": str(exc)}
    except OSError as exc:
        return 500, {"error": f"the score was not saved: {exc.strerror or exc}"}
    return 200, {"index": index, "done": sheet.done, "total": count}


def _check_range(port: object) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigError(f"port {port!r} is not a port: give 0-65535 (0: any free one)",
                          params="port")  # fmt: skip


def _refuse_in_use(exc: OSError, port: int) -> NoReturn:
    if exc.errno != errno.EADDRINUSE:
        raise exc
    raise ConfigError(f"port {port} is in use on {HOST}; pick another, or 0 for any free one",
                      params="port") from None  # fmt: skip


class LabelServer:
    """The page and its JSON API for one sheet, served on ``127.0.0.1:port``.

    Args:
        sheet: The file being labelled: pairs, or answers to score against ``rubric``.
        port: The port; 0 picks a free one (read :attr:`url` for it).
        rubric: The rubric a :class:`~fairjudge.io.ScoreSheet` is scored on (its
            dimensions' descriptions are shown).

    Raises:
        ConfigError: ``port`` is outside 0-65535, or in use (naming ``port``).
    """

    def __init__(
        self, sheet: LabelSheet | ScoreSheet, port: int = 0, *, rubric: Rubric | None = None
    ) -> None:
        if isinstance(sheet, ScoreSheet) and rubric is None:
            raise ValueError("a scoring sheet is served with its rubric")
        _check_range(port)
        self.sheet = sheet
        self.rubric = rubric
        self.token = secrets.token_urlsafe(16)
        self._lock = threading.Lock()
        try:
            self._httpd = ThreadingHTTPServer((HOST, port), _handler(self))
        except OSError as exc:
            _refuse_in_use(exc, port)
        self._httpd.daemon_threads = True
        self.port = int(self._httpd.server_address[1])

    @staticmethod
    def check_port(port: int) -> None:
        """Refuse a port the server could not listen on, before anything is written.

        ``fairjudge label`` checks first, so a refused port leaves no order file behind
        to clash with the corrected rerun; the server makes the same checks.
        A port in use is found by binding it for a moment, as the server would (0 is
        any free one, always usable).

        Raises:
            ConfigError: ``port`` is outside 0-65535, or in use (naming ``port``).
        """
        _check_range(port)
        if port == 0:
            return
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as http.server does
            try:
                probe.bind((HOST, port))
            except OSError as exc:
                _refuse_in_use(exc, port)

    @property
    def url(self) -> str:
        """The page's address, token included: give it to the labeller only."""
        return f"http://{HOST}:{self.port}/label/{self.token}/"

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` (from another thread) or an interrupt."""
        self._httpd.serve_forever()

    def shutdown(self) -> None:
        """Stop serving, and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def close(self) -> None:
        """Close the socket of a server that is not serving."""
        self._httpd.server_close()

    def state(self) -> dict[str, Any]:
        """Everything the page draws: the items as shown, their labels, the progress."""
        sheet = self.sheet
        head = {"file": visible(sheet.path.name), "seed": sheet.seed}
        if isinstance(sheet, ScoreSheet):
            assert self.rubric is not None  # checked when the server was made
            return {**head, **score_state(sheet, self.rubric, _question)}
        return {
            **head,
            "kind": "pairs",
            "items": [
                # No id: an id such as "gpt4-vs-claude-7" would name the systems.
                {
                    "question": _question(i.question),
                    "left": visible(i.left),
                    "right": visible(i.right),
                }
                for i in sheet.items
            ],
            "labels": [sheet.shown(i) for i in range(len(sheet.items))],
        }

    def label(self, body: Any) -> tuple[int, dict[str, Any]]:
        """Store one label from the page: ``{"index": i, "side": left/right/tie/null}``.

        For a scoring sheet, one score (:func:`score_label`).
        """
        if isinstance(self.sheet, ScoreSheet):
            with self._lock:
                return score_label(self.sheet, body)
        if not isinstance(body, dict) or set(body) != {"index", "side"}:
            return 400, {"error": 'send {"index": <item>, "side": "left"|"right"|"tie"|null}'}
        index, side = body["index"], body["side"]
        count = len(self.sheet.items)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
            return 400, {"error": f"index must be an item number from 0 to {count - 1}"}
        if not isinstance(side, str | None) or side not in _SIDES:
            return 400, {"error": 'side must be "left", "right", "tie" or null'}
        with self._lock:
            try:
                self.sheet.set_shown(index, _SIDES[side])
            except OSError as exc:
                return 500, {"error": f"the label was not saved: {exc.strerror or exc}"}
            return 200, {"index": index, "side": side, "done": self.sheet.done, "total": count}

    def allowed_host(self, host: str | None) -> bool:
        """Whether a request's ``Host`` header names this server on the loopback."""
        return host in (f"{HOST}:{self.port}", f"localhost:{self.port}")

    def path_token(self, path: str) -> str | None:
        """What follows the token in ``path``, or ``None`` when the token is wrong."""
        parts = path.split("?", 1)[0].split("/", 3)
        if len(parts) < 4 or parts[:2] != ["", "label"]:
            return None
        if not hmac.compare_digest(parts[2].encode(), self.token.encode()):
            return None
        return parts[3]


def _handler(server: LabelServer) -> type[BaseHTTPRequestHandler]:
    page, policy = label_page()

    class Handler(BaseHTTPRequestHandler):
        server_version = "fairjudge-label"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:
            """Silent: the terminal shows the progress, not one line per request."""

        def _send(self, code: int, body: bytes, kind: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", policy)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Frame-Options", "DENY")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, code: int, value: Any) -> None:
            self._send(code, strict_dumps(value).encode(), "application/json")

        def _route(self) -> str | None:
            """The path after the token; ``None`` once a refusal has been sent."""
            if not server.allowed_host(self.headers.get("Host")):
                self._json(403, {"error": "this page answers on 127.0.0.1 only"})
                return None
            rest = server.path_token(self.path)
            if rest is None:
                self._json(404, {"error": "not found"})
            return rest

        def do_GET(self) -> None:
            """The page, or the state of the sheet (``api/state``)."""
            self._safely(self._get)

        def do_POST(self) -> None:
            """One label (``api/label``), as JSON."""
            self._safely(self._post)

        def _safely(self, serve: Any) -> None:
            """A bug answers 500 with its name, not a dropped connection the page cannot read."""
            try:
                serve()
            except Exception as exc:
                self._json(500, {"error": f"internal error in fairjudge: {type(exc).__name__}"})

        def _get(self) -> None:
            rest = self._route()
            if rest is None:
                return
            if rest == "":
                self._send(200, page.encode(), "text/html; charset=utf-8")
            elif rest == "api/state":
                with server._lock:
                    self._json(200, server.state())
            else:
                self._json(404, {"error": "not found"})

        def _post(self) -> None:
            rest = self._route()
            if rest is None:
                return
            if rest != "api/label":
                self._json(404, {"error": "not found"})
                return
            kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                self._json(415, {"error": "send the label as application/json"})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = 0
            if not 0 < length <= _MAX_BODY:
                self._json(400, {"error": "a label is a small JSON object"})
                return
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError:
                self._json(400, {"error": "not JSON"})
                return
            self._json(*server.label(body))

    return Handler
