"""Turn a ``--judge`` spec into a judge: the one resolver the CLI and the library share.

Forms: ``openai/<model>``, ``anthropic/<model>``, ``local/<name>`` (no spec: the
embedded default), ``python:module:function`` and ``replay:FILE``. Backends load only
when asked for, and an option that does not apply to the judge is an error naming it.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairjudge._call import Backend
from fairjudge._errors import ConfigError
from fairjudge.backends import check_base_url
from fairjudge.judges._callable import load_python_judge
from fairjudge.judges._pairwise import BatchJudge, LLMJudge
from fairjudge.judges._session import JudgeSession, uses_default_executor
from fairjudge.prompts import PairwiseTemplate, get_template
from fairjudge.runner import RunOptions

if TYPE_CHECKING:
    from fairjudge.runner import Executor, Store

__all__ = [
    "DEFAULT_JUDGE",
    "JUDGE_FORMS",
    "BackendOptions",
    "calls_no_model",
    "check_batch_api",
    "judge_spec",
    "refuse_one_at_a_time",
    "resolve_judge",
]

DEFAULT_JUDGE = "local/qwen2.5-coder-1.5b"
"""The judge used when none is given: a small model that runs on the CPU, offline."""

JUDGE_FORMS = (
    "openai/<model>  (any OpenAI-compatible server with base_url)",
    "anthropic/<model>",
    "local/<name>  (qwen2.5-coder-1.5b, the default, or gemma-3-270m)",
    "python:package.module:function",
    "replay:FILE  (recorded verdicts: a compare results file, or JSONL of question, answer_a, "
    "answer_b and reply or verdict)",
)
"""The valid judge spec forms, as shown in error messages."""

PYTHON_JUDGE = "a Python judge is called directly, with no prompt, model or server"
"""Why a model's option does not apply to a ``python:`` judge."""


@dataclass(frozen=True, slots=True)
class BackendOptions:
    """Where and how a model judge runs; each applies to some backends only.

    Attributes:
        base_url: Server URL for ``openai/`` (and ``anthropic/``) judges.
        model_path: A GGUF file for ``local/`` judges, instead of the packaged weights.
        threads: CPU threads for ``local/`` judges.
        temperature: Sampling temperature for every call (part of the cache key).
        timeout: Seconds an HTTP judge waits for one reply (default 60), and a
            ``python:`` judge's function may take for one (default: no limit).
        context: Context size in tokens for ``local/`` judges (llama.cpp's ``n_ctx``,
            default 8192): raise it when a prompt is too long for the model's window.
        reasoning_effort: ``reasoning_effort`` of an ``openai/`` reasoning model
            (``minimal``, ``low``, ``medium``, ``high``).
        thinking_budget: Extended-thinking budget in tokens of an ``anthropic/`` model
            (at least 1024; the judge then samples at temperature 1).
        max_tokens: Output cap of an HTTP judge's calls (reasoning included); by
            default sized per family (see :mod:`fairjudge.backends._capabilities`).
    """

    base_url: str | None = None
    model_path: Path | None = None
    threads: int | None = None
    temperature: float | None = None
    timeout: float | None = None
    context: int | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.base_url is not None:
            check_base_url(self.base_url)  # before any call: names base_url
        if self.model_path is not None:
            _check_model_file(Path(self.model_path))
        if self.threads is not None and self.threads < 1:
            raise ConfigError(f"threads must be >= 1; got {self.threads}", params="threads")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ConfigError(
                f"temperature must be in [0, 2]; got {self.temperature}", params="temperature"
            )
        if self.context is not None and self.context < 256:
            raise ConfigError(
                f"context must be at least 256 tokens; got {self.context}", params="context"
            )
        if self.timeout is not None and not 0 < self.timeout < 86400:
            raise ConfigError(
                f"timeout must be a number of seconds > 0; got {self.timeout}", params="timeout"
            )
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ConfigError(
                f"max_tokens must be >= 1; got {self.max_tokens}", params="max_tokens"
            )


def _check_model_file(path: Path) -> None:
    """Refuse a model path that exists but is no regular file (``/dev/zero`` would hash forever).

    A missing file is left to the backend, which says so when it loads the weights.
    """
    try:
        mode = path.expanduser().stat().st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise ConfigError(
            f"model_path={path}: not a regular file; give a GGUF file", params="model_path"
        )


