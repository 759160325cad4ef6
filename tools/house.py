"""The house measures of issue 32's Targets table: print them, write them as JSON.

Run ``python tools/house.py`` from anywhere in the checkout; it prints a table of each
measure against its target and writes ``tools/house.json`` (``--json PATH`` elsewhere,
``--json -`` prints the JSON instead). Git history keeps each run that was committed,
so a figure's before and after are two commits of that file.

What each measure counts, so that two runs on two trees compare:

- **code lines**: lines of a ``.py`` file under ``src/fairjudge`` that are not blank,
  not a comment and not part of a docstring (:func:`code_lines`; the 400-line cap in
  ``tests/test_structure.py`` uses the same function).
- **CLI modules importing evaluation**: modules under ``cli/`` with any import of
  ``fairjudge.evaluation`` (at module level, in a function or under ``TYPE_CHECKING``).
- **HTML renderers**: the jinja2 templates (``*.j2``) that hold a whole HTML document
  (``<!DOCTYPE html>``), each a renderer together with the modules that load it:
  the page kit's ``page.html.j2`` with ``report/_page.py``. Partials
  (``plots.html.j2``) and the labelling form (``label.html``, a static asset, not a
  result page) are not renderers.
- **names outside __all__**: each (importing module, package, name) where a module
  imports ``name`` from package ``X`` (``from fairjudge.X._mod import name``,
  ``from fairjudge.X import name`` or the relative forms), ``X`` is not the importer's
  own top-level package, and ``name`` is not in ``__all__`` of ``X`` (of the nearest
  package that defines one). Importing a private module
  whole (``import fairjudge.X._mod``) counts once. Names from the core modules at the
  root (``fairjudge._types``) are listed apart, for information.
- **duplicates**: the pairs the ``duplicates`` command (on PATH, or ``n/a``) lists for
  ``src/fairjudge`` with at least 6 shared lines; non-boilerplate pairs are those it
  does not mark ``boilerplate``, identical ones those not found "by shape alone".
  Whether a pair is a real logic copy takes a reader; the rows are in the JSON.
  Beside it, for information, the non-boilerplate pairs whose named run is code on
  at least one side: a run made only of imports, ``__all__``, docstrings,
  ``def``/``class`` headers and class fields on both sides is a declaration
  (:func:`declaration_lines`).
- **module docstring lines**: the lines the module docstrings of ``src/fairjudge``
  span, ``stats/`` left out (its method descriptions are exempt); the total with
  ``stats/`` and the docstrings over 20 lines are reported beside it.
- **modules**: ``.py`` files under ``src/fairjudge``.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "fairjudge"
DEFAULT_JSON = ROOT / "tools" / "house.json"
LONG_DOCSTRING = 20


def docstring_of(node: ast.AST) -> ast.Expr | None:
    """The docstring statement of a module, class or function node; ``None`` for others."""
    body = getattr(node, "body", None)
    first = body[0] if isinstance(body, list) and body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def code_lines(source: str) -> int:
    """Lines of code: not blank, not a comment, not part of a docstring.

    The module cap measures what a reader has to follow, so a module's documentation
    never pushes it over (a long docstring that explains why is welcome).
    """
    docstring_lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if (doc := docstring_of(node)) is not None:
            docstring_lines.update(range(doc.lineno, (doc.end_lineno or doc.lineno) + 1))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#") and number not in docstring_lines
    )


@dataclass(frozen=True, slots=True)
class Module:
    """One source module: its dotted name, path and parsed tree."""

    name: str
    path: Path
    tree: ast.Module

    @property
    def relative(self) -> str:
        """The path below ``src/fairjudge``, as the tables print it."""
        return self.path.relative_to(SRC).as_posix()

    @property
    def top(self) -> str:
        """The top-level package it belongs to; ``""`` for the root's own modules."""
        parts = self.path.relative_to(SRC).parts
        return parts[0] if len(parts) > 1 else ""


