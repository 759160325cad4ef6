"""The README's "From Python" snippets run as written (issue 22).

The snippets sit in README.md between ``<!-- from-python:begin -->`` and
``<!-- from-python:end -->``; each ```python block runs in a fresh namespace, from
the repository root (the snippets read ``examples/``), with pandas where they use it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- from-python:begin -->", "<!-- from-python:end -->"


def snippets() -> list[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    if BEGIN not in text or END not in text:
        return []
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


@pytest.mark.parametrize("index", range(max(len(snippets()), 1)))
def test_readme_from_python_snippet_runs_as_written(
    index: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = snippets()
    if not found:
        pytest.skip("README.md has no 'From Python' section between its markers yet")
    if "pandas" in found[index]:
        pytest.importorskip("pandas")
    monkeypatch.chdir(ROOT)
    exec(compile(found[index], f"README.md snippet {index + 1}", "exec"), {"__name__": "readme"})
