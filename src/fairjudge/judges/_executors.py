"""Which executor a session runs its batches on: one the caller built, or one named.

``"asyncio"`` (the default), ``"ray"`` or ``"ray:ADDRESS"``. An executor built from a
name is the session's, started at the first batch the store cannot answer and shut
down with it; one given by the caller is never closed here.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from fairjudge._errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    from fairjudge.runner import Batch, Executor, RunResult

__all__ = ["EXECUTOR_NAMES", "OwnedExecutor", "open_executor", "uses_default_executor"]

EXECUTOR_NAMES = ("asyncio", "ray", "ray:ADDRESS")
"""The executor names a session accepts, as shown in error messages."""


def uses_default_executor(executor: object) -> bool:
    """Whether ``executor`` asks for nothing but the default (``None`` or ``"asyncio"``).

    A judge that calls no model (a Python callable, a replay) runs no batch, so any
    other executor does not apply to it.
    """
    return executor is None or executor == "asyncio"


def ray_address(name: str) -> str | None:
    """The Ray address a name asks for: ``None`` for a local instance.

    Raises:
        ConfigError: The name is no executor name (the message lists them).
    """
    if name == "ray":
        return None
    if name.startswith("ray://"):
        return name
    if name.startswith("ray:") and name[4:].strip():
        return name[4:].strip()
    raise ConfigError(
        f"executor={name!r} is no executor; use one of: {', '.join(EXECUTOR_NAMES)}, "
        "or an Executor object",
        params="executor",
    )


class OwnedExecutor:
    """A :class:`~fairjudge.runner.RayExecutor` the session builds on demand and shuts down.

    Built at the first :meth:`execute` (the first batch the store cannot answer), so
    a session whose every batch is cached starts no Ray at all.

    Args:
        address: The cluster's address; ``None``: ``$RAY_ADDRESS``, else a local instance.
    """

    def __init__(self, address: str | None) -> None:
        self.address = address
        self.built: Executor | None = None

    def build(self) -> Executor:
        """The Ray executor, built on the first call."""
        if self.built is None:
            from fairjudge.runner import RayExecutor

            self.built = RayExecutor(self.address)
        return self.built

    async def execute(self, batch: Batch) -> RunResult:
        """Run the batch on Ray (starting or joining it the first time)."""
        return await self.build().execute(batch)

    def close(self) -> None:
        """Shut down what :meth:`build` started (nothing when it never ran)."""
        built, self.built = self.built, None
        close = getattr(built, "close", None)
        if close is not None:
            close()

    def __repr__(self) -> str:
        where = "local" if self.address is None else self.address
        state = "started" if self.built is not None else "not started"
        return f"OwnedExecutor(ray, {where}, {state})"


def open_executor(executor: Executor | str | None) -> tuple[Executor, OwnedExecutor | None]:
    """The executor a session runs on, and the part of it the session must shut down.

    Args:
        executor: An executor object (the caller's), a name (see the module
            docstring), or ``None`` for asyncio.

    Returns:
        ``(executor, owned)``: ``owned`` is the executor when the session built it
        from a name and must close it, else ``None``.

    Raises:
        ConfigError: An unknown name, or an object that is no executor.
        MissingExtraError: A Ray executor was named but Ray is not installed.
    """
    from fairjudge.runner import AsyncioExecutor, Executor

    if uses_default_executor(executor):
        return AsyncioExecutor(), None
    if isinstance(executor, str):
        address = ray_address(executor.strip())
        if importlib.util.find_spec("ray") is None:  # checked now; imported at the first batch
            raise MissingExtraError("the Ray executor", "ray", "ray")
        owned = OwnedExecutor(address)
        return owned, owned
    if not isinstance(executor, Executor):
        raise ConfigError(
            f"executor must be an Executor (with an async execute(batch) method) or one of "
            f"{', '.join(EXECUTOR_NAMES)}; got {executor!r}",
            params="executor",
        )
    return executor, None
