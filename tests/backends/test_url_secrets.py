"""A ``--base-url`` that carries keys: sent whole on every request, shown nowhere.

``fairjudge compare`` runs as a process through each route (see
:mod:`tests.backends.url_secrets`); every file it leaves (the store and its ``-wal``,
``--out``, ``--html``) and everything it prints (``--json``, stderr) is searched for
each key, raw, decoded and percent-encoded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.backends.url_secrets import AUTH_KEY, AZURE, QUERY_KEY, UrlRun

SERVED = ("lean", "sdk", "anthropic")


@pytest.mark.parametrize("route", SERVED)
def test_no_key_in_the_base_url_reaches_any_output(tmp_path: Path, route: str) -> None:
    run = UrlRun(tmp_path, route)  # type: ignore[arg-type]
    assert run.exit_code == 0, run.stderr
    assert {"store/calls.sqlite", "out.jsonl", "report.html", "stdout", "stderr"} <= set(run.leaks)
    assert {where: n for where, n in run.leaks.items() if n} == {}
    (stored,) = run.stored_urls
    assert stored.endswith("/***/***?k%65y=***&api-version=2024-10-21&%2561uth=***")


@pytest.mark.parametrize("route", SERVED)
def test_the_query_reaches_the_server_on_every_request(tmp_path: Path, route: str) -> None:
    run = UrlRun(tmp_path, route)  # type: ignore[arg-type]
    assert len(run.queries) == 6  # three items, both orders
    expected = [("key", QUERY_KEY), AZURE, ("%61uth", AUTH_KEY)]
    assert all(query == expected for query in run.queries)


def test_an_unreachable_server_is_named_without_its_keys(tmp_path: Path) -> None:
    run = UrlRun(tmp_path, "unreachable")
    assert run.exit_code != 0
    assert "cannot reach" in run.stderr
    assert "/v1/***/***?k%65y=***&api-version=2024-10-21&%2561uth=***" in run.stderr
    assert {where: n for where, n in run.leaks.items() if n} == {}
    assert "error" in json.loads(run.stdout)
