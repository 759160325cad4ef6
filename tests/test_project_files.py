"""The Makefile and pyproject.toml.

``make clean`` keeps the store; the license is an SPDX string.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_make_clean_keeps_the_store() -> None:
    makefile = (ROOT / "Makefile").read_text()
    clean = makefile.split("\nclean:", 1)[1].split("\n\n", 1)[0]
    removed = [line for line in clean.splitlines() if "rm " in line]
    assert removed
    assert not any(".fairjudge" in line for line in removed)
    assert "\nclean-store:" in makefile


def test_license_is_an_spdx_string() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
