"""A two-node Ray cluster on loopback for the Ray executor's tests, and what they share.

Ray binds the machine's external address unless it runs where only loopback exists,
so every Ray test runs in a network namespace with nothing but ``lo`` (``make test``
puts pytest in one when it runs as root); elsewhere the tests skip and say how to run
them. One cluster per test module: each start costs seconds.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import Backend, CallSpec
from fairjudge.backends import OpenAIBackend


def run_them(tests: str) -> str:
    """How to run ``tests`` where they can run: as root, in a loopback-only namespace."""
    return (
        "RAY_DISABLE_USAGE_STATS=1 unshare -n sh -c "
        f"'ip link set lo up && .venv/bin/pytest -q -n 0 -p no:randomly {tests}'"
    )


KEY_ENV = "FAIRJUDGE_RAY_TEST_KEY"
"""The variable the test backends read their key from, on the driver and on the workers."""

KEY = f"sk-raytest-{secrets.token_hex(16)}"
"""A key seen nowhere else, so a grep of Ray's files for it finds only a leak."""


def loopback_only() -> bool:
    """Whether this process's network namespace has no interface but ``lo``.

    Asked of the kernel (``if_nameindex``), not of ``/sys/class/net``, which
    ``unshare -n`` leaves showing the host's interfaces.
    """
    try:
        return [name for _, name in socket.if_nameindex()] == ["lo"]
    except OSError:
        return False


def require_loopback_namespace(tests: str = "tests/runner/test_ray_*.py") -> None:
    """Skip unless Ray can only bind loopback here (see the module docstring)."""
    pytest.importorskip("ray")
    if not loopback_only():
        pytest.skip(
            "the Ray tests run only in a network namespace with nothing but loopback "
            f"(Ray would bind the external address); as root: {run_them(tests)}"
        )


def two_node_cluster(
    tests: str = "tests/runner/test_ray_*.py", key_env: str = KEY_ENV, key: str = KEY
) -> Iterator[Any]:
    """A head and one more node, 1 CPU each, no dashboard; this process connected.

    The key's variable (``key_env``) is set before the nodes start, so every worker
    inherits it, as a worker on a real cluster has its key in its own environment;
    its value before is put back at the end. ``tests``: what the skip says to run.
    """
    require_loopback_namespace(tests)
    os.environ["RAY_DISABLE_USAGE_STATS"] = "1"
    before = os.environ.get(key_env)
    os.environ[key_env] = key
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False, logging_level="warning")
        cluster.wait_for_nodes()
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()
        if before is None:
            os.environ.pop(key_env, None)
        else:
            os.environ[key_env] = before


def session_dir() -> Path:
    """The folder of the running Ray session: its logs, sockets and spilled objects."""
    import ray

    return Path(ray._private.worker._global_node.get_session_dir_path())


def http_backend(base_url: str, **options: Any) -> OpenAIBackend:
    """An OpenAI-compatible backend for the scripted server, keyed by :data:`KEY_ENV`."""
    return OpenAIBackend("judge-model", base_url=base_url, api_key_env=KEY_ENV, **options)


def specs_for(backend: Backend, n: int, *, start: int = 0) -> list[CallSpec]:
    """``n`` distinct pairwise calls the ``longer`` judge answers A, B or tie."""
    out = []
    for i in range(start, start + n):
        a, b = "x" * (i % 7), "y" * (i % 5)
        prompt = (
            f"<question>\nquestion {i}\n</question>\n"
            f"<answer_a>\n{a}\n</answer_a>\n<answer_b>\n{b}\n</answer_b>"
        )
        out.append(
            CallSpec(
                backend=backend.name,
                model=backend.model,
                base_url=backend.base_url,
                messages=(("system", "judge"), ("user", prompt)),
                template="t",
                template_version="1",
                params=backend.default_params(label_only=True),
            )
        )
    return out
