"""The pytest hooks: options, the ``fairjudge`` marker, the fixture and the run summary.

Settings come from, weakest first: the ini file, the command line, the test's marker
and the call. ``--fairjudge-replay`` serves every run from a per-session copy of the
recording, so the committed file is never written.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from fairjudge._errors import ConfigError
from fairjudge.testing._suite import CHANGEABLE, Judged, Mode, SuiteJudge, SuiteSettings

__all__ = [
    "fairjudge_judge",
    "pytest_addoption",
    "pytest_configure",
    "pytest_terminal_summary",
    "pytest_unconfigure",
]

DEFAULT_STORE = Path(".fairjudge") / "store.sqlite"
DEFAULT_RECORDING = Path("fairjudge-recording.sqlite")
DEFAULT_REPORT_DIR = Path(".fairjudge") / "pytest"

# (name, help, ini type): each is --fairjudge-NAME on the command line and
# fairjudge_NAME in the ini file.
_VALUED = (
    ("judge", "judge spec (openai/gpt-4o-mini, python:module:function, ...)", "string"),
    ("store", "store file the calls are cached in (default .fairjudge/store.sqlite)", "string"),
    ("concurrency", "judge calls in flight at most", "string"),
    ("seed", "seed of every run: bootstrap and adaptive order (default 0)", "string"),
    ("recording", "recorded calls for record/replay (default fairjudge-recording.sqlite)",
     "string"),
    ("report-dir", "where failed assertions write HTML pages (default .fairjudge/pytest)",
     "string"),
    ("max-unresolved", "share of unresolved items above which assertions fail (default 0.2)",
     "string"),
)  # fmt: skip


@dataclass
class _Session:
    """What the whole session shares: settings, the replay copy, and the calls counted."""

    settings: SuiteSettings
    runs: int = 0
    made: int = 0
    cached: int = 0

    def count(self, judged: Judged, settings: SuiteSettings) -> None:
        self.runs += 1
        self.made += judged.calls_made
        self.cached += judged.calls_cached


_KEY = pytest.StashKey[_Session]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--fairjudge-*`` options and their ``fairjudge_*`` ini settings."""
    group = parser.getgroup("fairjudge", "judged assertions (fairjudge)")
    for name, text, kind in _VALUED:
        group.addoption(f"--fairjudge-{name}", dest=f"fairjudge_{name.replace('-', '_')}",
                        default=None, help=text)  # fmt: skip
        parser.addini(f"fairjudge_{name.replace('-', '_')}", text, type=kind)  # type: ignore[arg-type]
    group.addoption(
        "--fairjudge-record",
        action="store_true",
        help="judge with the configured judge and keep every call in the recording",
    )
    group.addoption(
        "--fairjudge-replay",
        action="store_true",
        help="answer every call from the recording; make none (no API key needed)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker and read the suite's settings once, failing early on a bad one."""
    config.addinivalue_line(
        "markers",
        "fairjudge(judge=None, store=None, concurrency=None, seed=None): "
        "this test's own fairjudge settings",
    )
    config.stash[_KEY] = _Session(_read_settings(config))


def _read_settings(config: pytest.Config) -> SuiteSettings:
    """The suite's settings; a bad value is a usage error naming the option and the ini key."""
    record, replay = config.getoption("fairjudge_record"), config.getoption("fairjudge_replay")
    if record and replay:
        raise pytest.UsageError(
            "--fairjudge-record and --fairjudge-replay exclude each other: record once with "
            "a judge at hand, then replay in CI"
        )
    mode: Mode = "record" if record else "replay" if replay else "live"
    read = _Reader(config)
    try:
        recording = read.path("recording", DEFAULT_RECORDING)
        settings = SuiteSettings(
            judge=read.value("judge"),
            store=read.path("store", DEFAULT_STORE),
            concurrency=read.number("concurrency", int),
            seed=read.number("seed", int) or 0,
            mode=mode,
            recording=recording,
            report_dir=read.path("report-dir", DEFAULT_REPORT_DIR),
            max_unresolved=_or(read.number("max-unresolved", float), 0.2),
        )
    except ConfigError as exc:
        raise pytest.UsageError(f"fairjudge: {exc} ({read.where(exc.params)})") from None
    store = settings.store or recording
    if mode != "live" and "store" in read.from_cli and store.resolve() != recording.resolve():
        # The ini file's store is the live suite's setting; one given beside the mode on
        # the command line asks for this run, and would be ignored.
        raise pytest.UsageError(
            f"fairjudge: --fairjudge-store cannot apply with --fairjudge-{mode}: every call is "
            f"{'kept in' if mode == 'record' else 'answered from'} the recording {recording} "
            f"({read.where(('recording',))}); drop --fairjudge-store, or name that file with "
            "--fairjudge-recording"
        )
    if mode == "record":
        recording.parent.mkdir(parents=True, exist_ok=True)
        return replace(settings, store=recording)
    if mode == "replay":
        if not recording.is_file():
            raise pytest.UsageError(
                f"fairjudge: no recording at {recording} to replay ({read.where(('recording',))}); "
                "make one with a judge at hand: pytest --fairjudge-record"
            )
        return replace(settings, store=_private_copy(recording))
    return settings


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def _private_copy(recording: Path) -> Path:
    """A copy of the recording in a temporary folder of its own, removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="fairjudge-replay-"))
    copy = folder / recording.name
    shutil.copyfile(recording, copy)
    return copy


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the replay's copy of the recording (with the store's -wal and -shm files)."""
    session = config.stash.get(_KEY, None)
    if session is not None and session.settings.mode == "replay" and session.settings.store:
        shutil.rmtree(session.settings.store.parent, ignore_errors=True)


def _ini_folder(config: pytest.Config) -> Path:
    """The ini file's folder (the root folder without one): where its paths are read from."""
    return config.inipath.parent if config.inipath is not None else config.rootpath


class _Reader:
    """Reads one setting: the command line's value, else the ini file's, else none."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.from_cli: set[str] = set()

    def value(self, name: str) -> str | None:
        key = name.replace("-", "_")
        given = self.config.getoption(f"fairjudge_{key}")
        if given not in (None, ""):
            self.from_cli.add(key)
            return str(given)
        ini = self.config.getini(f"fairjudge_{key}")
        return str(ini).strip() or None if ini else None

    def path(self, name: str, default: Path) -> Path:
        text = self.value(name)
        key = name.replace("-", "_")
        if key in self.from_cli:
            base = self.config.invocation_params.dir
        else:
            base = _ini_folder(self.config)
        return base / (Path(text) if text is not None else default)

    def number(self, name: str, kind: Callable[[str], Any]) -> Any:
        text = self.value(name)
        if text is None:
            return None
        try:
            return kind(text)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise ConfigError(
                f"{name.replace('-', '_')} must be {what}; got {text!r}",
                params=(name.replace("-", "_"),),
            ) from None

    def where(self, params: tuple[str, ...]) -> str:
        """``--fairjudge-seed`` or ``fairjudge_seed in pytest.ini``: where each value came from."""
        places = []
        for param in params or ("judge",):
            key = param.replace("-", "_")
            ini = self.config.inipath.name if self.config.inipath else "the ini file"
            if key in self.from_cli:
                places.append(f"--fairjudge-{key.replace('_', '-')}")
            elif not str(self.config.getini(f"fairjudge_{key}") or "").strip():
                places.append(f"the default: fairjudge_{key} is not set in {ini}")
            else:
                places.append(f"fairjudge_{key} in {ini}")
        return ", ".join(places)


@pytest.fixture
def fairjudge_judge(request: pytest.FixtureRequest) -> SuiteJudge:
    """Judges a file or a DataFrame with the suite's judge and store.

    ``fairjudge_judge.compare(items)`` and ``.score(items, rubric=...)`` return a
    judged run with assertions (``assert_not_worse``, ``assert_mean_above``). The
    test's ``@pytest.mark.fairjudge(judge=..., store=..., concurrency=..., seed=...)``
    changes the suite's settings for it.
    """
    __tracebackhide__ = True  # a bad marker is the test's mistake: show its message alone
    session = request.config.stash[_KEY]
    settings = session.settings
    marker = request.node.get_closest_marker("fairjudge")
    if marker is not None:
        if marker.args:
            raise pytest.UsageError(
                f"fairjudge marker on {request.node.nodeid} takes keyword arguments only "
                f"({', '.join(CHANGEABLE)})"
            )
        changes = dict(marker.kwargs)
        if isinstance(changes.get("store"), str | Path):  # read from the ini file's folder
            changes["store"] = _ini_folder(request.config) / changes["store"]
        try:
            settings = settings.changed(**changes)
        except ConfigError as exc:
            raise pytest.UsageError(f"fairjudge marker on {request.node.nodeid}: {exc}") from None
    return SuiteJudge(settings, name=request.node.nodeid, on_run=session.count)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """One section: how many calls the suite made and how many the store served."""
    session = config.stash.get(_KEY, None)
    if session is None or not session.runs:
        return
    settings = session.settings
    where = {
        "live": f"store {settings.store}",
        "record": f"recording {settings.recording}",
        "replay": f"recording {settings.recording} (replayed from a copy)",
    }[settings.mode]
    terminalreporter.write_sep("-", "fairjudge")
    terminalreporter.write_line(
        f"fairjudge ({settings.mode}): {session.runs} judged run(s): {session.made} calls made, "
        f"{session.cached} served from the {where}"
    )
