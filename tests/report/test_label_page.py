"""``fairjudge label`` in Chromium: 20 items labelled by keyboard only, across a SIGKILL.

The command runs as a user runs it (a process of its own, serving 127.0.0.1). The
test labels 8 items, undoes and redoes one, kills the server with SIGKILL, starts
the same command again, checks that the page resumes at the first unlabelled item
with the same sides as before, labels the other 12, and then checks every stored
label against what the page showed: the side pressed, mapped to model 1 or model 2,
is what the file holds. An answer holding ``<script>`` is shown as text, and
``fairjudge calibrate`` reads the labelled file directly. Screenshots:
``tests/report/artifacts/label-page.png`` and ``label-page-done.png``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from fairjudge.io import load_items
from tests.cli_process import fairjudge
from tests.report.conftest import ARTIFACTS

ROOT = Path(__file__).resolve().parents[2]
N = 20
SCRIPT = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
KEYS = {"1": "left", "2": "right", "t": "tie"}


def write_pairs(path: Path) -> Path:
    rows = []
    for i in range(N):
        # Answer lengths differ, so the `longer` judge of calibrate is decided on each.
        rows.append({"id": f"item-{i:02d}", "question": f"Question number {i}?",
                     "answer_1": f"one {i} " + "detail " * (i % 4),
                     "answer_2": SCRIPT if i == 0 else f"two {i} " + "more " * (3 - i % 4),
                     "model_1": "system-alpha", "model_2": "system-beta"})  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


class Labelling:
    """One ``fairjudge label`` process and its page."""

    running: ClassVar[list[subprocess.Popen[str]]] = []

    def __init__(self, browser: Any, path: Path, *more: str) -> None:
        code = "from fairjudge.cli import main; main()"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, "label", str(path), "--no-open", *more], cwd=ROOT,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "COLUMNS": "200"},
        )  # fmt: skip
        Labelling.running.append(self.proc)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), "the command printed no page address"
        self.context = browser.new_context(viewport={"width": 1280, "height": 800})
        self.page = self.context.new_page()
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']", state="attached")

    def shown(self) -> tuple[int, str, str]:
        """The item on screen: its index, the left and the right answer as drawn."""
        index = int(self.page.get_attribute("#fj-main", "data-index") or "-1")
        return index, self.page.inner_text("#fj-left"), self.page.inner_text("#fj-right")

    def press(self, key: str, done: int) -> None:
        """Press ``key`` and wait until the page counts ``done`` labels, all saved."""
        self.page.keyboard.press(key)
        self.page.wait_for_function(
            "n => document.body.dataset.done === String(n) && document.body.dataset.busy !== '1'",
            arg=done,
        )

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._close()

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)  # Ctrl-C: exit 130, as any interrupted command
        assert self.proc.wait(timeout=30) == 130
        self._close()

    def _close(self) -> None:
        self.context.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def labelled(tmp_path: Path) -> Iterator[Path]:
    yield write_pairs(tmp_path / "pairs.jsonl")
    for proc in Labelling.running:  # a failed test leaves no server behind
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    Labelling.running.clear()


def stored(path: Path) -> list[str | None]:
    return [i.human.value if i.human else None for i in load_items(path).items]


def expected(left: str, right: str, side: str, item: Any) -> str:
    """The label in the file's orientation for ``side`` pressed on what was shown."""
    if side == "tie":
        return "tie"
    chosen = left if side == "left" else right
    assert chosen in (item.answer_1, item.answer_2)
    return "1" if chosen == item.answer_1 else "2"


