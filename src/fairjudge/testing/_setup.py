"""The setup a suite's run judges with: the test's own :class:`~fairjudge.JudgeSetup`, merged.

A test may pass ``setup=`` (or ``store=``/``options=``...) to ``fairjudge_judge.compare``
and ``.score`` as to :func:`fairjudge.compare`; the suite adds its store and run options
to it rather than beside it, since the library refuses a field given both ways. Where
the two disagree, the record/replay guarantee decides: a recorded suite reads and
writes one file, so another store is an error, never silently replaced. A judge object
the test built (``judge=CallableJudge(fn)``, a built ``Jury`` as ``judges=``, or one in
its list) runs with its own store and run options, as the library runs it: the suite
sets none beside it, and a call's ``concurrency=`` beside it is refused.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from fairjudge._api import JudgeSetup, setup_of
from fairjudge._errors import ConfigError

if TYPE_CHECKING:
    from fairjudge.evaluation import EvalSettings
    from fairjudge.runner import RunOptions, Store

__all__ = ["judge_with_suite", "run_settings", "suite_setup", "uncacheable"]


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
    @property
    def judge(self) -> str | None: ...


def judge_with_suite(
    kwargs: dict[str, Any], settings: SuiteSettings, *, call_concurrency: bool = False
) -> None:
    """Ready a call's arguments: the suite's judge, and its setup unless a judge object runs.

    Args:
        kwargs: The call's arguments, changed in place: ``judge`` is the suite's when
            the call names neither a judge nor a panel (``judges=``), and ``setup`` is
            :func:`suite_setup`'s unless the call judges with a judge object.
        settings: The suite's settings, with the test's and the call's changes.
        call_concurrency: The call itself passed ``concurrency=``.

    Raises:
        ConfigError: ``concurrency=`` in the call beside a judge object, which runs
            with its own run options, so the value would have no effect (the
            library refuses ``options=`` beside it alike); or what
            :func:`suite_setup` refuses.
    """
    if "judges" not in kwargs:  # a panel (judges=) replaces the suite's judge
        kwargs.setdefault("judge", settings.judge)
    built = _built(kwargs.get("judge"), kwargs.get("judges"))
    if built is None:
        kwargs["setup"] = suite_setup(kwargs, settings, call_concurrency=call_concurrency)
    elif call_concurrency:
        raise ConfigError(
            f"concurrency={settings.concurrency} does not apply to the judge {built!r}: a "
            "judge object you built runs with its own run options; set it where you build "
            "the judge (options=RunOptions(concurrency=N)), or pass a spec string or a "
            "function instead",
            params="concurrency",
        )


def _built(judge: object, judges: object) -> str | None:
    """The name of the judge object a call judges with (``None``: none, the suite's setup applies).

    ``judge`` itself, a built panel as ``judges``, or any member of its list: a panel
    with a judge object on it opens no session, so the library refuses a store and
    run options beside it.
    """
    from fairjudge.judges import judge_name

    members = list(judges) if isinstance(judges, list | tuple) else []
    for candidate in (judge, judges, *members):
        if any(hasattr(candidate, m) for m in ("judge_batch", "score_batch")):
            return repr(candidate) if candidate is judges else judge_name(candidate)
    return None


def run_settings(given: EvalSettings | None, seed: int, *, call_seed: bool = False) -> EvalSettings:
    """The run's :class:`~fairjudge.evaluation.EvalSettings`: the test's, with the suite's seed.

    As for concurrency, the suite's seed (the ini file's, the marker's or the call's)
    fills a seed the settings leave at its default (0); a seed of their own is kept,
    unless the call's ``seed=`` says another.

    Raises:
        ConfigError: ``seed=`` in the call beside ``settings`` with another seed.
    """
    from fairjudge.evaluation import EvalSettings

    if given is None:
        return EvalSettings(seed=seed)
    if not isinstance(given, EvalSettings) or given.seed == seed:
        return given  # or not settings at all: the library names the wrong type
    if given.seed == EvalSettings().seed:
        return replace(given, seed=seed)
    if call_seed:
        raise ConfigError(
            f"seed={seed} given beside settings with seed {given.seed}: set it in one place "
            f"(settings=EvalSettings(..., seed={seed}), or seed= alone)",
            params=("seed", "settings"),
        )
    return given


def uncacheable(exc: ConfigError, settings: SuiteSettings, kwargs: dict[str, Any]) -> ConfigError:
    """``exc``, said in the suite's words when it refuses the store the suite always passes.

    The user gave no ``store``: the suite caches (and records) every call, so a judge
    that declares no name and version (the call's own, or a panel's member) cannot be
    used until it does. The message names the judge the call judged with.
    """
    text = str(exc)
    if "store" not in exc.params or not (
        "declares no name and version" in text or "none of which declares" in text
    ):
        return exc
    judges = kwargs.get("judges")
    if judges is None:
        judge = kwargs.get("judge", settings.judge)
        who, its, each = f"the judge {_named(judge)!r} declares", "its", "the"
    else:
        members = list(judges) if isinstance(judges, list | tuple) else []
        names = ", ".join(repr(_named(m)) for m in members)
        who = f"the panel's Python judges{f' ({names})' if names else ''} declare"
        its, each = "their", "each"
    return ConfigError(
        f"the suite caches, records and replays every judge call in its store "
        f"({settings.store}; fairjudge_store), and {who} no name and version, so {its} "
        "calls cannot be cached (a cache keyed by a function's name would serve stale "
        "replies once its body changes); declare them with "
        f"@fairjudge.judge_function(name=..., version=...) on {each} function",
        params="store",
    )


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


def _named(judge: object) -> str:
    """A judge as its message names it: a spec as written, a member spec by its judge."""
    from fairjudge.judges import MemberSpec, judge_name

    if isinstance(judge, MemberSpec):
        return judge.name or judge.judge
    return judge if isinstance(judge, str) else judge_name(judge)
