"""The Makefile, pyproject.toml and the README's links.

``make clean`` keeps the store; the license is an SPDX string; every picture and
document the README links to is in the repository, and so are the results of every
benchmark whose figures it cites.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

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


# Benchmarks the README cites whose results are not in the repository, and why: their
# figures stand until someone with the time runs them (each writes its results JSON).
NOT_COMMITTED = {
    "bench_local_quality": "hours of CPU: about 50 s per embedded-judge call, 800 calls",
}


def test_every_benchmark_the_readme_cites_has_its_results_in_git() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to compare with")
    listed = subprocess.run(
        ["git", "ls-files", "benchmarks/results"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"benchmarks/results/[\w.-]+\.json", readme))
    cited |= {
        f"benchmarks/results/{name}.json"
        for name in re.findall(r"benchmarks/(bench_\w+)\.py", readme)
        if name not in NOT_COMMITTED
    }
    assert cited, "the README cites no benchmark: this test reads the wrong file"
    missing = sorted(cited - set(listed))
    assert not missing, f"the README cites results that are not committed: {missing}"
