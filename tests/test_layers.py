"""The layer contract: dependencies point down only, and nothing imports in a circle.

Every ``import`` in ``src/fairjudge`` counts: module level, inside functions, and
under ``if TYPE_CHECKING:``. A module may import from its own package and from any
lower layer; never from a higher one, and never from a sibling package on its own
layer. Across the whole package, the module import graph has no cycle.

Run ``python -m tests.test_layers`` to print the graph's size and any violation.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "fairjudge"
SRC = Path(__file__).resolve().parents[1] / "src" / PACKAGE

# The ground floor's modules are one layer but import each other (down this list).
GROUND_ORDER = ["_version", "_lazy", "_errors", "_call", "_redact", "_types",
                "_items"]  # fmt: skip
# Bottom up. A name is a top-level module or subpackage of fairjudge.
LAYERS: list[tuple[str, set[str]]] = [
    ("types / errors / call", set(GROUND_ORDER)),
    ("io: every reader and writer of user files", {"io"}),
    ("protocol", {"_protocol"}),
    ("prompts, stats, backends", {"prompts", "stats", "backends"}),
    ("runner", {"runner"}),
    ("judges", {"judges"}),
    ("evaluation", {"evaluation"}),
    ("audit", {"audit"}),
    ("report", {"report"}),
    ("examples", {"examples"}),  # the README's inputs and judges: only the CLI copies them
    ("notebook API", {"_api"}),  # fairjudge.compare, ...: over the report layer, beside cli
    # The pytest plugin (fairjudge.testing) is a client of the notebook API, like the CLI;
    # so are the integrations with other tools (fairjudge.integrations: Inspect AI).
    ("cli, pytest plugin, integrations", {"cli", "testing", "integrations"}),
    ("public API", {"__init__"}),
]
# Pure code never touches I/O, clocks or event loops (STYLE.md).
PURE = {"_protocol", "prompts", "stats", "_types", "_items", "_call"}
IO_MODULES = {"asyncio", "httpx", "sqlite3", "socket", "openai", "anthropic", "xllamacpp"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    return {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def imports(path: Path, name: str) -> Iterator[tuple[str, int]]:
    """Every module an import statement names (absolute form), with its line."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target, node.lineno
            for alias in node.names:  # `from pkg import submodule`
                yield f"{target}.{alias.name}", node.lineno


# Top-level modules that belong to another one's unit (a module split in two).
SAME_UNIT: dict[str, str] = {}


def top(name: str) -> str:
    """The layer unit of a module: fairjudge.<top>."""
    parts = name.split(".")
    unit = "__init__" if len(parts) == 1 else parts[1]
    return SAME_UNIT.get(unit, unit)


def layer_of(unit: str) -> int:
    for index, (_, units) in enumerate(LAYERS):
        if unit in units:
            return index
    raise AssertionError(f"fairjudge.{unit} is in no layer: add it to LAYERS")


def graph() -> dict[str, dict[str, int]]:
    """module -> {imported fairjudge module: line}."""
    mods = modules()
    edges: dict[str, dict[str, int]] = defaultdict(dict)
    for name, path in mods.items():
        for target, line in imports(path, name):
            if target in mods and target != name:
                edges[name].setdefault(target, line)
    return edges


def upward_imports() -> list[str]:
    """Imports that point up, or sideways into a sibling package of the same layer."""
    bad = []
    mods = modules()
    for name, targets in graph().items():
        src_unit = top(name)
        for target, line in targets.items():
            dst_unit = top(target)
            if dst_unit == src_unit:
                continue
            src_layer, dst_layer = layer_of(src_unit), layer_of(dst_unit)
            where = f"{mods[name].relative_to(SRC.parent)}:{line}"
            if dst_layer > src_layer:
                bad.append(f"{where}: {name} imports {target} from a higher layer")
            elif dst_layer == src_layer:
                ground = src_layer == 0 and (
                    GROUND_ORDER.index(dst_unit) < GROUND_ORDER.index(src_unit)
                )
                if not ground:
                    bad.append(f"{where}: {name} imports its sibling {target}")
    return bad


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in modules():
        if v not in index:
            visit(v)
    return found


def impure_imports() -> list[str]:
    bad = []
    mods = modules()
    for name, path in mods.items():
        if top(name) not in PURE:
            continue
        for target, line in imports(path, name):
            if target.split(".")[0] in IO_MODULES:
                bad.append(f"{path.relative_to(SRC.parent)}:{line}: pure {name} imports {target}")
    return bad


def test_every_module_has_a_layer() -> None:
    for name in modules():
        layer_of(top(name))


def test_no_upward_or_sideways_imports() -> None:
    assert upward_imports() == []


def test_no_import_cycles() -> None:
    assert cycles() == []


def private_imports() -> list[str]:
    """Imports of another package's private module (``fairjudge.stats._panel`` from evaluation).

    A package's ``__init__`` is its surface for the other layers; its private modules
    can then be split, merged or renamed without touching a caller. The ground floor's
    modules (``_types``, ``_items``, ...) are the core every layer shares, not a package.
    """
    bad = []
    mods = modules()
    for name, targets in graph().items():
        for target, line in targets.items():
            parts = target.split(".")
            if len(parts) < 3 or top(target) == top(name):
                continue
            if any(part.startswith("_") for part in parts[2:]):
                where = f"{mods[name].relative_to(SRC.parent)}:{line}"
                bad.append(f"{where}: {name} imports {target}, private to fairjudge.{parts[1]}")
    return bad


def test_no_layer_imports_another_packages_private_module() -> None:
    assert private_imports() == []


def test_pure_code_imports_no_io() -> None:
    assert impure_imports() == []


def test_the_command_line_reaches_evaluation_only_through_the_library() -> None:
    """The CLI is a client of the notebook API (issue 32): no ``cli`` module imports
    ``fairjudge.evaluation``; what it needs of it (``EvalSettings``) ``_api`` re-exports."""
    bad = [
        f"{name} imports {target} (line {line})"
        for name, targets in graph().items()
        if top(name) == "cli"
        for target, line in targets.items()
        if top(target) == "evaluation"
    ]
    assert bad == []


def test_the_checker_sees_function_level_and_type_checking_imports(tmp_path: Path) -> None:
    code = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from fairjudge.cli import app\n"
        "def f():\n    from fairjudge.runner import Store\n"
    )
    path = tmp_path / "probe.py"
    path.write_text(code)
    found = {target for target, _ in imports(path, "fairjudge.stats._probe")}
    assert {"fairjudge.cli", "fairjudge.runner.Store", "fairjudge.runner"} <= found


if __name__ == "__main__":
    g = graph()
    print(f"{len(modules())} modules, {sum(len(t) for t in g.values())} internal import edges")
    for label, check in (
        ("upward or sideways imports", upward_imports),
        ("import cycles", cycles),
        ("I/O imports in pure code", impure_imports),
    ):
        found = check()
        print(f"{label}: {len(found)}")
        for item in found:
            print(f"  {item}")
