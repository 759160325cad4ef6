"""The scripted judge server itself: parsing, judges, faults, counters, process mode."""

from __future__ import annotations

import http.client
import json
import math
import random
import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge.prompts import get_template
from tests.server import (
    DEFAULT_API_KEY,
    GARBAGE_TEXT,
    Fault,
    JudgeServer,
    Pair,
    Script,
    ServerProcess,
    correct_judge,
    extract_pair,
    prompt_hash,
    top_logprobs,
)

AUTH = {"Authorization": f"Bearer {DEFAULT_API_KEY}", "Content-Type": "application/json"}


def prompt(question: str, answer_a: str, answer_b: str) -> str:
    return (
        f"Which is better?\n\n<question>\n{question}\n</question>\n\n"
        f"<answer_a>\n{answer_a}\n</answer_a>\n\n<answer_b>\n{answer_b}\n</answer_b>\n\nReply."
    )


def post(
    conn: http.client.HTTPConnection,
    body: dict[str, Any],
    headers: dict[str, str] | None = None,
    path: str = "/v1/chat/completions",
) -> tuple[int, dict[str, Any], http.client.HTTPResponse]:
    conn.request("POST", path, json.dumps(body), headers=AUTH if headers is None else headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, json.loads(data) if data.startswith(b"{") else {}, response


def chat(text: str = "", **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}], **extra}


@pytest.fixture
def conn(judge_server: JudgeServer) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", judge_server.port, timeout=10)
    yield connection
    connection.close()


# -- prompt extraction and judges (pure) ---------------------------------------------


def test_extract_pair_from_a_rendered_template() -> None:
    # The lead's templates are the contract: if they change delimiters, this fails first.
    template = get_template("default")
    messages = template.render("What is 2 + 2?", "four", "It is 4.")
    user = "\n".join(content for role, content in messages if role == "user")
    assert extract_pair(user) == Pair("What is 2 + 2?", "four", "It is 4.")


def test_extract_pair_missing_blocks() -> None:
    assert extract_pair("Say A or B.") is None
    assert extract_pair("<answer_a>\nx\n</answer_a>") is None


@given(
    question=st.text(max_size=40),
    answer_a=st.text(max_size=80),
    answer_b=st.text(max_size=80),
)
def test_extract_pair_round_trips(question: str, answer_a: str, answer_b: str) -> None:
    # Answers are free text; only the template's own closing tags end a block, and the
    # templates defuse closing tags inside answers, so leave those out here.
    for tag in ("</question>", "</answer_a>", "</answer_b>"):
        question, answer_a, answer_b = (s.replace(tag, "") for s in (question, answer_a, answer_b))
    assert extract_pair(prompt(question, answer_a, answer_b)) == Pair(question, answer_a, answer_b)


def test_correct_judge() -> None:
    by_marker = correct_judge("[ok]")
    assert by_marker(Pair("q", "x [ok]", "y")) == "A"
    assert by_marker(Pair("q", "x", "y [ok]")) == "B"
    assert by_marker(Pair("q", "[ok]", "[ok]")) == "tie"
    assert by_marker(Pair("q", "x", "y")) == "tie"
    by_question = correct_judge({"2+2?": "4", "capital?": "Paris"})
    assert by_question(Pair("2+2?", "5", "4")) == "B"
    assert by_question(Pair(" capital? ", "Paris", "Rome")) == "A"
    assert by_question(Pair("unknown?", "a", "b")) == "tie"


def test_top_logprobs_distribution() -> None:
    alts = dict(top_logprobs("B", 0.9, 20))
    assert list(alts)[:3] == ["B", "A", "tie"]
    assert math.exp(alts["B"]) == pytest.approx(0.9)
    assert math.exp(alts["A"]) == pytest.approx(0.06)
    assert math.exp(alts["tie"]) == pytest.approx(0.03)
    assert sum(math.exp(v) for v in alts.values()) == pytest.approx(1.0)
    assert [t for t, _ in top_logprobs("A", 0.9, 2)] == ["A", "B"]
    assert top_logprobs("A", 0.9, 0) == []
    garbage = dict(top_logprobs("Lorem", 0.5, 20))
    assert not {"A", "B", "tie"} & set(garbage)


def test_script_validation() -> None:
    with pytest.raises(ValueError, match="unknown faults"):
        Script(faults={"explode": 0.1})
    with pytest.raises(ValueError, match="sum to <= 1"):
        Script(faults={"rate_limit": 0.7, "server_error": 0.5})
    with pytest.raises(ValueError, match="unknown judge"):
        Script(judge="coin")
    with pytest.raises(ValueError, match="needs `correct`"):
        Script(judge="correct")


# -- over HTTP -----------------------------------------------------------------------


