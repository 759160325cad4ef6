"""Why a run stopped early, in words that say what to do next.

Three errors stop a whole run rather than one call: a backend error that retrying
cannot fix for any call (bad key, unknown model, bad parameter), an address where
nothing answered on any attempt while nothing there had answered before in the run,
and a backend that rejected every one of its first calls, accepting none. All
are re-raised as :class:`fairjudge.FatalBackendError` with a message that names
the backend, says how many finished calls are safe in the store, and how to go on.
"""

from __future__ import annotations

from fairjudge._call import Backend
from fairjudge._errors import EndpointUnreachable, FatalBackendError, RequestRejected
from fairjudge._redact import scrub
from fairjudge.runner._limits import RetryPolicy

__all__ = ["stop_error"]


def stop_error(
    exc: FatalBackendError | EndpointUnreachable | RequestRejected,
    backend: Backend,
    finished: int,
    store_path: str,
    retry: RetryPolicy,
) -> FatalBackendError:
    """The error that stops the run, its message scrubbed of anything secret."""
    kept = f"The {finished} calls finished so far are kept in the store {store_path}"
    if isinstance(exc, EndpointUnreachable):
        tries = min(retry.max_attempts, retry.max_unreachable_attempts)
        attempts = f"{tries} {'try' if tries == 1 else 'tries'}"
        unreachable = FatalBackendError(
            scrub(
                f"{str(exc).rstrip('.')}. Nothing answered at "
                f"{backend.base_url or backend.name} on any attempt ({attempts}), so the "
                "run stopped instead of retrying every call: check that the server is "
                f"running at base_url. {kept}."
            )
        )
        unreachable.params = ("base_url",)  # the command line names its flag
        return unreachable
    if isinstance(exc, RequestRejected):
        return FatalBackendError(
            scrub(
                f"{str(exc).rstrip('.')}. The first calls to {backend.name}/{backend.model} "
                "were all rejected and none was accepted, so the run stopped instead of "
                f"sending every call to be rejected: check the judge's options. {kept}."
            )
        )
    text = str(exc).rstrip(".")
    if backend.model not in text:  # well-behaved backends already say where
        where = f" at {backend.base_url}" if backend.base_url else ""
        text = f"{backend.name} judge {backend.model!r}{where}: {text}"
    message = scrub(
        f"{text}. Stopped the run, because retrying cannot fix this error. "
        f"{kept}; fix the problem and run again to continue from there."
    )
    try:
        return type(exc)(message)
    except TypeError:  # a subclass with another signature
        return FatalBackendError(message)
