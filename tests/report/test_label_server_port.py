"""``LabelServer``'s port is checked by the server itself: a notebook gets the command's words.

A port outside 0-65535 and a port in use are a ``ConfigError`` naming ``port`` (the
command line says ``--port``), not an ``OverflowError`` or a bare ``OSError``.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from fairjudge._errors import ConfigError
from fairjudge.io import LabelSheet
from fairjudge.report import LabelServer
from tests.report.test_label_server import write_pairs


@pytest.mark.parametrize("port", [-1, 65536, 70000, True])
def test_a_port_out_of_range_is_refused_naming_it(tmp_path: Path, port: object) -> None:
    sheet = LabelSheet.open(write_pairs(tmp_path / "p.jsonl", 2), seed=1)
    with pytest.raises(ConfigError, match=r"is not a port: give 0-65535") as caught:
        LabelServer(sheet, port)  # type: ignore[arg-type]
    assert caught.value.params == ("port",)


def test_a_port_in_use_is_refused_naming_it(tmp_path: Path) -> None:
    sheet = LabelSheet.open(write_pairs(tmp_path / "p.jsonl", 2), seed=1)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=rf"^port {port} is in use on 127\.0\.0\.1") as caught:
            LabelServer(sheet, port)
    assert caught.value.params == ("port",)
