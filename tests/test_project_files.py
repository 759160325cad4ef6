"""The Makefile, pyproject.toml and the README's links.

``make clean`` keeps the store; the license is an SPDX string; every picture and
document the README links to is in the repository.
"""

from __future__ import annotations

import re
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


def test_every_file_the_readme_links_is_in_the_repository() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?:docs|benchmarks)/[^)#\s]+)\)", readme)
    assert any(link.endswith(".png") for link in links)  # the pages' pictures
    missing = [link for link in links if not (ROOT / link).is_file()]
    assert not missing, f"README links to files that do not exist: {missing}"
