"""The labelling server over HTTP on 127.0.0.1: what it shows, stores and refuses."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fairjudge.io import LabelSheet, ScoreSheet, load_items
from fairjudge.prompts import get_rubric
from fairjudge.report import LabelServer

SCRIPT = '<script>window.pwned = 1</script><img src=x onerror="window.pwned=2">'


def write_pairs(path: Path, n: int) -> Path:
    rows = [
        {"id": f"gpt-vs-claude-{i}", "question": f"Question {i}?", "answer_1": f"one {i}",
         "answer_2": SCRIPT if i == 0 else f"two {i}", "model_1": "gpt-4o",
         **({"answer_1": "one 1\u202e"} if i == 1 else {}),
         "model_2": "claude-3"}
        for i in range(n)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def served(tmp_path: Path) -> Iterator[LabelServer]:
    server = LabelServer(LabelSheet.open(write_pairs(tmp_path / "p.jsonl", 6), seed=11))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    thread.join()


def post(server: LabelServer, body: object, **headers: str) -> httpx.Response:
    return httpx.post(server.url + "api/label", content=json.dumps(body),
                      headers={"Content-Type": "application/json", **headers})  # fmt: skip


def test_the_page_is_served_with_a_policy_that_runs_only_its_script(served: LabelServer) -> None:
    page = httpx.get(served.url)
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "script-src 'sha256-" in policy
    assert "connect-src 'self'" in policy
    assert page.headers["referrer-policy"] == "no-referrer"  # the token stays in this tab
    assert served.url.startswith("http://127.0.0.1:")


def test_the_state_hides_names_and_ids_and_shows_sides(served: LabelServer) -> None:
    state = httpx.get(served.url + "api/state").json()
    text = json.dumps(state)
    for hidden in ("gpt-4o", "claude-3", "gpt-vs-claude", "model_1", "answer_1"):
        assert hidden not in text
    sheet = served.sheet
    for shown, item in zip(state["items"], sheet.items, strict=True):
        model_2_left = shown["left"].startswith("two") or shown["left"] == SCRIPT
        assert model_2_left == item.swapped
    assert SCRIPT in (state["items"][0]["left"], state["items"][0]["right"])  # data, as is
    answers = {a for i in state["items"] for a in (i["left"], i["right"])}
    assert "one 1⟨U+202E⟩" in answers  # a bidi override is shown as a marker
    assert not any("\u202e" in a for a in answers)
    assert state["labels"] == [None] * 6


def test_a_posted_side_is_stored_in_the_files_orientation(served: LabelServer) -> None:
    state = httpx.get(served.url + "api/state").json()
    for index, shown in enumerate(state["items"]):
        reply = post(served, {"index": index, "side": "left"})
        assert reply.status_code == 200
        assert reply.json()["done"] == index + 1
        stored = load_items(served.sheet.path).items[index].human
        assert stored is not None
        # The answer shown on the left is the one the stored label names.
        left_is_one = shown["left"].startswith(f"one {index}")
        assert stored.value == ("1" if left_is_one else "2")
    assert post(served, {"index": 2, "side": None}).status_code == 200
    assert load_items(served.sheet.path).items[2].human is None
    assert httpx.get(served.url + "api/state").json()["labels"][3] == "left"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"index": 6, "side": "left"}, "index must be an item number from 0 to 5"),
        ({"index": True, "side": "left"}, "index must be"),
        ({"index": 0, "side": "1"}, "side must be"),
        ({"index": 0}, "send {"),
        ([0, "left"], "send {"),
    ],
)
def test_a_bad_label_is_refused_and_nothing_is_written(
    served: LabelServer, body: object, message: str
) -> None:
    before = served.sheet.path.read_bytes()
    reply = post(served, body)
    assert reply.status_code == 400
    assert message in reply.json()["error"]
    assert served.sheet.path.read_bytes() == before


def test_requests_without_the_token_or_from_another_host_are_refused(
    served: LabelServer,
) -> None:
    base = f"http://127.0.0.1:{served.port}"
    assert httpx.get(base + "/").status_code == 404
    assert httpx.get(base + "/label/wrong-token/api/state").status_code == 404
    forged = served.url.replace(served.token, served.token[:-1] + "x")
    assert httpx.post(forged + "api/label", json={"index": 0, "side": "left"}).status_code == 404
    # DNS rebinding: a page at evil.example resolving to 127.0.0.1 sends its own Host.
    rebound = httpx.get(served.url + "api/state", headers={"Host": f"evil.example:{served.port}"})
    assert rebound.status_code == 403
    assert httpx.get(served.url, headers={"Host": f"localhost:{served.port}"}).status_code == 200
    assert served.sheet.done == 0


def test_only_json_is_taken_as_a_label(served: LabelServer) -> None:
    form = httpx.post(served.url + "api/label", content="index=0&side=left",
                      headers={"Content-Type": "application/x-www-form-urlencoded"})  # fmt: skip
    assert form.status_code == 415
    garbled = httpx.post(served.url + "api/label", content="{not json",
                         headers={"Content-Type": "application/json"})  # fmt: skip
    assert garbled.status_code == 400
    assert served.sheet.done == 0


def test_a_write_that_fails_is_reported_not_claimed(served: LabelServer, tmp_path: Path) -> None:
    served.sheet.path = tmp_path / "gone" / "p.jsonl"  # a folder that does not exist
    reply = post(served, {"index": 0, "side": "tie"})
    assert reply.status_code == 500
    assert "not saved" in reply.json()["error"]
    assert served.sheet.labels[0] is None


def test_a_scoring_sheet_is_served_blind_and_scores_land_on_their_rows(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    rows = [{"id": f"gpt-{i}", "question": f"Q{i}?", "answer": f"answer {i}",
             "system": "gpt-4o" if i % 2 else "claude-3"} for i in range(5)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rubric = get_rubric("production")
    sheet = ScoreSheet.open(path, dimensions=rubric.names, scale=rubric.scale, seed=2)
    server = LabelServer(sheet, rubric=rubric)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        state = httpx.get(server.url + "api/state").json()
        text = json.dumps(state)
        for hidden in ("gpt-4o", "claude-3", "gpt-", "system"):
            assert hidden not in text
        assert state["kind"] == "scores"
        assert state["scale"] == [1, 5]
        assert [d["name"] for d in state["dimensions"]] == list(rubric.names)
        shown = state["items"][0]["answer"]
        reply = post(server, {"index": 0, "dimension": "accuracy", "score": 5})
        assert reply.status_code == 200
        on_disk = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
        assert [r.get("human_accuracy") for r in on_disk if r["answer"] == shown] == [5]
        assert sum("human_accuracy" in r for r in on_disk) == 1
        for body, message in [
            ({"index": 0, "dimension": "accuracy", "score": 9}, "off the rubric's scale"),
            ({"index": 0, "dimension": "tone", "score": 3}, "not one of"),
            ({"index": 0, "dimension": "accuracy", "score": 2.5}, "whole number"),
            ({"index": 0, "side": "left"}, "send {"),
        ]:
            refused = post(server, body)
            assert refused.status_code == 400
            assert message in refused.json()["error"]
    finally:
        server.shutdown()
        thread.join()
