"""The setup a suite's run judges with: the test's own :class:`~fairjudge.JudgeSetup`, merged.

A test may pass ``setup=`` (or ``store=``/``options=``...) to ``fairjudge_judge.compare``
and ``.score`` as to :func:`fairjudge.compare`; the suite adds its store and run options
to it rather than beside it, since the library refuses a field given both ways. Where
the two disagree, the record/replay guarantee decides: a recorded suite reads and
writes one file, so another store is an error, never silently replaced.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from fairjudge._api import JudgeSetup, setup_of
from fairjudge._errors import ConfigError

if TYPE_CHECKING:
    from fairjudge.runner import RunOptions, Store

__all__ = ["suite_setup"]


class SuiteSettings(Protocol):
    """What the merge reads of :class:`~fairjudge.testing.SuiteSettings` (no import cycle)."""

    @property
    def store(self) -> Path | None: ...
    @property
    def recording(self) -> Path | None: ...
    @property
    def mode(self) -> str: ...
    @property
    def concurrency(self) -> int | None: ...


def suite_setup(
    kwargs: dict[str, Any], settings: SuiteSettings, *, call_concurrency: bool = False
) -> JudgeSetup:
    """The test's setup with the suite's store and run options; its fields leave ``kwargs``.

    Args:
        kwargs: The call's arguments: ``setup`` and the shorthand fields (``store``,
            ``options``, ``template``, ``backend``, ``executor``) are taken out.
        settings: The suite's settings, with the test's and the call's changes.
        call_concurrency: The call itself passed ``concurrency=`` (so the suite's
            concurrency is the call's, and beats the options').

    Returns:
        The setup to pass as ``setup=``. Its store is the test's when it names one in
        ``live`` mode (the call is the strongest setting), else the suite's; its
        options are the test's, with the suite's concurrency where they leave
        ``RunOptions``' default (or where the call gave ``concurrency=``) and, in
        ``replay`` mode, a budget of zero new calls.

    Raises:
        ConfigError: In ``record`` or ``replay`` mode, a store other than the
            recording; or ``concurrency=`` and options with another concurrency.
    """
    shorthand = {name: kwargs.pop(name) for name in JudgeSetup.field_names() if name in kwargs}
    theirs = setup_of(kwargs.pop("setup", None), **shorthand)
    return replace(
        theirs,
        store=_store(theirs.store, settings),
        options=_options(theirs.options, settings, call_concurrency),
    )


def _store(theirs: str | Path | Store | None, settings: SuiteSettings) -> str | Path | Store | None:
    """The test's store in live mode; the suite's (the recording) in the other two."""
    if theirs is None:
        return None if settings.store is None else str(settings.store)
    if settings.mode == "live":
        return theirs
    named = Path(str(getattr(theirs, "path", theirs)))
    if any(_same(named, mine) for mine in (settings.store, settings.recording)):
        return str(settings.store)  # in replay mode, the private copy of that file
    doing = "kept in" if settings.mode == "record" else "answered from"
    raise ConfigError(
        f"the test's JudgeSetup names the store {named}, but in {settings.mode} mode every "
        f"call is {doing} the recording {settings.recording} (fairjudge_recording); leave "
        "store out of the setup (the suite sets it), or name the recording",
        params=("setup", "store"),
    )


def _same(one: Path, other: Path | None) -> bool:
    return other is not None and one.resolve() == other.resolve()


def _options(theirs: RunOptions | None, settings: SuiteSettings, by_call: bool) -> RunOptions:
    from fairjudge.runner import RunOptions

    options = theirs or RunOptions()
    wanted = settings.concurrency
    if wanted is not None and wanted != options.concurrency:
        if options.concurrency == RunOptions().concurrency:
            options = replace(options, concurrency=wanted)
        elif by_call:
            raise ConfigError(
                f"concurrency={wanted} given beside options with concurrency "
                f"{options.concurrency}: set it in one place",
                params=("concurrency", "options"),
            )
    if settings.mode == "replay":
        options = replace(options, max_calls=0)  # the recording answers, or nothing does
    return options