def judge_spec(spec: str | None, *, name: str = "judge") -> str:
    """The spec to resolve: ``None`` is the default judge; an empty one is an error.

    An empty or blank spec (``judge=""``, an unset variable in a script) is refused
    rather than read as "no spec": running the default model instead would cost the
    user calls they did not ask for.

    Args:
        spec: A judge spec, or ``None`` for :data:`DEFAULT_JUDGE`.
        name: The parameter named in the error (a jury file's ``member.N.judge``).

    Returns:
        The spec without surrounding whitespace.

    Raises:
        ConfigError: The spec is empty or only whitespace.
    """
    if spec is None:
        return DEFAULT_JUDGE
    if not spec.strip():
        raise ConfigError(
            f"{name}: empty judge spec {spec!r}; pass one of: {'; '.join(JUDGE_FORMS)}; "
            f"or leave {name} out for the default, {DEFAULT_JUDGE}",
            params=(name, "base_url"),
        )
    return spec.strip()


def check_batch_api(spec: str | None, executor: object) -> None:
    """Refuse a judge no batch API serves when its calls would go to one.

    Checked as the judge is resolved, before a backend opens or a local model loads;
    the batch executor checks each backend again as a batch runs, but by then a local
    model has loaded for nothing. ``spec``: the judge as given (``None``: the default).

    Raises:
        ConfigError: ``executor`` is a :class:`~fairjudge.runner.BatchExecutor` and
            ``spec`` is no ``openai/`` or ``anthropic/`` model; it names ``executor``
            (``--batch-api`` on the command line) and says what to pass instead.
    """
    if getattr(executor, "sends_batches", False) is not True:
        return  # an executor says so itself: no import of the batch machinery (asyncio)
    shown = spec.strip() if spec and spec.strip() else "local/ (the default judge)"
    if not shown.startswith(("openai/", "anthropic/")):
        raise ConfigError(
            "executor=BatchExecutor() needs a judge with a batch API (openai/<model> or "
            f"anthropic/<model>); {shown} has none: drop executor=BatchExecutor() for it "
            "(executor=None makes the calls one by one)",
            params="executor",
        )


def calls_no_model(spec: str | None) -> bool:
    """Whether a ``--judge`` spec names a judge answered in this process without a model.

    Python callables and replays take no template, store, run options or sampling,
    so callers skip whatever only a model judge needs (a template check, repeats).
    """
    return (spec or "").strip().startswith(("python:", "replay:"))


def resolve_judge(
    spec: str | None,
    *,
    backend_options: BackendOptions | None = None,
    template: str | PairwiseTemplate | None = None,
    options: RunOptions | None = None,
    store: Store | str | Path | None = None,
    session: JudgeSession | None = None,
    params: Mapping[str, Any] | None = None,
    executor: Executor | str | None = None,
) -> BatchJudge:
    """Build the judge a ``--judge`` spec names.

    Args:
        spec: ``openai/<model>``, ``anthropic/<model>``, ``local/<name>``,
            ``python:package.module:function``, ``replay:FILE``, or ``None`` for the
            default (an empty or blank spec is an error, never the default).
        backend_options: Server URL, GGUF file, threads, temperature.
        template: Template name, ``*.toml`` path or template (model judges only;
            ``None`` means ``default``).
        options: Run options (model judges only; not with ``session``).
        store: The store or its path (model judges only; not with ``session``).
        session: Run on this session instead of opening one (it keeps its own
            store and options); the judge's backend is added to it.
        params: More sampling parameters (model judges only).
        executor: Where the judge's own session runs its batches (model judges
            only; not with ``session``): an :class:`~fairjudge.runner.Executor`,
            ``"asyncio"`` (the default), ``"ray"`` or ``"ray:ADDRESS"``.

    Returns:
        A :class:`~fairjudge.judges.CallableJudge` for ``python:`` specs, a
        :class:`~fairjudge.judges.ReplayJudge` for ``replay:`` specs, else an
        :class:`~fairjudge.judges.LLMJudge`.

    Raises:
        ConfigError: The spec is empty or has an unknown form (the message lists
            the valid ones), an option does not apply to the judge (the message names it), or
            a backend's SDK is missing (:class:`fairjudge.MissingExtraError`).
        InputError: A ``replay:`` file is unreadable or malformed (names its line).
    """
    given_spec, spec = spec, judge_spec(spec)  # an empty spec is refused first
    check_batch_api(given_spec, session.executor if session is not None else executor)
    where = backend_options or BackendOptions()
    if calls_no_model(spec):
        given = given_options(where)
        if template is not None:
            given.append("template")
        if params:
            given.append("params")
        if not uses_default_executor(executor):
            given.append("executor")
        if spec.startswith("python:"):
            # A Python judge runs on a session of its own, with the run options, the
            # timeout and (when it declares a name and version) the store, as an HTTP
            # judge does.
            given = [g for g in given if g != "timeout"]
            reject(spec, [*given, *(["session"] if session is not None else [])], PYTHON_JUDGE)
            return load_python_judge(spec, options=options, store=store, timeout=where.timeout)
        given += run_params(options)
        if store is not None or session is not None:
            given.append("store")
        reject(spec, given, "a replay answers from recorded verdicts, with no prompt or model")
        return _replay(spec)

    kind, name = model_route(spec)
    if session is None:  # a session's options are its own, shared by its judges
        refuse_one_at_a_time(spec, options, executor)
    # Check everything that can fail before a backend opens connections or loads weights.
    tmpl: PairwiseTemplate = (
        template if isinstance(template, PairwiseTemplate) else get_template(template or "default")
    )
    quiet = (session.options if session is not None else options or RunOptions()).quiet
    backend = make_backend(kind, name, where, quiet=quiet)
    return LLMJudge(
        backend, template=tmpl, session=session, store=store, options=options,
        params=sampling(where, params, spec=spec), executor=executor,
    )  # fmt: skip


