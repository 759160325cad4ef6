"""How judges are opened and run, written once: :class:`JudgeSetup`.

Every top-level function that opens a judge from a spec (``compare``, ``score``,
``calibrate``, ``rank``, ``audit_judge``, panels through ``judges=``) takes one, and
the command line builds one from its judge and run flags.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, TypeVar

from fairjudge._errors import ConfigError

if TYPE_CHECKING:
    from fairjudge._items import Item
    from fairjudge.judges import (
        BackendOptions,
        BatchJudge,
        BatchPointwiseJudge,
        JudgeSession,
        ScoreMode,
    )
    from fairjudge.prompts import PairwiseTemplate, Rubric
    from fairjudge.runner import Executor, RunOptions, Store

__all__ = ["SAMPLING_TEMPERATURE", "JudgeSetup", "refuse_missing_references", "setup_of"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class JudgeSetup:
    """Where and how the judges of a call are opened and run; the same for every function.

    The judge itself is not part of it (``compare(items, "openai/gpt-4o-mini",
    setup=...)``), so one setup serves several judges. Each field applies to judges
    opened from a spec (and the store, the run options and the backend's ``timeout``
    to your own judge functions); a judge object you built keeps its own, and a field
    set beside it is refused (:meth:`refuse_for_built`). Every value
    is checked here, before any item is read or any call is made.

    Attributes:
        template: The prompt template of a pairwise model judge: a built-in name
            (``default``, ...) or a ``*.toml`` path; ``None`` is ``default``.
        backend: Server URL, GGUF file, temperature, timeout, token caps...
            (:class:`~fairjudge.judges.BackendOptions`, or a mapping of its fields).
        options: Concurrency, rate limits, budgets (``max_calls``, ``max_cost``),
            retries and progress (:class:`~fairjudge.runner.RunOptions`, or a mapping
            of :meth:`~fairjudge.runner.RunOptions.build`'s arguments). Without them a
            sync Python judge runs one call at a time.
        store: The SQLite store (cache and audit log), as a path or a
            :class:`~fairjudge.runner.Store`; ``None``: the default path for model
            judges, none for an undeclared Python judge.
        executor: Where the calls run: ``"asyncio"`` (the default), ``"ray"`` (a
            local Ray instance, shut down at the end), ``"ray:ADDRESS"`` (a running
            cluster), or an executor object such as
            :class:`~fairjudge.runner.RayExecutor` or
            :class:`~fairjudge.runner.BatchExecutor` (yours to close).

    Raises:
        ConfigError: A field of the wrong type or a blank name, naming the field.

    Example:
        >>> setup = JudgeSetup(store="runs.db", options={"max_calls": 200})
        >>> setup.options.max_calls
        200
    """

    template: str | None = None
    backend: BackendOptions | None = None
    options: RunOptions | None = None
    store: str | Path | Store | None = None
    executor: Executor | str | None = None

    def __post_init__(self) -> None:
        if self.template is not None:
            _check_template(self.template)
        if self.backend is not None:
            object.__setattr__(self, "backend", _backend(self.backend))
        if self.options is not None:
            object.__setattr__(self, "options", _options(self.options))
        if self.store is not None:
            _check_store(self.store)
        if self.executor is not None:
            _check_executor(self.executor)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The fields, in order: the keyword parameters each function takes as shorthand."""
        return tuple(f.name for f in fields(cls))

    def given(self) -> list[str]:
        """The fields set (not ``None``), in order."""
        return [name for name in self.field_names() if getattr(self, name) is not None]

    def open_judge(self, spec: str | None, *, rounds: int = 2) -> BatchJudge:
        """The pairwise judge ``spec`` names; every option is checked before a call.

        ``rounds`` above 2 repeat each order, so a model judge given no temperature
        samples at :data:`SAMPLING_TEMPERATURE` (a judge that samples at 1 only keeps
        its own); a temperature of 0 with repeats is refused, before a model loads.
        """
        from dataclasses import replace

        from fairjudge.evaluation import check_repeats
        from fairjudge.judges import (
            DEFAULT_JUDGE,
            BackendOptions,
            calls_no_model,
            fixes_temperature,
            resolve_judge,
        )

        backend = self.backend
        if not calls_no_model(spec):
            where = backend or BackendOptions()
            samples = fixes_temperature(spec or DEFAULT_JUDGE, where)
            if rounds > 2 and where.temperature is None and not samples:
                backend = replace(where, temperature=SAMPLING_TEMPERATURE)
            check_repeats(rounds, backend.temperature if backend is not None else None)
        return resolve_judge(
            spec, backend_options=backend, template=self.template, options=self.options,
            store=self.store, executor=self.executor,
        )  # fmt: skip

    def check_references(self, judge: object, items: Sequence[Item]) -> None:
        """Refuse items lacking the reference ``judge``'s template needs, before it opens.

        ``judge``: a spec (its template is this setup's, else ``default``) or a model
        judge object (its own). A Python judge or a replay renders no prompt: no check.
        """
        from fairjudge.judges import LLMJudge, calls_no_model

        if isinstance(judge, LLMJudge):
            refuse_missing_references(items, judge.template)
        elif (judge is None or isinstance(judge, str)) and not calls_no_model(judge):
            refuse_missing_references(items, self.template)

    def refuse_for_own(self, judge: object) -> float | None:
        """Refuse the fields your own judge function cannot use, as its ``python:`` spec does.

        A function is called directly (no prompt, model or server) on this process's
        engine: of the backend options only ``timeout`` applies (returned, for the
        judge's ``timeout=``); a template, another backend option or another executor
        would be dropped without a word, so each one set is an error naming it.
        """
        from fairjudge.judges import judge_name

        unused = ["template"] if self.template is not None else []
        backend = self.backend
        for f in fields(backend) if backend is not None else ():
            if f.name != "timeout" and getattr(backend, f.name) is not None:
                unused.append(f"backend.{f.name}")
        if self.executor is not None and self.executor != "asyncio":
            unused.append("executor")
        if unused:
            names = ", ".join(unused)
            only = any(n.startswith("backend.") for n in unused)
            only_timeout = "; of backend's options only timeout applies to it" if only else ""
            raise ConfigError(
                f"{names} {'does' if len(unused) == 1 else 'do'} not apply to the judge "
                f"{judge_name(judge)!r} (a Python judge is called directly, with no prompt, "
                f"model or server{only_timeout}); drop it",
                params=tuple(dict.fromkeys(n.partition(".")[0] for n in unused)),
            )
        return backend.timeout if backend is not None else None

    def refuse_for_built(self, judge: object) -> None:
        """Refuse every field set beside a judge object you built: it runs with its own.

        A built judge (anything with ``judge_batch`` or ``score_batch``: an
        ``LLMJudge``, ``CallableJudge(fn)``, a ``PointwiseJudge``, a ``Jury``) has its
        template, backend, run options, store and executor from when it was built; one
        given here would be dropped without a word, so each one set is an error naming it.
        """
        if not any(hasattr(judge, m) for m in ("judge_batch", "score_batch")):
            return  # a spec string, a function: opened or wrapped with the setup's fields
        from fairjudge.judges import judge_name

        unused = [name for name in self.given() if name != "backend"]
        for f in fields(self.backend) if self.backend is not None else ():
            if getattr(self.backend, f.name) is not None:
                unused.append(f"backend.{f.name}")
        if unused:
            one = len(unused) == 1
            raise ConfigError(
                f"{', '.join(unused)} {'does' if one else 'do'} not apply to the judge "
                f"{judge_name(judge)!r}: a judge object you built runs with its own settings; "
                f"set {'it' if one else 'them'} when building it (e.g. CallableJudge(fn, "
                "timeout=...)), or pass a spec string or a function instead",
                params=tuple(dict.fromkeys(n.partition(".")[0] for n in unused)),
            )

    def open_scorer(
        self, spec: str | None, rubric: Rubric, *, mode: ScoreMode = "json",
        structured: bool = False,
    ) -> BatchPointwiseJudge:  # fmt: skip
        """The pointwise judge ``spec`` names, asking ``rubric``; checked before a call.

        Raises:
            ConfigError: A template is set (a scorer asks the rubric), or an option
                does not apply to the judge.
        """
        from fairjudge.judges import resolve_pointwise_judge

        if self.template is not None:
            raise ConfigError(
                "template does not apply to score; pick a rubric with rubric",
                params=("template", "rubric"),
            )
        return resolve_pointwise_judge(
            spec, rubric=rubric, mode=mode, backend_options=self.backend, options=self.options,
            store=self.store, structured=structured, executor=self.executor,
        )  # fmt: skip

    def session(self, specs: Sequence[object]) -> JudgeSession:
        """The session the judges ``specs`` name share (an audit's), from this setup.

        Its judges open on it as :meth:`open_judge`'s opens on its own, so one model
        alone there is checked as that judge is: a ``local/`` model runs one call at a
        time, and a concurrency is refused before it loads
        (:func:`~fairjudge.judges.refuse_one_at_a_time`). Several share the run's calls.

        Args:
            specs: The judges: model specs, or objects that run outside the session.

        Raises:
            ConfigError: One ``local/`` model and a concurrency, or an empty spec.
        """
        from fairjudge.judges import JudgeSession, judge_spec, refuse_one_at_a_time

        models = {judge_spec(s) for s in specs if isinstance(s, str)}
        if len(models) == 1:
            refuse_one_at_a_time(models.pop(), self.options, self.executor)
        return JudgeSession(store=self.store, options=self.options, executor=self.executor)


SAMPLING_TEMPERATURE = 0.7
"""The temperature of a model judge with ``rounds`` above 2 and none given: repeats must sample."""


def setup_of(setup: JudgeSetup | None, **shorthand: Any) -> JudgeSetup:
    """The setup a function runs with: ``setup``, or one built from its keyword shorthand.

    ``compare(items, judge, store="runs.db")`` is ``compare(items, judge,
    setup=JudgeSetup(store="runs.db"))``; giving a field both ways is an error, so
    no value is silently dropped.

    Raises:
        ConfigError: ``setup`` is not a :class:`JudgeSetup`, or a field is given both
            in it and as a keyword.
    """
    given = {name: value for name, value in shorthand.items() if value is not None}
    if setup is None:
        return JudgeSetup(**given)
    if not isinstance(setup, JudgeSetup):
        raise ConfigError(
            f"setup must be a fairjudge.JudgeSetup; got {type(setup).__name__}", params="setup"
        )
    if given:
        names = ", ".join(given)
        raise ConfigError(
            f"{names} given beside setup=: set {names} in the JudgeSetup (or pass "
            "them without setup=), not both",
            params=("setup", *given),
        )
    return setup


def refuse_missing_references(
    items: Sequence[Item], template: str | PairwiseTemplate | None, *, member: str | None = None
) -> None:
    """Refuse, before any call, items without the reference ``template`` needs.

    The template itself refuses only as each prompt is rendered, mid-run, one item at
    a time; this counts them all up front. ``template``: a name or ``*.toml`` path
    (``None``: ``default``) or a template; ``member``: the panel member it is for.

    Raises:
        ConfigError: The template uses ``{reference}`` and some item has none.
    """
    missing = [it.id for it in items if it.reference is None]
    if not missing:
        return
    from fairjudge.prompts import get_template

    if template is None or isinstance(template, str):
        template = get_template(template or "default")
    if not template.needs_reference:
        return
    what = (
        f"template {template.name!r} needs a reference, but {len(missing)} item(s) lack "
        f"one (first: id {missing[0]!r})"
    )
    if member is not None:
        raise ConfigError(
            f"member {member!r}: {what}; add a 'reference' column or give that member "
            "another template",
            params="template",
        )
    raise ConfigError(
        f"{what}; add a 'reference' column or pick another template", params="template"
    )


def _check_template(template: object) -> None:
    if not isinstance(template, str) or not template.strip():
        raise ConfigError(
            f"template must be a template's name or a *.toml path; got {template!r:.80}",
            params="template",
        )


def _of_fields(name: str, value: object, kind: type[_T], called: str,
               build: Callable[[Mapping[str, Any]], _T]) -> _T:  # fmt: skip
    """``value`` when it is a ``kind``, else ``build`` of a mapping of its fields."""
    if isinstance(value, kind):
        return value
    if isinstance(value, Mapping):
        return build(value)
    raise ConfigError(
        f"{name} must be a {called} or a mapping of its fields; got {type(value).__name__}",
        params=name,
    )


def _backend(backend: object) -> BackendOptions:
    from fairjudge.judges import BackendOptions

    def build(given: Mapping[str, Any]) -> BackendOptions:
        known = {f.name for f in fields(BackendOptions)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ConfigError(
                f"backend has no field {unknown[0]!r}; its fields: {', '.join(sorted(known))}",
                params="backend",
            )
        _check_backend_types(given)  # before BackendOptions compares "1" with 0
        return BackendOptions(**given)

    built = _of_fields("backend", backend, BackendOptions, "fairjudge.judges.BackendOptions", build)
    _check_backend_types({f.name: getattr(built, f.name) for f in fields(built)})
    return built


_BACKEND_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "base_url": ((str,), "a URL string"), "model_path": ((str, PurePath), "a path"),
    "threads": ((int,), "a whole number"), "temperature": ((int, float), "a number"),
    "timeout": ((int, float), "a number of seconds"), "context": ((int,), "a whole number"),
    "reasoning_effort": ((str,), "a string"), "thinking_budget": ((int,), "a whole number"),
    "max_tokens": ((int,), "a whole number"),
}  # fmt: skip
"""Each backend field's types, and how its message says them (a bool is none of them)."""


def _check_backend_types(given: Mapping[str, Any]) -> None:
    """Refuse a backend field of the wrong type (``timeout="1"``), naming ``backend.FIELD``."""
    for name, value in given.items():
        types, said = _BACKEND_TYPES.get(name, ((object,), ""))
        if value is not None and (isinstance(value, bool) or not isinstance(value, types)):
            raise ConfigError(f"backend.{name} must be {said}; got {value!r:.80} "
                              f"({type(value).__name__})", params="backend")  # fmt: skip


def _options(options: object) -> RunOptions:
    from fairjudge.runner import RunOptions

    def build(given: Mapping[str, Any]) -> RunOptions:
        try:
            return RunOptions.build(**given)
        except TypeError as exc:  # an unknown keyword
            raise ConfigError(
                f"options: {exc}; give RunOptions' fields (concurrency, rpm, tpm, "
                "max_calls, max_cost, max_attempts, price_input, price_output, quiet, ...)",
                params="options",
            ) from None

    return _of_fields("options", options, RunOptions, "fairjudge.runner.RunOptions", build)


def _check_store(store: object) -> None:
    from fairjudge.runner import Store

    if isinstance(store, str) and store.endswith(tuple({os.sep, os.altsep or os.sep})):
        raise ConfigError(f"store {store} names a folder; give a file name, e.g. "
                          f"{Path(store) / 'store.sqlite'}", params="store")  # fmt: skip
    if isinstance(store, Store) or (isinstance(store, Path) and str(store).strip()):
        return
    if not isinstance(store, str) or not store.strip():
        raise ConfigError(
            f"store must be a path or a fairjudge.runner.Store; got {store!r:.80}",
            params="store",
        )


EMPTY_RAY_ADDRESS = (
    "the address in executor='ray:ADDRESS' is empty; give 'ray:auto', 'ray:HOST:PORT' or "
    "'ray:ray://HOST:PORT' for a running cluster, or 'ray' for a local one"
)
"""The error for ``"ray:"`` with no address (the command line words it as its flag's)."""


def _check_executor(executor: object) -> None:
    if not isinstance(executor, str):
        if callable(getattr(executor, "execute", None)):
            return
        raise ConfigError(
            f"executor must be 'asyncio', 'ray', 'ray:ADDRESS' or an Executor; "
            f"got {type(executor).__name__}",
            params="executor",
        )
    name = executor.strip()
    if name in ("asyncio", "ray") or (name.startswith("ray:") and name[4:].strip()):
        return
    if name.startswith("ray:"):
        raise ConfigError(EMPTY_RAY_ADDRESS, params="executor")
    raise ConfigError(
        f"executor={executor!r} is no executor; use 'asyncio', 'ray', 'ray:ADDRESS' or an "
        "Executor object",
        params="executor",
    )