def test_keyboard_labelling_survives_a_kill_and_stores_what_was_shown(
    browser: Any, labelled: Path
) -> None:
    items = load_items(labelled).items
    seen: dict[int, tuple[str, str, str]] = {}
    keys = ["1", "2", "t", "1", "2", "1", "2", "1"]
    first = Labelling(browser, labelled)
    assert first.shown()[0] == 0
    for n, key in enumerate(keys, start=1):
        index, left, right = first.shown()
        first.press(key, n)
        seen[index] = (left, right, KEYS[key])
    assert sorted(seen) == list(range(8))
    # Undo takes back the last label (item 7) and shows it; a new key labels it again.
    first.press("u", 7)
    assert first.shown()[0] == 7
    assert stored(labelled)[7] is None
    index, left, right = first.shown()
    first.press("2", 8)
    seen[7] = (left, right, "right")
    assert first.page.inner_text("#fj-progress-text") == "8 / 20 labelled"
    ARTIFACTS.mkdir(exist_ok=True)
    first.page.screenshot(path=str(ARTIFACTS / "label-page.png"))
    assert first.console == []
    first.kill()  # SIGKILL: no handler runs, nothing is flushed on the way out

    on_disk = stored(labelled)
    assert sum(label is not None for label in on_disk) == 8
    assert on_disk[8:] == [None] * 12

    second = Labelling(browser, labelled)
    assert second.page.inner_text("#fj-progress-text") == "8 / 20 labelled"
    assert second.shown()[0] == 8  # resumed at the first unlabelled item
    for _ in range(8):  # back to the first item: the same sides as before the kill
        second.page.keyboard.press("ArrowLeft")
    assert second.shown()[0] == 0
    assert second.shown()[1:] == seen[0][:2]
    second.page.screenshot(path=str(ARTIFACTS / "label-page-script.png"))
    assert second.page.get_attribute("#fj-main", "data-label") == seen[0][2]
    for _ in range(8):
        second.page.keyboard.press("ArrowRight")
    assert second.shown()[0] == 8
    more = ["t", "1", "2", "2", "1", "t", "1", "2", "2", "1", "1", "2"]
    for n, key in enumerate(more, start=9):
        index, left, right = second.shown()
        second.press(key, n)
        seen[index] = (left, right, KEYS[key])
    assert sorted(seen) == list(range(N))
    assert second.page.get_attribute("body", "data-complete") == "1"
    second.page.screenshot(path=str(ARTIFACTS / "label-page-done.png"))

    # The <script> answer was drawn as text: shown whole, nothing ran, no element made.
    assert SCRIPT in seen[0][:2]
    assert second.page.evaluate("window.pwned") is None
    assert second.page.evaluate("document.querySelectorAll('script, img').length") == 1
    assert second.console == []
    second.stop()

    on_disk = stored(labelled)
    assert on_disk == [expected(*seen[i], items[i]) for i in range(N)]
    swapped = json.loads(labelled.with_name("pairs.jsonl.label.json").read_text())
    for i, item in enumerate(items):  # the recorded order is the order that was shown
        left = seen[i][0]
        assert swapped["shown_swapped"][str(item.id)] == (left == item.answer_2)
    assert set(on_disk) == {"1", "2", "tie"}

    calibrated = fairjudge("calibrate", labelled, "--judge", "python:examples.judges:longer",
                           "--json")  # fmt: skip
    assert calibrated.returncode in (0, 3), calibrated.stderr
    result = json.loads(calibrated.stdout)
    assert result["agreement"]["n"] == N


DIMS = ("accuracy", "relevance", "usefulness")  # the production rubric, scored 1-5


def test_rubric_scores_by_keyboard_across_a_kill(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    rows = [{"id": f"q{i // 2}", "question": f"Question {i // 2}?",
             "answer": f"Answer number {i} " + "so " * i, "system": f"system-{i % 2}"}
            for i in range(6)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    given: dict[str, list[int]] = {}  # answer shown -> its scores, in DIMS order
    plan = [["4", "2", "5"], ["1", "3", "3"], ["5", "5", "4"], ["2", "1", "2"],
            ["3", "4", "1"], ["5", "2", "3"]]  # fmt: skip

    def score_item(session: Labelling, keys: list[str], done: int) -> None:
        answer = session.page.inner_text("#fj-answer")
        assert session.page.get_attribute("#fj-main", "data-focus") == "0"
        for k, key in enumerate(keys):
            session.press(key, done if k == len(keys) - 1 else done - 1)
        given[answer] = [int(key) for key in keys]

    first = Labelling(browser, path, "--rubric", "production")
    assert first.page.get_attribute("body", "data-kind") == "scores"
    assert "system-" not in first.page.inner_text("body")  # the system's name is hidden
    for n, keys in enumerate(plan[:2], start=1):
        score_item(first, keys, n)
    # One score of the third item, then the kill: that score is on disk too.
    third = first.page.inner_text("#fj-answer")
    first.page.keyboard.press(plan[2][0])
    first.page.wait_for_function(
        "() => document.querySelector('#fj-main').dataset.focus === '1'"
        " && document.body.dataset.busy !== '1'"
    )
    first.kill()
    row = next(json.loads(x) for x in path.read_text().splitlines() if third in x)
    assert row["human_accuracy"] == int(plan[2][0])

    second = Labelling(browser, path)  # the rubric's default is production too
    assert second.page.inner_text("#fj-progress-text") == "2 / 6 labelled"
    assert second.page.inner_text("#fj-answer") == third  # resumed on the unfinished item
    assert second.page.get_attribute("#fj-main", "data-focus") == "1"
    second.press(plan[2][1], 2)
    second.press(plan[2][2], 3)
    given[third] = [int(k) for k in plan[2]]
    # Undo the last score: the third item is unfinished again and shown.
    second.press("u", 2)
    assert second.page.inner_text("#fj-answer") == third
    second.press(plan[2][2], 3)
    for n, keys in enumerate(plan[3:], start=4):
        score_item(second, keys, n)
    assert second.page.get_attribute("body", "data-complete") == "1"
    second.page.screenshot(path=str(ARTIFACTS / "label-page-rubric.png"))
    assert second.console == []
    second.stop()

    on_disk = {json.loads(x)["answer"]: json.loads(x) for x in path.read_text().splitlines()}
    assert set(given) == set(on_disk)
    for answer, scores in given.items():
        assert [on_disk[answer][f"human_{d}"] for d in DIMS] == scores
    calibrated = fairjudge("calibrate", path, "--judge", "python:fairjudge.examples.judges:scorer",
                           "--rubric", "production", "--json")  # fmt: skip
    assert calibrated.returncode in (0, 3, 7), calibrated.stderr
    result = json.loads(calibrated.stdout)
    assert result["n_items"] == 6
    assert [d["n"] for d in result["dimensions"]] == [6, 6, 6]  # every human score read