def model_route(spec: str) -> tuple[str, str]:
    """``(kind, model)`` of a model judge's spec (``openai/gpt-4o`` gives ``openai``, ``gpt-4o``).

    Raises:
        ConfigError: The spec is no ``openai/``, ``anthropic/`` or ``local/`` model.
    """
    kind, sep, name = spec.partition("/")
    if not sep or not name.strip() or kind not in ("openai", "anthropic", "local"):
        raise ConfigError(
            f"unknown judge {spec!r}; use one of: {'; '.join(JUDGE_FORMS)}", params="base_url"
        )
    return kind, name.strip()


def sampling(
    where: BackendOptions, params: Mapping[str, Any] | None, *, spec: str = ""
) -> dict[str, Any]:
    """A model judge's sampling parameters: ``params``, and the temperature when one is set.

    The judge ``spec`` (``openai/o3-mini``), given temperature 1, the one an OpenAI
    reasoning model samples at: none is sent (some, o1-mini and o3-mini, refuse the
    field even at 1, and gpt-5.1 at low effort any), and the call's key is the same.
    Another temperature reaches here for such a judge at another server only (sent as
    asked: :func:`check_fixed_temperature`). Pairwise and pointwise judges alike.
    """
    out = dict(params or {})
    unsent = spec.startswith("openai/") and where.temperature == 1
    if where.temperature is not None and not (unsent and fixes_temperature(spec, where)):
        out["temperature"] = where.temperature
    return out


def _replay(spec: str) -> BatchJudge:
    path = spec.removeprefix("replay:").strip()
    if not path:
        raise ConfigError(f"a replay judge needs a file: 'replay:FILE'; got {spec!r}")
    from fairjudge.judges._replay import ReplayJudge

    return ReplayJudge.from_file(path, name=spec)


def make_backend(kind: str, name: str, where: BackendOptions, *, quiet: bool) -> Backend:
    spec = f"{kind}/{name}"
    if kind == "local":
        given = [f for f, v in (("base_url", where.base_url), ("timeout", where.timeout)) if v]
        reject(spec, given, "it runs in this process")
        # The embedded judge reads one verdict token and has no reasoning to budget:
        # these were ignored, which a flag must never be.
        family = ("max_tokens", "reasoning_effort", "thinking_budget")
        reject(spec, [f for f in family if getattr(where, f) is not None],
               "its caps are fixed (one verdict token, 512 for a reply) and it does not "
               "reason; the flag is for openai/ and anthropic/ judges")  # fmt: skip
        from fairjudge.backends import DEFAULT_N_CTX, LocalBackend

        path = str(where.model_path) if where.model_path else None
        return LocalBackend.from_name(
            name, model_path=path, threads=where.threads, quiet=quiet,
            n_ctx=where.context or DEFAULT_N_CTX,
        )  # fmt: skip
    local_only = (
        ("model_path", where.model_path), ("threads", where.threads),
        ("context", where.context),
    )  # fmt: skip
    given = [f for f, v in local_only if v]
    reject(spec, given, "they are for local/ judges")
    other = "thinking_budget" if kind == "openai" else "reasoning_effort"
    if getattr(where, other) is not None:
        reject(spec, [other], f"it is for {'anthropic' if kind == 'openai' else 'openai'}/ judges")
    check_fixed_temperature(kind, name, where)
    http: dict[str, Any] = {} if where.timeout is None else {"timeout": where.timeout}
    if where.max_tokens is not None:
        http["max_tokens"] = where.max_tokens
    if kind == "openai":
        from fairjudge.backends import OpenAIBackend

        return OpenAIBackend(
            name, base_url=where.base_url, reasoning_effort=where.reasoning_effort, **http
        )
    from fairjudge.backends import AnthropicBackend

    return AnthropicBackend(
        name, base_url=where.base_url, thinking_budget=where.thinking_budget, **http
    )


