"""The batch emulators refuse what the real batch APIs refuse, with their error bodies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.server import Script
from tests.server._batch_emulator import BatchScript, BatchServer

BODY = {
    "model": "gpt-4o-mini",
    "messages": [
        {"role": "user", "content": "<answer_a>\nx\n</answer_a>\n<answer_b>\nyy\n</answer_b>"}
    ],
}


@pytest.fixture
def server() -> Iterator[BatchServer]:
    with BatchServer(Script(judge="longer"), BatchScript(delay_polls=0)) as running:
        yield running


@pytest.fixture
def openai(server: BatchServer) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {server.api_key}"}
    with httpx.Client(base_url=server.base_url, headers=headers) as client:
        yield client


@pytest.fixture
def anthropic(server: BatchServer) -> Iterator[httpx.Client]:
    headers = {"x-api-key": str(server.api_key), "anthropic-version": "2023-06-01"}
    with httpx.Client(base_url=server.root, headers=headers) as client:
        yield client


def _line(custom_id: str, **changes: Any) -> dict[str, Any]:
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
            "body": BODY, **changes}  # fmt: skip


def _upload(client: httpx.Client, lines: list[dict[str, Any]], purpose: str = "batch") -> str:
    content = "\n".join(json.dumps(line) for line in lines).encode()
    reply = client.post("/files", data={"purpose": purpose},
                        files={"file": ("in.jsonl", content, "application/jsonl")})  # fmt: skip
    assert reply.status_code == 200, reply.text
    return str(reply.json()["id"])


def _error(reply: httpx.Response) -> dict[str, Any]:
    return dict(reply.json()["error"])


def test_an_upload_needs_a_documented_purpose_and_a_file(openai: httpx.Client) -> None:
    reply = openai.post("/files", data={"purpose": "bogus"},
                        files={"file": ("f.jsonl", b"{}", "application/jsonl")})  # fmt: skip
    assert reply.status_code == 400
    error = _error(reply)
    assert (error["type"], error["param"]) == ("invalid_request_error", "purpose")
    assert error["message"].startswith("'bogus' is not one of ['assistants', 'batch'")
    missing = openai.post("/files", data={"purpose": "batch"}, files={"x": ("f", b"", "a/b")})
    assert _error(missing)["message"] == "Missing required parameter: 'file'."
    assert _error(missing)["code"] == "missing_required_parameter"


def test_a_batch_needs_its_fields_the_endpoint_and_the_window(openai: httpx.Client) -> None:
    file_id = _upload(openai, [_line("a")])
    good = {
        "input_file_id": file_id,
        "endpoint": "/v1/chat/completions",
        "completion_window": "24h",
    }
    for name in good:
        reply = openai.post("/batches", json={k: v for k, v in good.items() if k != name})
        assert reply.status_code == 400
        assert _error(reply)["param"] == name
    bad_endpoint = openai.post("/batches", json={**good, "endpoint": "/v1/chat"})
    assert _error(bad_endpoint)["code"] == "invalid_value"
    assert (
        "Supported values are: '/v1/responses', '/v1/chat/completions'"
        in _error(bad_endpoint)["message"]
    )
    assert _error(openai.post("/batches", json={**good, "completion_window": "1h"}))["param"] == (
        "completion_window"
    )
    unknown = openai.post("/batches", json={**good, "input_file_id": "file-nope"})
    assert unknown.status_code == 404
    other = _upload(openai, [_line("a")], purpose="fine-tune")
    wrong = openai.post("/batches", json={**good, "input_file_id": other})
    assert _error(wrong)["code"] == "invalid_file_purpose"


def test_a_bad_input_file_fails_the_batch_with_line_errors(openai: httpx.Client) -> None:
    lines = [_line("a"), _line("a"), _line("b", url="/v1/embeddings"), _line("c", method="GET"),
             _line("d", body={**BODY, "model": "gpt-4o"})]  # fmt: skip
    file_id = _upload(openai, lines)
    created = openai.post("/batches", json={"input_file_id": file_id, "completion_window": "24h",
                                            "endpoint": "/v1/chat/completions"}).json()  # fmt: skip
    assert created["status"] == "validating"
    polled = openai.get(f"/batches/{created['id']}").json()
    assert polled["status"] == "failed"
    codes = [(e["line"], e["code"]) for e in polled["errors"]["data"]]
    assert codes == [(2, "duplicate_custom_id"), (3, "mismatched_endpoint"),
                     (4, "invalid_method"), (5, "model_mismatch")]  # fmt: skip
    assert polled["output_file_id"] is None


def test_a_good_batch_completes_with_an_output_file(openai: httpx.Client) -> None:
    file_id = _upload(openai, [_line("a"), _line("b")])
    created = openai.post("/batches", json={"input_file_id": file_id, "completion_window": "24h",
                                            "endpoint": "/v1/chat/completions"}).json()  # fmt: skip
    done = openai.get(f"/batches/{created['id']}").json()
    assert done["status"] == "completed"
    assert done["request_counts"] == {"total": 2, "completed": 2, "failed": 0}
    out = openai.get(f"/files/{done['output_file_id']}/content").text.splitlines()
    rows = [json.loads(line) for line in out]
    assert [r["custom_id"] for r in rows] == ["a", "b"]
    assert rows[0]["response"]["status_code"] == 200
    assert rows[0]["response"]["body"]["choices"][0]["message"]["content"]
    assert openai.get("/batches/batch_nope").status_code == 404


def test_a_wrong_key_is_refused(server: BatchServer) -> None:
    with httpx.Client(base_url=server.base_url) as client:
        reply = client.post("/batches", json={}, headers={"Authorization": "Bearer sk-wrong"})
    assert reply.status_code == 401
    assert _error(reply)["code"] == "invalid_api_key"


def test_anthropic_refuses_bad_requests_as_the_api_does(
    anthropic: httpx.Client, server: BatchServer
) -> None:
    params = {"model": "claude-3-5-haiku-latest", "max_tokens": 8, "messages": BODY["messages"]}
    path = "/v1/messages/batches"
    duplicate = anthropic.post(path, json={"requests": [{"custom_id": "a", "params": params}] * 2})
    assert duplicate.status_code == 400
    assert duplicate.json()["type"] == "error"
    assert duplicate.json()["error"]["type"] == "invalid_request_error"
    assert "used more than once" in duplicate.json()["error"]["message"]
    bad_id = anthropic.post(path, json={"requests": [{"custom_id": "a b", "params": params}]})
    assert "should match pattern" in bad_id.json()["error"]["message"]
    no_tokens = {k: v for k, v in params.items() if k != "max_tokens"}
    missing = anthropic.post(path, json={"requests": [{"custom_id": "a", "params": no_tokens}]})
    assert missing.json()["error"]["message"] == "requests.0.params.max_tokens: Field required"
    assert anthropic.post(path, json={"requests": []}).status_code == 400
    with httpx.Client(base_url=server.root, headers={"x-api-key": str(server.api_key)}) as bare:
        no_version = bare.post(path, json={"requests": [{"custom_id": "a", "params": params}]})
    assert no_version.json()["error"]["message"] == "anthropic-version: header is required"


def test_anthropic_batches_end_with_results_and_not_before(
    anthropic: httpx.Client, server: BatchServer
) -> None:
    server.configure_batches(delay_polls=1)
    params = {"model": "claude-3-5-haiku-latest", "max_tokens": 8, "messages": BODY["messages"]}
    requests = {"requests": [{"custom_id": "a", "params": params}]}
    created = anthropic.post("/v1/messages/batches", json=requests).json()
    assert created["processing_status"] == "in_progress"
    assert created["results_url"] is None
    early = anthropic.get(f"/v1/messages/batches/{created['id']}/results")
    assert early.status_code == 400
    assert anthropic.get(f"/v1/messages/batches/{created['id']}").json()["processing_status"] == (
        "in_progress"
    )
    ended = anthropic.get(f"/v1/messages/batches/{created['id']}").json()
    assert ended["processing_status"] == "ended"
    assert ended["request_counts"]["succeeded"] == 1
    rows = [json.loads(x) for x in anthropic.get(ended["results_url"]).text.splitlines()]
    assert rows[0]["custom_id"] == "a"
    assert rows[0]["result"]["type"] == "succeeded"
    assert rows[0]["result"]["message"]["content"][0]["type"] == "text"


def test_a_deleted_results_file_is_gone_with_the_real_not_found_body(
    openai: httpx.Client, server: BatchServer
) -> None:
    file_id = _upload(openai, [_line("a")])
    created = openai.post("/batches", json={"input_file_id": file_id, "completion_window": "24h",
                                            "endpoint": "/v1/chat/completions"}).json()  # fmt: skip
    output = openai.get(f"/batches/{created['id']}").json()["output_file_id"]
    server.configure_batches(not_found_results=1)  # the first download: a 404 for a moment
    assert openai.get(f"/files/{output}/content").status_code == 404
    assert openai.get(f"/files/{output}/content").status_code == 200
    assert openai.delete(f"/files/{output}").json() == {
        "id": output,
        "object": "file",
        "deleted": True,
    }
    gone = openai.get(f"/files/{output}/content")
    assert gone.status_code == 404
    real = {"message": f"No such File object: {output}", "type": "invalid_request_error"}
    assert _error(gone) == {**real, "param": "id", "code": None}
    assert openai.delete(f"/files/{output}").status_code == 404


def test_anthropic_batches_are_deleted_once_ended_and_archived_results_are_gone(
    anthropic: httpx.Client, server: BatchServer
) -> None:
    server.configure_batches(delay_polls=1)
    params = {"model": "claude-3-5-haiku-latest", "max_tokens": 8, "messages": BODY["messages"]}
    requests = {"requests": [{"custom_id": "a", "params": params}]}
    first = anthropic.post("/v1/messages/batches", json=requests).json()["id"]
    early = anthropic.delete(f"/v1/messages/batches/{first}")
    assert early.status_code == 400  # in progress: cancel it first
    assert early.json()["error"]["type"] == "invalid_request_error"
    anthropic.get(f"/v1/messages/batches/{first}")
    ended = anthropic.get(f"/v1/messages/batches/{first}").json()
    assert (ended["processing_status"], ended["archived_at"]) == ("ended", None)
    server.emulator.archive(first)
    archived = anthropic.get(f"/v1/messages/batches/{first}").json()
    assert archived["archived_at"] is not None
    gone = anthropic.get(archived["results_url"])
    assert (gone.status_code, gone.json()["error"]["type"]) == (404, "not_found_error")
    deleted = anthropic.delete(f"/v1/messages/batches/{first}").json()
    assert deleted == {"id": first, "type": "message_batch_deleted"}
    after = anthropic.get(f"/v1/messages/batches/{first}")
    assert (after.status_code, after.json()["error"]["type"]) == (404, "not_found_error")
