"""A batch the store answers entirely, served without the engine.

Every run starts the same way: drop duplicate calls and check each has a backend
(:func:`unique_calls`), then look every key up in the store at once. When the store
holds every call, as it does on a rerun of finished work, nothing else is needed:
:func:`serve_from_store` builds the same :class:`~fairjudge.runner.RunResult` the
engine would (every outcome cached, the same summary and progress), without an
event loop, a thread, a connection or a loaded model. Nothing here imports asyncio.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from fairjudge._call import Backend, CallSpec, Route, route_of
from fairjudge._errors import ConfigError
from fairjudge.runner._options import RunOptions
from fairjudge.runner._progress import make_progress
from fairjudge.runner._result import CallOutcome, RunResult
from fairjudge.runner._store import Store
from fairjudge.runner._tally import Tally

__all__ = ["serve_from_store", "unique_calls"]


def unique_calls(
    specs: Iterable[CallSpec], routes: Collection[Route]
) -> tuple[list[str], dict[str, CallSpec]]:
    """Each spec's key, and the unique specs by key; every one must have a backend.

    Raises:
        ConfigError: A spec names a backend that is not among ``routes``.
    """
    keys: list[str] = []
    unique: dict[str, CallSpec] = {}
    for spec in specs:
        key = spec.key
        keys.append(key)
        if key not in unique:
            unique[key] = spec
            if spec.route not in routes:
                raise ConfigError(
                    f"no backend for the call to {spec.backend}/{spec.model}"
                    f"{' at ' + spec.base_url if spec.base_url else ''}; "
                    f"this run has: {', '.join('/'.join(r[:2]) for r in routes)}"
                )
    return keys, unique


def serve_from_store(
    backends: Sequence[Backend],
    specs: Sequence[CallSpec],
    *,
    store: Store,
    options: RunOptions,
    on_progress: Callable[[int], None] | None = None,
) -> RunResult | None:
    """The result of a batch the store answers entirely; ``None`` when a call is missing.

    The result is the one :func:`~fairjudge.runner.run_calls` would return (every
    outcome cached, at no cost), and the progress display and ``on_progress`` see
    the same, but no event loop, thread, backend or connection is touched. Only the
    keys are read until they are known to be all there, so a batch with work left
    costs one cheap query before the engine's own lookup.

    Raises:
        ConfigError: A spec names a backend that is not among ``backends``.
    """
    keys, unique = unique_calls(specs, dict.fromkeys(route_of(b) for b in backends))
    if not store.has_all(unique):
        return None
    found = store.get_many(unique)
    if len(found) < len(unique):  # cannot happen (ok rows are final), but never guess
        return None
    tally = Tally(options, (route_of(b) for b in backends))
    tally.total = tally.cached = len(unique)
    tally.progress, tally.on_progress = make_progress(options.progress), on_progress
    tally.stopped = None
    outcomes = {
        key: CallOutcome(key, unique[key], "ok", completion=found[key], cached=True, cost_usd=0.0)
        for key in unique
    }
    if tally.progress is not None:
        tally.progress.start(tally.snapshot())
    tally._report()
    if tally.progress is not None:
        tally.progress.finish(tally.snapshot())
    return RunResult(tuple(keys), outcomes, tally.summary())
