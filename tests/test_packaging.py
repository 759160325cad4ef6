"""A wheel installed outside the checkout runs the README's offline examples.

A ``pip install`` user has no ``examples/`` folder. The wheel is
built from a copy of the sources (so no ``build/`` is left in the checkout) and
installed into a fresh venv, whose dependencies come from this venv through a
``.pth`` line (read as a path: the editable install's own ``.pth`` is not run, so
``fairjudge`` is the wheel's). The commands run from a folder with no ``examples/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, cwd=cwd, env=env, check=False
    )


def _install_wheel(tmp_path: Path) -> Path:
    """Build the wheel and install it into a fresh venv; the venv's ``bin``."""
    tree = tmp_path / "tree"
    shutil.copytree(
        ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip"]
    built = _run([*pip, "wheel", tree, "-w", wheels, "--no-deps", "-q"], tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("fairjudge-*.whl")

    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = _run([*pip, "--python", python, "install", "--no-index", "--no-deps", "-q", wheel],
                     tmp_path)  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                   tmp_path).stdout.strip()  # fmt: skip
    (Path(purelib) / "fairjudge_test_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv / "bin"


@pytest.mark.slow
def test_a_wheel_installed_elsewhere_runs_the_readme_examples(tmp_path: Path) -> None:
    bin_dir = _install_wheel(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([bin_dir / "python", "-c", "import fairjudge; print(fairjudge.__file__)"],
                 elsewhere)  # fmt: skip
    assert where.stdout.startswith(str(tmp_path / "venv")), where.stdout + where.stderr

    fairjudge = bin_dir / "fairjudge"
    wrote = _run([fairjudge, "example-data", "ex"], elsewhere)
    assert wrote.returncode == 0, wrote.stderr
    assert "ex/battles.jsonl" in wrote.stdout.splitlines()
    assert "ex/score_answers.jsonl" in wrote.stdout.splitlines()

    scorer = "python:fairjudge.examples.judges:scorer"
    scored = _run([fairjudge, "score", "ex/score_answers.jsonl", "--judge", scorer], elsewhere)
    assert scored.returncode == 0, scored.stdout + scored.stderr
    ranked = _run([fairjudge, "rank", "ex/battles.jsonl"], elsewhere)
    assert ranked.returncode == 0, ranked.stdout + ranked.stderr
    assert "96 judged battles" in ranked.stderr
    compared = _run([fairjudge, "compare", "ex/demo_pairs.jsonl", "--judge",
                     "python:fairjudge.examples.judges:knows_facts", "-q"], elsewhere)  # fmt: skip
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "The debiased result found it." in compared.stdout

    again = _run([fairjudge, "example-data", "ex"], elsewhere)
    assert again.returncode == 2
    assert "Pass --force" in again.stderr