def fixes_temperature(spec: str, where: BackendOptions) -> bool:
    """Whether the judge ``spec`` samples at temperature 1 only (its provider says so).

    OpenAI's reasoning models (gpt-5*, o1*, o3*, o4*) accept no other temperature, and
    neither does a Claude model with extended thinking, nor Claude Opus 4.7 and later
    (the API answers 400 "`temperature` is deprecated for this model."). Such a judge is stochastic:
    ``--rounds`` above 2 samples it again, as at any temperature above 0.
    """
    kind, _, name = spec.partition("/")
    if kind not in ("openai", "anthropic") or not name:
        return False
    from fairjudge.backends import capabilities_for

    if kind == "anthropic":  # Claude Opus 4.7 and later take no temperature at all
        return where.thinking_budget is not None or capabilities_for(kind, name.strip()).stochastic
    # gpt-5.1 and later take a temperature at reasoning_effort none, their default
    return capabilities_for("openai", name.strip(), where.reasoning_effort).stochastic


def check_fixed_temperature(kind: str, name: str, where: BackendOptions) -> None:
    """Refuse a temperature for a judge that samples at 1 only (exit 2), but 1.

    1 is what such a judge samples at, so a script that passes ``--temperature 1`` to
    every judge runs: extended thinking is sent it; an OpenAI reasoning model none at
    all (:func:`sampling`), since some (o1-mini, o3-mini) refuse the parameter even at 1.
    """
    if where.temperature is None or where.temperature == 1:
        return
    from fairjudge.backends import AnthropicBackend, OpenAIBackend, capabilities_for

    # The vendor's API's rule: another server answers for the model it serves.
    api = OpenAIBackend if kind == "openai" else AnthropicBackend
    if kind in ("openai", "anthropic") and not api.calls_the_api(where.base_url):
        return
    if fixes_temperature(f"{kind}/{name}", where):
        why = (
            "extended thinking" if kind == "anthropic" and where.thinking_budget else "the provider"
        )
        caps = capabilities_for(kind, name, where.reasoning_effort)
        caps.refuse_temperature(f"{kind}/{name}", where.temperature, why)


def given_options(where: BackendOptions) -> list[str]:
    return [f.name for f in fields(where) if getattr(where, f.name) is not None]


_RUN_PARAMS = ("concurrency", "rpm", "tpm", "max_calls", "max_cost", "prices", "retry")


def run_params(options: RunOptions | None) -> list[str]:
    """The run options set to something other than their defaults."""
    if options is None:
        return []
    default = RunOptions()
    return [name for name in _RUN_PARAMS if getattr(options, name) != getattr(default, name)]


def refuse_one_at_a_time(
    spec: str, options: RunOptions | None, executor: Executor | str | None
) -> None:
    """Refuse a ``concurrency`` for a ``local/`` judge alone in this process: it has no effect.

    The embedded model answers one call at a time (``LocalBackend.max_concurrency``),
    so a run of its calls alone never has two in flight. On Ray each node serves one;
    a panel's members share the run's calls, so a panel is not refused. Checked before
    the model loads wherever a judge opens with run options: :func:`resolve_judge` and
    :func:`resolve_pointwise_judge` on a session of the judge's own, and a front door's
    session for one judge (``fairjudge.audit_judge``'s).

    Args:
        spec: The judge's spec, as :func:`judge_spec` reads it.
        options: The run options in force (the judge's own, or its session's).
        executor: Where its session runs batches.

    Raises:
        ConfigError: ``spec`` is a ``local/`` model, ``options`` set a concurrency and
            the executor is this process; names ``concurrency``.
    """
    local = spec.partition("/")[0] == "local"
    if local and uses_default_executor(executor) and "concurrency" in run_params(options):
        reject(spec, ["concurrency"], "it runs in this process, one call at a time")


def reject(spec: str, given: list[str], why: str) -> None:
    if given:
        flags = ", ".join(given)
        verb = "does" if len(given) == 1 else "do"
        raise ConfigError(
            f"{flags} {verb} not apply to the judge {spec!r} ({why}); drop it", params=tuple(given)
        )