def test_always_a_reply_shape(judge_server: JudgeServer, conn: http.client.HTTPConnection) -> None:
    status, body, _ = post(conn, chat("anything", logprobs=True, top_logprobs=3))
    assert status == 200
    choice = body["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": "A"}
    first = choice["logprobs"]["content"][0]
    assert first["token"] == "A"
    assert [alt["token"] for alt in first["top_logprobs"]] == ["A", "B", "tie"]
    assert body["usage"] == {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    assert judge_server.stats() == {
        "connections": 1,
        "requests": 1,
        "logprobs_requested": 1,
        "ok": 1,
        "max_in_flight": 1,
    }


@pytest.mark.parametrize(
    ("judge", "answers", "verdict"),
    [
        ("longer", ("short", "much longer"), "B"),
        ("longer", ("much longer", "short"), "A"),
        ("longer", ("same", "same"), "tie"),
        ("shorter", ("short", "much longer"), "A"),
        ("always_b", ("x", "y"), "B"),
    ],
)
def test_judges_over_http(
    judge_server: JudgeServer,
    conn: http.client.HTTPConnection,
    judge: str,
    answers: tuple[str, str],
    verdict: str,
) -> None:
    judge_server.configure(judge=judge)
    _, body, _ = post(conn, chat(prompt("q", *answers)))
    assert body["choices"][0]["message"]["content"] == verdict


def test_reply_format(judge_server: JudgeServer, conn: http.client.HTTPConnection) -> None:
    judge_server.configure(reply_format="Reasoning...\n[[{verdict}]]")
    _, body, _ = post(conn, chat("x"))
    assert body["choices"][0]["message"]["content"] == "Reasoning...\n[[A]]"


def test_requires_the_key(judge_server: JudgeServer, conn: http.client.HTTPConnection) -> None:
    status, body, _ = post(conn, chat("x"), headers={"Authorization": "Bearer sk-nope-123"})
    assert status == 401
    assert "sk-nope-123" in body["error"]["message"]  # echoed, so clients must scrub
    status, _, _ = post(conn, chat("x"), headers={})
    assert status == 401
    status, _, _ = post(conn, chat("x"), headers={"x-api-key": DEFAULT_API_KEY})
    assert status == 200
    assert judge_server.count("unauthorized") == 2
    assert judge_server.count("requests") == 3


def test_rejects_logprobs(judge_server: JudgeServer, conn: http.client.HTTPConnection) -> None:
    judge_server.configure(reject_logprobs=True)
    status, body, _ = post(conn, chat("x", logprobs=True))
    assert status == 400
    assert body["error"]["message"] == "logprobs not supported"
    status, _, _ = post(conn, chat("x"))
    assert status == 200
    assert judge_server.count("logprobs_rejected") == 1


def test_fault_sequence_then_normal(
    judge_server: JudgeServer, conn: http.client.HTTPConnection
) -> None:
    judge_server.configure(
        fault_sequence=[Fault.RATE_LIMIT, None, Fault.SERVER_ERROR, Fault.EMPTY_CHOICES],
        retry_after="5",
    )
    status, _, response = post(conn, chat("x"))
    assert status == 429
    assert response.getheader("Retry-After") == "5"
    assert post(conn, chat("x"))[0] == 200
    assert post(conn, chat("x"))[0] == 500
    status, body, _ = post(conn, chat("x"))
    assert status == 200
    assert body["choices"] == []
    status, body, _ = post(conn, chat("x"))
    assert body["choices"][0]["message"]["content"] == "A"
    assert judge_server.stats() | {"connections": 1} == {
        "connections": 1,
        "requests": 5,
        "ok": 2,
        "rate_limit": 1,
        "server_error": 1,
        "empty_choices": 1,
        "max_in_flight": 1,
    }


def test_malformed_null_and_garbage(
    judge_server: JudgeServer, conn: http.client.HTTPConnection
) -> None:
    judge_server.configure(fault_sequence=[Fault.MALFORMED_JSON, Fault.NULL_CONTENT, "garbage"])
    conn.request("POST", "/v1/chat/completions", json.dumps(chat("x")), headers=AUTH)
    raw = conn.getresponse().read()
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    assert post(conn, chat("x"))[1]["choices"][0]["message"]["content"] is None
    assert post(conn, chat("x"))[1]["choices"][0]["message"]["content"] == GARBAGE_TEXT


def test_reset_fault_resets_the_connection(
    judge_server: JudgeServer, conn: http.client.HTTPConnection
) -> None:
    judge_server.configure(fault_sequence=[Fault.RESET])
    conn.request("POST", "/v1/chat/completions", json.dumps(chat("x")), headers=AUTH)
    with pytest.raises(ConnectionResetError) as caught:
        conn.getresponse()
    # A reset (RST), not an orderly close (FIN), which http.client reports as
    # RemoteDisconnected: the server read the request, then aborted without a byte.
    assert not isinstance(caught.value, http.client.RemoteDisconnected)
    conn.close()
    assert post(conn, chat("x"))[0] == 200  # the next request, on a new connection
    assert judge_server.stats() == {
        "connections": 2,
        "requests": 2,
        "reset": 1,
        "ok": 1,
        "max_in_flight": 1,
    }


def test_prompt_counts(judge_server: JudgeServer, conn: http.client.HTTPConnection) -> None:
    judge_server.configure(fault_sequence=[Fault.SERVER_ERROR, None, None])
    for text in ("one", "one", "two"):
        post(conn, chat(text))
    one, two = prompt_hash("one"), prompt_hash("two")
    expected = {"requests": {one: 2, two: 1}, "server_error": {one: 1}, "ok": {one: 1, two: 1}}
    assert judge_server.prompt_counts() == expected
    conn.request("GET", "/_stats?prompts=1")
    body = json.loads(conn.getresponse().read())
    assert body["prompts"] == expected
    assert body["requests"] == 3
    judge_server.reset()
    assert judge_server.prompt_counts() == {}


def test_fault_rates_are_seeded(judge_server: JudgeServer) -> None:
    faults = {"rate_limit": 0.2, "server_error": 0.05}
    judge_server.configure(faults=faults, seed=42)
    conn = http.client.HTTPConnection("127.0.0.1", judge_server.port, timeout=10)
    statuses = [post(conn, chat("x"))[0] for _ in range(200)]
    conn.close()
    # The same draws, replayed here: one uniform number per authorised request.
    rng = random.Random(42)
    expected = []
    for _ in range(200):
        u = rng.random()
        expected.append(429 if u < 0.2 else 500 if u < 0.25 else 200)
    assert statuses == expected
    assert judge_server.count("rate_limit") == expected.count(429)
    assert judge_server.count("server_error") == expected.count(500)
    assert judge_server.count("ok") == expected.count(200)


def test_counters_are_exact_under_concurrency(judge_server: JudgeServer) -> None:
    judge_server.configure(latency=0.01)

    def client() -> None:
        c = http.client.HTTPConnection("127.0.0.1", judge_server.port, timeout=10)
        for _ in range(25):
            assert post(c, chat("x"))[0] == 200
        c.close()

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert judge_server.count("requests") == 200
    assert judge_server.count("ok") == 200
    assert judge_server.count("connections") == 8  # keep-alive: one per client
    assert 1 <= judge_server.count("max_in_flight") <= 8
    judge_server.reset()
    assert judge_server.stats() == {}


def test_connection_close_is_honoured(
    judge_server: JudgeServer, conn: http.client.HTTPConnection
) -> None:
    status, _, response = post(conn, chat("x"), headers={**AUTH, "Connection": "close"})
    assert status == 200
    assert response.getheader("Connection") == "close"


def test_unknown_route(conn: http.client.HTTPConnection) -> None:
    conn.request("GET", "/v1/nothing")
    response = conn.getresponse()
    response.read()
    assert response.status == 404


def test_anthropic_dialect(judge_server: JudgeServer, conn: http.client.HTTPConnection) -> None:
    body = {
        "model": "claude",
        "max_tokens": 8,
        "system": "be fair",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "x y"}]}],
    }
    headers = {"x-api-key": DEFAULT_API_KEY, "content-type": "application/json"}
    status, reply, _ = post(conn, body, headers=headers, path="/v1/messages")
    assert status == 200
    assert reply["content"] == [{"type": "text", "text": "A"}]
    assert reply["usage"] == {"input_tokens": 4, "output_tokens": 1}
    status, reply, _ = post(conn, body, headers={}, path="/v1/messages")
    assert status == 401
    assert reply["type"] == "error"


