"""The config file's reader and writer: untrusted TOML in, TOML that reads back out."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge import InputError
from fairjudge.io import dump_config, read_config
from fairjudge.io._config_file import key_line

_SCALARS = (
    st.text()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.booleans()
)
_KEYS = st.text(min_size=1)


@given(st.dictionaries(_KEYS, _SCALARS | st.lists(_SCALARS, max_size=4), max_size=6))
def test_everything_written_reads_back_as_written(table: dict[str, object]) -> None:
    text = dump_config(table, comment="a comment\nover two lines")
    assert tomllib.loads(text) == table


def test_infinities_and_nan_are_toml_words() -> None:
    read = tomllib.loads(dump_config({"a": math.inf, "b": -math.inf, "c": math.nan}))
    assert read["a"] == math.inf
    assert read["b"] == -math.inf
    assert math.isnan(read["c"])


def test_a_value_of_another_type_is_a_bug_said_plainly() -> None:
    with pytest.raises(TypeError, match="a config value is a string, number, boolean or array"):
        dump_config({"a": {"b": 1}})


def test_a_keys_line_is_found_bare_or_quoted() -> None:
    text = 'command = "rank"\n\n# seed = 1\n  "seed" = 2\n\'max-calls\' = 3\nx.y = 4\n'
    assert key_line(text, "command") == 1
    assert key_line(text, "seed") == 4
    assert key_line(text, "max-calls") == 5
    assert key_line(text, "missing") is None
    assert key_line(text, "x") == 6


def test_a_table_is_refused_naming_its_header_line(tmp_path: Path) -> None:
    path = tmp_path / "eval.toml"
    path.write_text('command = "rank"\n\n[limits]\nmax-calls = 3\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"eval.toml:3: limits: a config file is one flat table"):
        read_config(path)
    path.write_text('command = "rank"\nlimits.max-calls = 3\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"eval.toml:2: limits: a config file is one flat"):
        read_config(path)
    path.write_text('command = "rank"\njudge = [["a"]]\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"eval.toml:2: judge: a config file is one flat table"):
        read_config(path)


def test_it_is_read_as_an_untrusted_file(tmp_path: Path) -> None:
    path = tmp_path / "eval.toml"
    path.write_bytes(b'command = "r\xffank"\n')
    with pytest.raises(InputError, match="is not UTF-8"):
        read_config(path)
    path.write_text("x" * (2**20 + 1), encoding="utf-8")
    with pytest.raises(InputError, match="is larger than 1 MiB"):
        read_config(path)
    with pytest.raises(InputError, match="it is a directory, not a regular file"):
        read_config(tmp_path)
    path.write_text('command = "rank"\nfile = \n', encoding="utf-8")
    with pytest.raises(InputError, match=r"not valid TOML: .*line 2"):
        read_config(path)


@pytest.mark.parametrize("version", ["2", "1.0", '"1"', "true"])
def test_an_unknown_schema_version_is_refused_by_the_reader(tmp_path: Path, version: str) -> None:
    path = tmp_path / "eval.toml"
    path.write_text(f'command = "rank"\nschema_version = {version}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"eval\.toml:2: schema_version: .* is unknown; this "
                       r"fairjudge reads 1"):  # fmt: skip
        read_config(path)
    path.write_text('command = "rank"\nschema_version = 1\n', encoding="utf-8")
    assert read_config(path).data["schema_version"] == 1
