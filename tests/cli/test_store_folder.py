"""`--store DIR/` names a folder: refused before any call, as --out DIR/ is (QA41b #8).

Typer turns ``st/`` into ``Path("st")``, so the run wrote its SQLite store as a file
named ``st`` and exited 0; the library's ``store="st/"`` did the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import fairjudge
from fairjudge import ConfigError
from fairjudge.cli import app
from tests.server import JudgeServer

runner = CliRunner()
DEMO = Path(fairjudge.__file__).parent / "examples" / "demo_pairs.jsonl"


def _compare(server: JudgeServer, *store: str) -> tuple[int, str]:
    flags = ["--base-url", server.base_url, "--quiet", "--bootstrap", "50", *store]
    result = runner.invoke(app, ["compare", str(DEMO), "--judge", "openai/gpt-5.1", *flags])
    return result.exit_code, " ".join((result.stdout + result.stderr).split())


@pytest.mark.parametrize("store", [["--store", "st/"], ["--store=st/"]])
def test_a_store_ending_in_a_separator_is_refused_before_any_call(
    openai_env: JudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, said = _compare(openai_env, *store)
    assert code == 2, said
    assert "--store st/ names a folder; give a file name, e.g. st/store.sqlite" in said
    assert not Path("st").exists()
    assert openai_env.count("requests") == 0


def test_a_store_file_name_is_still_written(
    openai_env: JudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, said = _compare(openai_env, "--store", "st/cache.sqlite")
    assert code == 0, said
    assert Path("st/cache.sqlite").is_file()


def test_the_library_refuses_a_store_folder_too(tmp_path: Path) -> None:
    store = f"{tmp_path}/st/"
    with pytest.raises(ConfigError, match=r"store .*/st/ names a folder; give a file name, "
                       r"e\.g\. .*/st/store\.sqlite") as caught:  # fmt: skip
        fairjudge.compare(str(DEMO), "openai/gpt-5.1", store=store)
    assert caught.value.params == ("store",)
    assert not (tmp_path / "st").exists()
