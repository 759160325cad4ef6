"""Turn a ``--judge`` spec into a judge.

The forms are ``openai/<model>``, ``anthropic/<model>``, ``local/<name>`` and
``python:package.module:function``; no spec means the embedded default,
``local/qwen2.5-coder-1.5b``. Backends are imported only when asked for, so a
missing optional SDK matters only to the user who picked that backend.
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from typing import TYPE_CHECKING, Any

from fairjudge._errors import ConfigError
from fairjudge.judges._base import Backend
from fairjudge.judges._pairwise import BatchJudge

if TYPE_CHECKING:
    from fairjudge.prompts import PairwiseTemplate
    from fairjudge.runner import Prices, ProgressMode, RetryPolicy, RunProgress, Store

__all__ = ["DEFAULT_JUDGE", "JUDGE_FORMS", "resolve_judge"]

DEFAULT_JUDGE = "local/qwen2.5-coder-1.5b"
"""The judge used when none is given: a small model that runs on the CPU, offline."""

JUDGE_FORMS = (
    "openai/<model>  (any OpenAI-compatible server with --base-url)",
    "anthropic/<model>",
    "local/<name>  (qwen2.5-coder-1.5b, the default, or gemma-3-270m)",
    "python:package.module:function",
)
"""The valid ``--judge`` forms, as shown in error messages."""


def _forms() -> str:
    return "; ".join(JUDGE_FORMS)


def resolve_judge(
    spec: str | None,
    *,
    base_url: str | None = None,
    model_path: str | PathLike[str] | None = None,
    threads: int | None = None,
    template: str | PairwiseTemplate = "default",
    store: Store | str | PathLike[str] | None = None,
    concurrency: int = 16,
    rpm: float | None = None,
    tpm: float | None = None,
    max_calls: int | None = None,
    max_cost: float | None = None,
    prices: Prices | tuple[float, float] | None = None,
    retry: RetryPolicy | None = None,
    params: Mapping[str, Any] | None = None,
    quiet: bool = False,
    progress: ProgressMode | RunProgress = "auto",
) -> BatchJudge:
    """Build the judge a ``--judge`` spec names.

    Args:
        spec: ``openai/<model>``, ``anthropic/<model>``, ``local/<name>``,
            ``python:package.module:function``, or ``None`` for
            ``local/qwen2.5-coder-1.5b``.
        base_url: Server URL for ``openai/`` (and ``anthropic/``) judges.
        model_path: A GGUF file for ``local/`` judges, instead of the packaged weights.
        threads: CPU threads for ``local/`` judges.
        template: Template name, ``*.toml`` path or template, for model judges.
        store: The store or its path (default ``.fairjudge/store.sqlite``).
        concurrency: Calls in flight at most.
        rpm: Requests-per-minute limit.
        tpm: Tokens-per-minute limit.
        max_calls: New calls the judge may make.
        max_cost: Dollars the judge may spend (needs ``prices``).
        prices: Dollars per million input and output tokens, as
            :class:`~fairjudge.runner.Prices` or ``(input, output)``.
        retry: Retry policy.
        params: Sampling parameters overriding the backend's defaults.
        quiet: No progress output.
        progress: Progress display mode or object.

    Returns:
        A :class:`~fairjudge.judges.CallableJudge` for ``python:`` specs, else an
        :class:`~fairjudge.judges.LLMJudge`.

    Raises:
        ConfigError: The spec has an unknown form (the message lists the valid
            ones), an option does not apply to the backend, or a backend's SDK is
            missing (:class:`fairjudge.MissingExtraError`, with the install command).
    """
    spec = (spec or DEFAULT_JUDGE).strip()
    if spec.startswith("python:"):
        _reject_options(spec, base_url=base_url, model_path=model_path, threads=threads)
        from fairjudge.judges._callable import load_python_judge

        return load_python_judge(spec)

    kind, sep, name = spec.partition("/")
    if not sep or not name.strip() or kind not in ("openai", "anthropic", "local"):
        raise ConfigError(f"unknown judge {spec!r}; use one of: {_forms()}")
    name = name.strip()

    from fairjudge.judges._llm import LLMJudge
    from fairjudge.prompts import PairwiseTemplate, get_template
    from fairjudge.runner import Prices

    # Check everything that can fail before a backend opens connections or loads weights.
    tmpl = template if isinstance(template, PairwiseTemplate) else get_template(template)
    if isinstance(prices, tuple):
        prices = Prices(*prices)
    backend = _backend(
        kind, name, base_url=base_url, model_path=model_path, threads=threads, quiet=quiet
    )
    return LLMJudge(
        backend,
        template=tmpl,
        store=store,
        concurrency=concurrency,
        rpm=rpm,
        tpm=tpm,
        max_calls=max_calls,
        max_cost=max_cost,
        prices=prices,
        retry=retry,
        params=params,
        quiet=quiet,
        progress=progress,
    )


def _backend(
    kind: str,
    name: str,
    *,
    base_url: str | None,
    model_path: str | PathLike[str] | None,
    threads: int | None,
    quiet: bool = False,
) -> Backend:
    spec = f"{kind}/{name}"
    if kind == "local":
        _reject_options(spec, base_url=base_url)
        from fairjudge.judges._local import LocalBackend

        return LocalBackend.from_name(
            name, model_path=str(model_path) if model_path else None, threads=threads, quiet=quiet
        )
    _reject_options(spec, model_path=model_path, threads=threads)
    if kind == "openai":
        from fairjudge.judges._openai import OpenAIBackend

        return OpenAIBackend(name, base_url=base_url)
    from fairjudge.judges._anthropic import AnthropicBackend

    return AnthropicBackend(name, base_url=base_url)


def _reject_options(spec: str, **options: object) -> None:
    given = [name for name, value in options.items() if value is not None]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise ConfigError(f"{flags} does not apply to the judge {spec!r}; drop it")