def modules(src: Path = SRC) -> list[Module]:
    """Every module under ``src``, sorted by path, caches left out."""
    found = []
    for path in sorted(src.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = ["fairjudge", *path.relative_to(src).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found.append(Module(".".join(parts), path, ast.parse(path.read_text("utf-8"))))
    return found


def _imports(module: Module) -> list[tuple[str, str | None]]:
    """``(imported module, name or None)`` for each import, relative ones resolved."""
    package = module.name if module.path.name == "__init__.py" else module.name.rpartition(".")[0]
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found += [(base, alias.name) for alias in node.names]
    return found


def _all_of(package_init: Path) -> set[str] | None:
    """The literal ``__all__`` of a package's ``__init__.py``; None where it has none."""
    for node in ast.parse(package_init.read_text("utf-8")).body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else []
        )
        value = getattr(node, "value", None)
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(
            value, ast.List | ast.Tuple
        ):
            return {
                e.value
                for e in value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return None


def _public_of(dotted: str) -> tuple[str, set[str]]:
    """The nearest package above (or at) ``dotted`` that defines ``__all__``, and it."""
    parts = dotted.split(".")
    while parts:
        init = SRC.joinpath(*parts[1:], "__init__.py")
        if init.is_file() and (names := _all_of(init)) is not None:
            return ".".join(parts), names
        parts.pop()
    return "fairjudge", set()


def names_outside_all(found: list[Module]) -> tuple[list[str], list[str]]:
    """Cross-package uses of names outside ``__all__``: (packages', root core modules')."""
    packages: set[str] = set()
    core: set[str] = set()
    for module in found:
        for target, name in _imports(module):
            parts = target.split(".")
            if parts[0] != "fairjudge" or len(parts) < 2:
                continue
            top = parts[1]
            is_package = SRC.joinpath(top).is_dir()
            if is_package and top == module.top:
                continue
            owner, public = _public_of(target)
            if name is None:
                if any(p.startswith("_") for p in parts[2:]):
                    packages.add(f"{module.relative}: import {target}")
                continue
            if name in public or (owner == target and name.startswith("__")):
                continue
            row = f"{module.relative}: {target}.{name}"
            if is_package:
                packages.add(row)
            elif module.top:  # the root's modules import each other freely
                core.add(row)
    return sorted(packages), sorted(core)


def cli_modules_importing_evaluation(found: list[Module]) -> list[str]:
    """The ``cli/`` modules with any import of ``fairjudge.evaluation``."""
    return [
        m.relative
        for m in found
        if m.top == "cli"
        and any(
            t == "fairjudge.evaluation" or t.startswith("fairjudge.evaluation.")
            for t, _ in _imports(m)
        )
    ]


def html_renderers(found: list[Module]) -> dict[str, list[str]]:
    """Each whole-document jinja2 template, with the modules that load it by name."""
    renderers = {}
    for template in sorted(SRC.rglob("*.j2")):
        if "<!doctype html" not in template.read_text("utf-8").lower():
            continue
        pattern = re.compile(rf"""["']{re.escape(template.name)}["']""")
        renderers[template.relative_to(SRC).as_posix()] = [
            m.relative for m in found if pattern.search(m.path.read_text("utf-8"))
        ]
    return renderers


def docstring_lines(found: list[Module]) -> dict[str, int]:
    """Each module's docstring length in lines (0 where it has none)."""
    lengths = {}
    for module in found:
        doc = docstring_of(module.tree)
        lengths[module.relative] = (doc.end_lineno or doc.lineno) - doc.lineno + 1 if doc else 0
    return lengths


_ROW = re.compile(r"^D\d+ (?P<a>\S+) ~ (?P<b>\S+)(?P<rest>.*)$")
_PLACE = re.compile(r"^(?P<path>.+):(?P<start>\d+)-(?P<end>\d+)$")
_THIN = re.compile(r"^[\s()\[\]{},:]*$")


def declaration_lines(source: str) -> set[int]:
    """Lines that declare rather than compute: imports, ``__all__``, docstrings, signatures.

    Also a class's annotated fields (a dataclass's, or a flag bundle's options).

    ``duplicates`` passes over one-line imports, but the names inside a bracketed
    import, an ``__all__`` list, a docstring and a ``def``'s parameter list are text to
    it; two modules that import the same names, or two functions that take the same
    keywords, read as a copy. None of these is logic that could be written once
    (each module must import what it uses), so :func:`logic_pairs` sets them apart.
    """
    lines: set[int] = set()

    def span(node: ast.AST, end: int | None = None) -> None:
        first = getattr(node, "lineno", 0)
        lines.update(range(first, (end if end is not None else node.end_lineno or first) + 1))

    for node in ast.walk(ast.parse(source)):
        exported = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        )
        if exported or isinstance(node, ast.Import | ast.ImportFrom):
            span(node)
        elif isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            span(node, node.lineno)  # the guard line; its imports are spanned on their own
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for decorator in node.decorator_list:
                span(decorator)
            span(node, node.body[0].lineno - 1)  # the header, up to its first statement
            if isinstance(node, ast.ClassDef):  # a dataclass's fields, a Flags bundle's options
                for field in node.body:
                    if isinstance(field, ast.AnnAssign):
                        span(field)
        if (doc := docstring_of(node)) is not None:
            span(doc)
    return lines


def _declarations_only(place: str, cache: dict[str, tuple[list[str], set[int]]]) -> bool:
    """Whether every line of ``place`` (``path:start-end``) that holds code declares."""
    match = _PLACE.match(place)
    if match is None:
        return False
    path = match["path"]
    if path not in cache:
        source = (SRC / path).read_text("utf-8")
        cache[path] = (source.splitlines(), declaration_lines(source))
    text, declared = cache[path]
    for number in range(int(match["start"]), int(match["end"]) + 1):
        line = text[number - 1].strip() if number <= len(text) else ""
        if line.startswith("#") or _THIN.match(line) or number in declared:
            continue
        return False
    return True


def logic_pairs(rows: list[re.Match[str]]) -> list[str]:
    """The non-boilerplate rows whose named run is code on at least one side.

    A row names its longest shared run only (``+N more runs`` are not placed), so a
    row counts as declarations when that run is; the others are the real candidates
    for "a logic copy", each still to be read.
    """
    cache: dict[str, tuple[list[str], set[int]]] = {}
    return [
        row.string
        for row in rows
        if "boilerplate" not in row["rest"]
        and not (_declarations_only(row["a"], cache) and _declarations_only(row["b"], cache))
    ]


def duplicates() -> dict[str, object] | None:
    """The pairs ``duplicates`` lists for ``src/fairjudge``; None where it is not on PATH."""
    command = shutil.which("duplicates")
    if command is None:
        return None
    out = subprocess.run(
        [command, "--repo", str(SRC), "--most", "200", "--seconds", "300"],
        capture_output=True, text=True, check=False, cwd=SRC,
    ).stdout  # fmt: skip
    rows = [m for line in out.splitlines() if (m := _ROW.match(line))]
    notes = [line for line in out.splitlines() if line.startswith(("left out:", "incomplete:"))]
    more = re.search(r"\(\+(\d+) more pairs\)", out)
    shape = [r for r in rows if " shape" in r["rest"]]
    boilerplate = [r for r in rows if "boilerplate" in r["rest"]]
    logic = logic_pairs(rows)
    return {
        "pairs": len(rows) + (int(more[1]) if more else 0),
        "non_boilerplate": len(rows) - len(boilerplate),
        "non_boilerplate_code": len(logic),
        "code_rows": logic,
        "identical": len(rows) - len(shape),
        "rows": [line for line in out.splitlines() if _ROW.match(line)],
        "notes": notes,
    }


def measure() -> dict[str, object]:
    """Every measure of the Targets table, with the lists behind the counts."""
    found = modules()
    lines = {m.relative: code_lines(m.path.read_text("utf-8")) for m in found}
    docs = docstring_lines(found)
    outside, core = names_outside_all(found)
    renderers = html_renderers(found)
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", "src"], cwd=ROOT, capture_output=True, text=True
    ).stdout.splitlines()
    return {
        "commit": head or None,
        "uncommitted_src_files": len(changed),
        "src_code_lines": sum(lines.values()),
        "cli_code_lines": sum(n for path, n in lines.items() if path.startswith("cli/")),
        "cli_modules_importing_evaluation": cli_modules_importing_evaluation(found),
        "html_renderers": renderers,
        "names_outside_all": outside,
        "core_names_outside_all": core,
        "duplicates": duplicates(),
        "module_docstring_lines": sum(n for p, n in docs.items() if not p.startswith("stats/")),
        "module_docstring_lines_with_stats": sum(docs.values()),
        "module_docstrings_over_20_lines": sorted(
            p for p, n in docs.items() if n > LONG_DOCSTRING and not p.startswith("stats/")
        ),
        "modules": len(found),
    }


