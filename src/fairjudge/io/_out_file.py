"""The header record that opens every ``--out`` file, and how its readers check it.

The header is one key wide (``fairjudge``) and names the file's ``kind``, so each
reader can refuse a file it cannot use instead of misreading it. The command line is
recorded with anything credential-like masked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from fairjudge._errors import InputError
from fairjudge._redact import redact_arg
from fairjudge._version import __version__
from fairjudge.io._untrusted import shown

__all__ = ["KINDS", "SCHEMA_VERSION", "OutHeader", "OutKind", "out_header", "read_header"]

OutKind = Literal[
    "compare", "compare-via-scores", "calibrate", "rank", "score", "jury", "score-jury", "audit"
]
KINDS: tuple[str, ...] = get_args(OutKind)
"""Every kind of ``--out`` file: the command (and mode) that wrote it."""
SCHEMA_VERSION = 1
"""The header's version; a reader refuses a file whose header is newer than it knows."""
_KEY = "fairjudge"
_URL_PASSWORD = re.compile(r"(://[^/@:\s]*:)[^/@\s]*@")


def _masked(arg: str) -> str:
    return _URL_PASSWORD.sub(r"\1***@", redact_arg(arg))


def out_header(
    kind: OutKind,
    *,
    command: Sequence[str] = (),
    judge: str | None = None,
    template: str | None = None,
    rubric: str | None = None,
    settings: Mapping[str, Any] | None = None,
    calls: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    config_file: str | None = None,
) -> dict[str, Any]:
    """The first record of a ``--out`` file: what wrote it, and with what.

    Args:
        kind: The kind of file (the command that wrote it).
        command: The command line; credential-like values are masked here.
        judge: The judge's name (a member list for a panel).
        template: The pairwise template, ``name@version``.
        rubric: The pointwise rubric, ``name@version``.
        settings: The run's settings (rule, seed, level, ...), JSON-ready.
        calls: What the run's judge calls did (counts, tokens, cost, the replies
            whose usage was not reported correctly), as ``--json`` has it; only in
            the header when given.
        config: The run's config table (``fairjudge run``'s file, ``docs/config.md``),
            credentials masked; only in the header when given.
        config_file: The config file ``fairjudge run`` ran, as named; its relative
            paths in ``config`` are from its folder. Only in the header when given.

    Returns:
        ``{"fairjudge": {...}}``, ready for ``json.dumps``.
    """
    body = {
        "kind": kind,
        "schema_version": SCHEMA_VERSION,
        "version": __version__,
        "command": [_masked(str(a)) for a in command],
        "judge": judge,
        "template": template,
        "rubric": rubric,
        "settings": dict(settings or {}),
    }
    if calls is not None:
        body["calls"] = dict(calls)
    if config is not None:
        body["config"] = dict(config)
    if config_file is not None:
        body["config_file"] = config_file
    return {_KEY: body}


@dataclass(frozen=True, slots=True)
class OutHeader:
    """A ``--out`` file's header, as read back.

    Attributes:
        kind: The kind of file (one of :data:`KINDS`).
        version: The fairjudge version that wrote it.
        judge: The judge's name, when recorded.
        template: The pairwise template, when recorded.
        rubric: The pointwise rubric, when recorded.
        settings: The run's settings.
        command: The command line that wrote the file (credentials masked).
    """

    kind: str
    version: str | None
    judge: str | None
    template: str | None
    rubric: str | None
    settings: Mapping[str, Any]
    command: tuple[str, ...] = ()

    def expect(
        self,
        accepted: Sequence[str],
        *,
        reader: str,
        path: str,
        advice: str = "",
        params: tuple[str, ...] = (),
    ) -> None:
        """Refuse a file of a kind ``reader`` cannot use, naming the kind.

        A file is named by the command and parameter that wrote it (``compare out``),
        which the command line shows as its flag (``compare --out``).

        Raises:
            InputError: The kind is not in ``accepted``; the message names the file,
                its kind, what ``reader`` reads and ``advice``; its ``params`` are
                ``out`` and ``params``, the ones ``reader`` and ``advice`` name.
        """
        if self.kind in accepted:
            return
        names = [f"`{k} out`" for k in accepted]
        wants = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        tail = f"; {advice}" if advice else ""
        raise InputError(
            f"a {self.kind} file (written by `fairjudge {self.kind} out`); {reader} reads "
            f"{wants} files{tail}",
            path=path,
            params=("out", *params),
        )


def _optional_text(body: Mapping[str, Any], key: str, path: str, line: int) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(f"header: {key!r} must be a string; got {shown(value)}", path=path,
                         line=line)  # fmt: skip
    return value


def read_header(record: object, *, path: str, line: int = 1) -> OutHeader | None:
    """The header a file's first record is, or ``None`` for a file written without one.

    Args:
        record: The file's first record, parsed.
        path: The file, for messages.
        line: The record's line, for messages.

    Raises:
        InputError: The record is a header but malformed, of an unknown kind, or of
            a newer schema than this fairjudge reads (upgrade fairjudge).
    """
    if not (isinstance(record, dict) and _KEY in record):
        return None
    body = record[_KEY]
    if not isinstance(body, dict) or len(record) != 1:
        raise InputError("header: 'fairjudge' must be the only key, an object", path=path,
                         line=line)  # fmt: skip
    schema = body.get("schema_version")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise InputError(f"header: bad schema_version {shown(schema)}", path=path, line=line)
    if schema > SCHEMA_VERSION:
        raise InputError(
            f"header: schema_version {schema} is newer than this fairjudge reads "
            f"({SCHEMA_VERSION}); upgrade fairjudge",
            path=path,
            line=line,
        )
    kind = body.get("kind")
    if kind not in KINDS:
        raise InputError(f"header: unknown kind {shown(kind)}; known: {', '.join(KINDS)}",
                         path=path, line=line)  # fmt: skip
    settings = body.get("settings") or {}
    command = body.get("command")
    if not isinstance(settings, dict):
        raise InputError("header: 'settings' must be an object", path=path, line=line)
    return OutHeader(
        kind=str(kind),
        version=_optional_text(body, "version", path, line),
        judge=_optional_text(body, "judge", path, line),
        template=_optional_text(body, "template", path, line),
        rubric=_optional_text(body, "rubric", path, line),
        settings=settings,
        command=tuple(str(a) for a in command) if isinstance(command, list) else (),
    )
