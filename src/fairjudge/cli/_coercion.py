"""Option values without pydantic: Typer's coercion, done directly for plain types.

Typer 0.29 turns every option's value into its annotated type through a pydantic
``TypeAdapter`` that it builds per option on every run. Importing pydantic and
building the forty-odd adapters of ``compare`` costs 0.1-0.15 s of every command:
more than the rest of the argument parsing, and a tenth of a fully cached run.

fairjudge's options are plain: ``str``, ``int``, ``float``, ``bool``,
``pathlib.Path``, a ``Literal`` or an ``Enum`` (or a list of one of those, for an
option given several times), without Typer's ranges, clamps, custom parsers or file
arguments. :class:`PlainValue` converts the common spellings of those directly, as
Typer would: a string as is, a decimal integer or float, a path (through Typer's own
path checks), a choice (through Typer's own choice matching). A choice that matches
none is refused here, with Typer's words less the "Value error, " pydantic puts
before them. Anything else, a bad value included, goes to Typer's own adapter, so
every other error message and every edge case ("1_000", " 3", "0x10") reads exactly
as before. ``tests/cli/test_coercion.py``
checks that both agree on every option of every command.

This leans on Typer internals (``typer._coercion``), so it is used only with the Typer
version it was written against; any other version runs Typer as shipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Final, get_args

import typer

try:
    from typer._click.exceptions import BadParameter
    from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
    from typer._param_types import choice_coercion_annotation, coerce_cli_choice, coerce_cli_path
except ImportError:  # pragma: no cover - another Typer: it coerces as it always did
    SUPPORTED = False
else:
    SUPPORTED = typer.__version__.startswith("0.29.")

__all__ = ["SUPPORTED", "plain_values"]

_INT: Final = re.compile(r"[+-]?(?:0|[1-9][0-9]*)")
_FLOAT: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_MISS: Final = object()
"""The direct conversion does not apply: ask Typer's adapter."""


def plain_values(command: Any) -> None:
    """Give each plain option of ``command`` a :class:`PlainValue`.

    Options Typer has already coerced, and anything that is not plain, are left alone.
    """
    if not SUPPORTED:
        return
    make_help = getattr(command, "get_help_option", None)
    if callable(make_help) and "get_help_option" not in vars(command):

        def get_help_option(ctx: Any) -> Any:
            """Click makes ``--help`` on first use; it is plain too (a bool, default None)."""
            option = make_help(ctx)
            _give_plain([option] if option is not None else [])
            return option

        command.get_help_option = get_help_option
    _give_plain(getattr(command, "params", ()))


def _give_plain(params: Any) -> None:
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", _MISS) is not None:
            continue
        if _is_plain(descriptor):
            param._runtime_param = PlainValue(
                annotation=descriptor.annotation,
                parameter_info=descriptor.parameter_info,
                descriptor=descriptor,
            )


def _is_plain(descriptor: Any) -> bool:
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or descriptor.is_tuple:
        return False
    if info.parser is not None or getattr(info, "click_type", None) is not None:
        return False
    kind = descriptor.annotation
    if descriptor.is_list:
        (kind,) = get_args(kind)
    return _plain_kind(kind, info)


def _plain_kind(kind: Any, info: Any) -> bool:
    if kind in (bool, str):
        return True
    if kind in (int, float):
        return info.min is None and info.max is None and not info.clamp
    if kind is Path:
        return info.path_type in (None, Path)
    return choice_coercion_annotation(kind, info) is not None


if SUPPORTED:

    @dataclass(frozen=True)
    class PlainValue(RuntimeParam):
        """Typer's coercion of one plain option, without building a pydantic adapter."""

        descriptor: TypeDescriptor

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                out = self._direct(value, param, ctx)
            except BadParameter:  # a bad choice, said without pydantic's "Value error, "
                raise
            except Exception:  # Typer's adapter raises the error, in its own words
                out = _MISS
            if out is _MISS:
                adapter = build_runtime_param(self.descriptor)
                return adapter._coerce_value(value, param=param, ctx=ctx)
            return out

        def _direct(self, value: Any, param: Any, ctx: Any) -> Any:
            kind = self.annotation
            if not self.descriptor.is_list:
                return self._one(kind, value, param, ctx)
            (kind,) = get_args(kind)
            if not isinstance(value, list | tuple):
                return _MISS
            out = [self._one(kind, item, param, ctx) for item in value]
            return _MISS if any(item is _MISS for item in out) else out

        def _one(self, kind: Any, value: Any, param: Any, ctx: Any) -> Any:
            if kind is bool:  # Typer passes a bool through; None never gets here
                return value if type(value) is bool else _MISS
            if kind is str:
                return value if type(value) is str else _MISS
            if kind is int:
                if type(value) is int:
                    return value
                return int(value) if type(value) is str and _INT.fullmatch(value) else _MISS
            if kind is float:
                if type(value) is float:
                    return value
                return float(value) if type(value) is str and _FLOAT.fullmatch(value) else _MISS
            if kind is Path:
                if type(value) is str and value:
                    value = Path(value)  # what pydantic makes of a string, before the checks
                if not isinstance(value, Path):
                    return _MISS
                return coerce_cli_path(
                    value, self.parameter_info, path_type=Path, param=param, ctx=ctx
                )
            if isinstance(value, Enum) or type(value) is str:
                choice = choice_coercion_annotation(kind, self.parameter_info)
                if choice is None:
                    return _MISS
                choices, case_sensitive = choice
                try:
                    return coerce_cli_choice(
                        value, choices=choices, case_sensitive=case_sensitive, ctx=ctx
                    )
                except ValueError as exc:
                    raise BadParameter(str(exc), ctx=ctx, param=param) from exc
            return _MISS