def table(figures: dict[str, object]) -> list[tuple[str, str, str]]:
    """``(measure, figure, target)`` rows, in the order of the issue's table."""

    def count(key: str) -> int:
        value = figures[key]
        return len(value) if isinstance(value, list | dict) else int(str(value))

    dup = figures["duplicates"]
    dup_figure = (
        "n/a (no `duplicates` on PATH)"
        if not isinstance(dup, dict)
        else f"{dup['pairs']} pairs, {dup['non_boilerplate']} non-boilerplate,"
        f" {dup['identical']} identical"
    )
    code_figure = "n/a" if not isinstance(dup, dict) else str(dup["non_boilerplate_code"])
    return [
        ("code lines in src/", f"{count('src_code_lines'):,}", "<= 23,000"),
        ("cli/ code lines", f"{count('cli_code_lines'):,}", "<= 1,500"),
        ("CLI modules importing evaluation", str(count("cli_modules_importing_evaluation")), "0"),
        ("HTML renderers", str(count("html_renderers")), "1"),
        ("names used across packages outside __all__", str(count("names_outside_all")), "0"),
        ("  (info) core names outside fairjudge.__all__", str(count("core_names_outside_all")), ""),
        ("duplicates pairs", dup_figure, "non-boilerplate <= 10"),
        ("  (info) non-boilerplate pairs that are not declarations", code_figure, ""),
        (
            "module docstring lines (stats/ exempt)",
            f"{count('module_docstring_lines'):,}",
            "<= 1,800",
        ),
        ("  (info) with stats/", f"{count('module_docstring_lines_with_stats'):,}", ""),
        (
            "  (info) module docstrings over 20 lines",
            str(count("module_docstrings_over_20_lines")),
            "",
        ),
        ("modules", str(count("modules")), "<= 170"),
    ]


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--json", default=str(DEFAULT_JSON), help="where to write the figures ('-': print them)"
    )
    args = parser.parse_args(argv)
    figures = measure()
    text = json.dumps(figures, indent=2) + "\n"
    if args.json == "-":
        sys.stdout.write(text)
        return 0
    rows = table(figures)
    width = max(len(r[0]) for r in rows)
    fig_width = max(len(r[1]) for r in rows)
    print(f"{'measure':<{width}}  {'figure':>{fig_width}}  target")
    for name, figure, target in rows:
        print(f"{name:<{width}}  {figure:>{fig_width}}  {target}")
    Path(args.json).write_text(text, encoding="utf-8")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