def test_stop_drops_hung_requests() -> None:
    server = JudgeServer(Script(fault_sequence=[Fault.HANG])).start()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("POST", "/v1/chat/completions", json.dumps(chat("x")), headers=AUTH)
    for _ in range(1000):  # wait for the server to take the request, without a clock
        if server.count(Fault.HANG):
            break
        threading.Event().wait(0.01)
    server.stop()
    with pytest.raises(http.client.RemoteDisconnected):
        conn.getresponse()
    conn.close()
    assert server.count(Fault.HANG) == 1


@pytest.mark.slow
def test_process_mode() -> None:
    with ServerProcess("--judge", "longer", "--fault", "server_error=0.5", "--seed", "3") as srv:
        host, port = srv.base_url.removeprefix("http://").removesuffix("/v1").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        statuses = [post(conn, chat(prompt("q", "a", "bb")))[0] for _ in range(10)]
        stats = srv.stats()
        assert stats["requests"] == 10
        assert stats["server_error"] == statuses.count(500)
        assert stats["ok"] == statuses.count(200)
        counts = srv.prompt_counts()
        key = prompt_hash(prompt("q", "a", "bb"))
        assert counts["requests"] == {key: 10}
        assert counts.get("ok", {}).get(key, 0) == statuses.count(200)
        srv.reset()
        srv.configure(judge="always_b", faults={})
        _, body, _ = post(conn, chat("x"))
        assert body["choices"][0]["message"]["content"] == "B"
        assert srv.stats()["requests"] == 1
        conn.close()
