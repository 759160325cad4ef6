"""Headless Chromium for the HTML report tests, driven by Playwright.

The browser is Debian's ``chromium`` (``apt-get install -y chromium``; ``.ci/run``
installs it when missing); Playwright never downloads one of its own. Without it,
the browser tests are skipped with the reason; the rest of this folder still runs.
Screenshots land in ``tests/report/artifacts/`` (ignored by git).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """``$FAIRJUDGE_CHROMIUM``, else ``chromium`` on the PATH."""
    return os.environ.get("FAIRJUDGE_CHROMIUM") or shutil.which("chromium")


# Module scope, not session: Playwright's sync API keeps an event loop running in
# this thread while it is open, and later tests call asyncio.run(), which refuses to
# start inside a running loop. Closing it at the end of each module frees the thread.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        pytest.skip(
            "headless Chromium not found: `apt-get install -y chromium` "
            "(.ci/run installs it) or set FAIRJUDGE_CHROMIUM; browser tests skipped"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: pip install -e '.[dev]'")
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@dataclass
class Opened:
    """A report open in a page, with everything the page asked for and logged."""

    page: Any
    url: str
    requests: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """Console errors and warnings, and uncaught exceptions."""
        return [m for m in self.console if m.startswith(("error", "warning", "pageerror"))]

    @property
    def foreign_requests(self) -> list[str]:
        """Requests for anything but the report itself and data: URLs."""
        return [
            u for u in self.requests if u.split("#")[0] != self.url and not u.startswith("data:")
        ]

    def count(self) -> int:
        return int(self.page.get_attribute("#fj-count", "data-count"))

    def shot(self, name: str, **options: Any) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        self.page.screenshot(path=str(path), **options)
        return path


OpenReport = Callable[..., Opened]


@pytest.fixture
def open_report(browser: Any) -> Iterator[OpenReport]:
    contexts = []

    def _open(
        path: Path, *, fragment: str = "", color_scheme: str = "light", width: int = 1280
    ) -> Opened:
        context = browser.new_context(
            viewport={"width": width, "height": 900}, color_scheme=color_scheme
        )
        contexts.append(context)
        page = context.new_page()
        opened = Opened(page, path.resolve().as_uri())
        page.on("request", lambda r: opened.requests.append(r.url))
        page.on("console", lambda m: opened.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: opened.console.append(f"pageerror: {e}"))
        page.goto(opened.url + fragment)
        page.wait_for_selector("body[data-ready='1']", state="attached")
        return opened

    yield _open
    for context in contexts:
        context.close()


def run_json(*args: str) -> dict[str, Any]:
    """``fairjudge ARGS --json``'s output, which must exit 0.

    In a worker thread: while Playwright is open an event loop runs in this one.
    """
    from typer.testing import CliRunner

    from fairjudge.cli import app

    with ThreadPoolExecutor(1) as pool:
        done = pool.submit(CliRunner().invoke, app, [*args, "--json"]).result()
    assert done.exit_code == 0, done.output
    data: dict[str, Any] = json.loads(done.stdout)
    return data
