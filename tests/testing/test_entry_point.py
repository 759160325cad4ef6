"""pytest finds the plugin by itself once the wheel is installed: the ``pytest11`` entry point.

The wheel is built and installed into a fresh virtual environment (as
``tests/test_packaging.py`` does); pytest there loads ``fairjudge`` with no ``-p``,
and the wheel holds no part of ``examples/ci``, which is a repository to copy, not a
module to import.
"""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.test_packaging import _install_wheel
from tests.testing.suites import example_repo, outcome

pytestmark = pytest.mark.slow


def test_the_installed_wheel_registers_the_plugin_and_leaves_the_example_out(
    tmp_path: Path,
) -> None:
    bin_dir = _install_wheel(tmp_path)
    (wheel,) = (tmp_path / "wheels").glob("fairjudge-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        assert "[pytest11]\nfairjudge = fairjudge.testing" in archive.read(entry_points).decode()
    assert "fairjudge/testing/_plugin.py" in names
    assert not [n for n in names if n.startswith("fairjudge/examples/ci")]

    repo = example_repo(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    done = subprocess.run(
        [str(bin_dir / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--fairjudge-replay"],
        cwd=repo, env={**env, "CANDIDATE": "ckpt-7"}, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert outcome(done) == {"passed": 3}, done.stdout + done.stderr
    assert "fairjudge (replay): 3 judged run(s): 0 calls made" in done.stdout
    assert f"{tmp_path / 'venv'}" in subprocess.run(
        [str(bin_dir / "python"), "-c", "import fairjudge.testing as t; print(t.__file__)"],
        cwd=repo, capture_output=True, text=True, check=True, env=env,
    ).stdout  # fmt: skip
