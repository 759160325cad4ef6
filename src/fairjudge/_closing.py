"""One context-manager protocol for everything that holds a resource until closed."""

from __future__ import annotations

from types import TracebackType
from typing import Self

__all__ = ["Closing"]


class Closing:
    """``with`` support for a class with a ``close()`` that is safe to call twice.

    The store, the judge session and the judges hold connections, threads or a
    loaded model; each leaves a ``with`` block by calling its own ``close()``.
    """

    def close(self) -> None:
        """Release what the object holds; subclasses override it."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
