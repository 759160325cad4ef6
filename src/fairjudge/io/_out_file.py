"""Result files: strict JSON, written whole or not at all, opened by a header record.

Every writer goes through :func:`strict_dumps`, so each file and ``--json`` output
parses with any JSON parser. The header (one key, ``fairjudge``) names the file's
``kind``, so each reader refuses a file it cannot use instead of misreading it.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from fairjudge._errors import ConfigError, InputError
from fairjudge._redact import redact_arg
from fairjudge._version import __version__
from fairjudge.io._untrusted import shown

__all__ = [
    "KINDS",
    "REASONS_KEY",
    "SCHEMA_VERSION",
    "OutHeader",
    "OutKind",
    "check_writable",
    "out_header",
    "read_header",
    "strict_dumps",
    "write_atomic",
    "write_jsonl_atomic",
]


REASONS_KEY = "null_reasons"
"""The top-level key of ``{path: reason}``: each non-finite value written as null."""


def strict_dumps(
    value: Any,
    *,
    indent: int | None = None,
    ensure_ascii: bool = True,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """``json.dumps(value)``, with no ``NaN`` or ``Infinity`` in it.

    Example:
        >>> strict_dumps({"cost": float("nan"), "n": 2})
        '{"cost": null, "n": 2, "null_reasons": {"cost": "NaN is not a number JSON can hold"}}'
    """
    options: dict[str, Any] = {"indent": indent, "ensure_ascii": ensure_ascii, "default": default}
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:  # a float that is not finite somewhere inside
        reasons: dict[str, str] = {}
        if default is not None:  # what the default makes of a value may hold one too
            value = json.loads(json.dumps(value, **options))
        clean = _finite(value, "", reasons)
        if isinstance(clean, dict) and reasons:
            clean[REASONS_KEY] = {**clean.get(REASONS_KEY, {}), **reasons}
        return json.dumps(clean, allow_nan=False, **options)


def _finite(value: Any, path: str, reasons: dict[str, str]) -> Any:
    """A copy of ``value`` with each non-finite float replaced by ``None``, noted in ``reasons``."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        word = "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
        reasons[path or "$"] = f"{word} is not a number JSON can hold"
        return None
    if isinstance(value, Mapping):
        return {k: _finite(v, f"{path}.{k}" if path else str(k), reasons) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v, f"{path}[{i}]", reasons) for i, v in enumerate(value)]
    return value


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, chunks: Iterable[str]) -> None:
    """Write text to a temporary file and rename it: a crash never leaves half a file.

    The file gets the permissions an ordinary new file gets (``0666`` less the
    umask), like the store beside it, not the ``0600`` of a temporary file.
    """
    _refuse_sibling(path, str(path))  # the store may be new since check_writable
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(chunks)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable(
    path: str | Path,
    name: str = "path",
    *,
    inputs: Iterable[str | Path | None] = (),
    example: str | None = None,
) -> None:
    """Prove a result file can be written at ``path``, before the work that fills it.

    Refuses a file that writing would destroy: one of ``inputs`` (the files the same
    call reads), or an existing SQLite database such as the store. Refuses a folder
    (an existing one, or a path that ends in a separator, ``out/``, which ``Path``
    would turn into a file named ``out``), and anything that is not a regular file:
    :func:`write_atomic` renames into place, so a device or a pipe would be replaced
    by a plain file (``/dev/null``, run as root, breaks the system). Then makes the
    folder and writes (and removes) a probe file beside the target, so a read-only
    folder or a full disk is found now.

    Args:
        path: The file to write.
        name: The parameter that named it, which each message names (``out``, ``html``).
        inputs: Files the caller reads; ``None`` and ``-`` (standard input) are skipped.
        example: The file name a folder's message suggests (``report.html``); by
            default one for ``name`` (``results.jsonl`` for an ``--out`` file).

    Raises:
        ConfigError: The file must not or cannot be written there, naming ``name``.
    """
    typed, path = os.fspath(path), Path(path)
    said = f"{name} {path}"
    file = path / (example or _EXAMPLES.get(name, "results.jsonl"))
    if typed.endswith(_SEPARATORS):  # Path("out/") is Path("out"): a file named out
        raise ConfigError(
            f"{name} {typed} names a folder; give a file name, e.g. {file}", params=name
        )
    for given in inputs:
        if given is not None and str(given) != "-" and path.resolve() == Path(given).resolve():
            raise ConfigError(f"{said}: is the input file; writing the results there would "
                              "destroy it. Give another file name", params=name)  # fmt: skip
    if path.is_dir():
        raise ConfigError(f"{said}: is a folder; give a file name, e.g. {file}", params=name)
    if path.exists() and not path.is_file():
        raise ConfigError(f"{said}: is not a regular file (a device, pipe or socket), which "
                          "writing the result would replace; give a file name",
                          params=name)  # fmt: skip
    if _is_sqlite(path):
        raise ConfigError(f"{said}: is a SQLite database (a fairjudge store holds every paid "
                          "judge call); refusing to overwrite it. Give another file name",
                          params=name)  # fmt: skip
    _refuse_sibling(path, said, name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(f"{said}: cannot write there ({exc.strerror or exc})",
                          params=name) from None  # fmt: skip


_SEPARATORS = tuple({os.sep, os.altsep or os.sep})
_EXAMPLES = {
    "html": "report.html",
    "output": "report.html",
    "markdown": "summary.md",
    "save_config": "run.toml",
}
"""A file name to suggest, in a folder given where a file is asked for, by the parameter."""

_SIBLINGS = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database (``store.sqlite-wal``), and deletes."""


def _refuse_sibling(path: Path, said: str, name: str | tuple[str, ...] = ()) -> None:
    """Refuse ``path`` when it is a SQLite database's ``-wal``, ``-shm`` or ``-journal`` file.

    SQLite deletes those when the database closes, so a result written there is
    lost, and one written over a live ``-wal`` loses the store's last writes.

    Raises:
        ConfigError: Naming the database and ``name``, the parameter that named ``path``.
    """
    for suffix in _SIBLINGS:
        base = path.with_name(path.name.removesuffix(suffix))
        if path.name.endswith(suffix) and _is_sqlite(base):
            raise ConfigError(f"{said}: is the {suffix} file of the SQLite database {base} "
                              "(a fairjudge store holds every paid judge call), which SQLite "
                              "deletes or replays; refusing to write there. Give another file "
                              "name", params=name)  # fmt: skip


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def write_jsonl_atomic(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Write one JSON line per record, atomically (see :func:`write_atomic`).

    Strict JSON: a value that is not finite is written as null, with its reason
    (:func:`~fairjudge.io._out_file.strict_dumps`).
    """
    write_atomic(path, (strict_dumps(r, ensure_ascii=False) + "\n" for r in records))


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
    member_usage: Sequence[Mapping[str, Any]] | None = None,
    skipped_rows: Sequence[Mapping[str, Any]] = (),
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
        member_usage: A panel's calls, tokens and cost per member, as its ``--json``
            has them, so ``fairjudge report`` shows each member's usage as the run's
            page did; only in the header when given.
        skipped_rows: The input rows set aside with ``skip_invalid`` (source, line,
            message), as the run's ``--json`` lists them, so ``fairjudge report``
            summarises the run it was; only in the header when there are any.

    Returns:
        ``{"fairjudge": {...}}``, ready for ``json.dumps``.
    """
    body: dict[str, Any] = {
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
    if member_usage is not None:
        body["member_usage"] = [dict(u) for u in member_usage]
    if skipped_rows:
        body["skipped_rows"] = [dict(r) for r in skipped_rows]
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
        calls: What the run's judge calls did, as the run's ``--json`` has it
            (``None``: not recorded); read from a file, so untrusted.
        member_usage: A panel's usage per member, as its ``--json`` has it
            (``None``: not recorded); untrusted as ``calls``.
        skipped_rows: The input rows the run set aside (``skip_invalid``), as its
            ``--json`` lists them; empty for none (or a file written before headers
            recorded them). Untrusted as ``calls``.
    """

    kind: str
    version: str | None
    judge: str | None
    template: str | None
    rubric: str | None
    settings: Mapping[str, Any]
    command: tuple[str, ...] = ()
    calls: Mapping[str, Any] | None = None
    member_usage: tuple[Mapping[str, Any], ...] | None = None
    skipped_rows: tuple[Mapping[str, Any], ...] = ()

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
    calls, usage, skipped = body.get("calls"), body.get("member_usage"), body.get("skipped_rows")
    return OutHeader(
        kind=str(kind),
        version=_optional_text(body, "version", path, line),
        judge=_optional_text(body, "judge", path, line),
        template=_optional_text(body, "template", path, line),
        rubric=_optional_text(body, "rubric", path, line),
        settings=settings,
        command=tuple(str(a) for a in command) if isinstance(command, list) else (),
        calls=calls if isinstance(calls, dict) else None,
        member_usage=tuple(usage)
        if isinstance(usage, list) and all(isinstance(u, dict) for u in usage)
        else None,
        skipped_rows=tuple(r for r in skipped if isinstance(r, dict))
        if isinstance(skipped, list)
        else (),
    )
