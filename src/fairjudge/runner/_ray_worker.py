"""What runs inside a Ray worker: a judge worker that makes single attempts.

The driver (:class:`~fairjudge.runner.RayExecutor`) keeps the store, the rate limits,
the budgets and the retries; a worker only turns one spec into one reply, with the
backends it holds. It is a Ray *async actor*: one process with its own event loop,
its own HTTP connection pools and, for an in-process model, its own loaded weights,
which stay loaded for the actor's life.
"""

from __future__ import annotations

import os
import pickle

from fairjudge._call import Backend, CallSpec, Completion, Route
from fairjudge._errors import FatalBackendError

__all__ = ["JudgeWorker", "Outcome", "portable"]

Outcome = tuple[bool, Completion | BaseException]
"""``(True, completion)`` or ``(False, the error the backend raised)``."""


def portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a plain error with its type and message.

    The errors of :mod:`fairjudge._errors` all do (pickling keeps their fields and
    drops their ``__cause__``, which may hold an SDK object that does not pickle).
    """
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class JudgeWorker:
    """A Ray actor that answers single attempts with the backends the driver opened."""

    def __init__(self) -> None:
        self.backends: dict[Route, Backend] = {}
        self.in_flight = 0  # the driver counts the calls each worker answered

    def where(self) -> tuple[str, int]:
        """``(node id, process id)``: where this worker runs, for reports and tests."""
        import ray

        return ray.get_runtime_context().get_node_id(), os.getpid()

    async def open(self, route: Route, blob: bytes) -> BaseException | None:
        """Build the backend for ``route`` from its pickled form; the error if it fails."""
        if route in self.backends:
            return None
        try:
            self.backends[route] = pickle.loads(blob)
        except Exception as exc:
            node, pid = self.where()
            return FatalBackendError(
                f"a Ray worker (node {node[:12]}, pid {pid}) could not set up the backend "
                f"for {route[0]}/{route[1]}: {type(exc).__name__}: {exc}. Every worker "
                "needs fairjudge with the same extras, and the key's environment variable "
                "set on its machine"
            )
        return None

    async def complete(self, route: Route, spec: CallSpec) -> Outcome:
        """One attempt of one call; the outcome as a value (see the module docstring)."""
        self.in_flight += 1
        try:
            completion = await self.backends[route].complete(spec)
        except Exception as exc:
            return False, portable(exc)
        finally:  # a cancelled attempt (the driver stopped) ends here too
            self.in_flight -= 1
        return True, completion

    def busy(self) -> int:
        """Attempts running here now: 0 soon after the driver cancels a run."""
        return self.in_flight

    def loads(self) -> int:
        """Model loads in this process: in-process backends that hold a loaded model."""
        return sum(getattr(b, "load_s", None) is not None for b in self.backends.values())

    async def close(self) -> None:
        """Close every backend (connection pools, loaded models)."""
        backends, self.backends = list(self.backends.values()), {}
        for backend in backends:
            await backend.aclose()
