"""Starting or joining Ray for a :class:`~fairjudge.runner.RayExecutor`, quietly and clearly.

Which Ray a run uses:
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import socket
import threading
from collections.abc import Iterator
from typing import Any

from fairjudge._errors import ConfigError, FairJudgeError

__all__ = ["RayKeeper", "cluster_address", "start_ray"]

_CLUSTER_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
CONNECT_TIMEOUT_S = 10.0
"""How long the address check waits for the cluster's port to accept a connection."""


def cluster_address(address: str | None) -> str | None:
    """The cluster to join: ``address``, else ``$RAY_ADDRESS``; ``None``: start a local one."""
    if address is not None:
        return address.strip()
    return os.environ.get("RAY_ADDRESS", "").strip() or None


def start_ray(ray: Any, address: str | None, num_cpus: int | None) -> None:
    """``ray.init`` for the executor: a local instance, or the cluster the address names.

    Args:
        ray: The imported ``ray`` module.
        address: The executor's address (``None``: ``$RAY_ADDRESS``, else local).
        num_cpus: CPUs of a local instance (ignored when joining a cluster).

    Raises:
        ConfigError: The address is malformed, or no cluster answers there.
        FairJudgeError: A local instance could not start (Ray's reason is in the
            message); whatever it had started is shut down.
    """
    target = cluster_address(address)
    settings: dict[str, Any] = {
        "log_to_driver": False,  # the workers' output stays in their log files
        "logging_level": logging.ERROR,  # not Ray's notes on threads, tokens, start-up
    }
    if target is None:
        settings.update(address="local", num_cpus=num_cpus, include_dashboard=False)
    else:
        host = _check_reachable(target, address is None)
        settings["address"] = target
        if host is not None and _is_loopback(host):  # a cluster on this machine's loopback
            settings["_node_ip_address"] = host
    try:
        with _on_loopback(ray, target is None):
            ray.init(**settings)
    except Exception as exc:
        with contextlib.suppress(Exception):  # whatever it started before it failed
            ray.shutdown()
        if target is None:
            raise FairJudgeError(
                f"could not start a local Ray instance: {type(exc).__name__}: {exc}. "
                "Check that this machine has free memory and /tmp space, or give the "
                "address of a running cluster"
            ) from exc
        raise ConfigError(
            f"{_named(target, address is None)}: Ray could not join the cluster there: "
            f"{type(exc).__name__}: {exc}",
            params=() if address is None else ("address",),
        ) from exc


@contextlib.contextmanager
def _on_loopback(ray: Any, local: bool) -> Iterator[None]:
    """While a local instance starts: every node address it picks is 127.0.0.1.

    Ray's own switch for this (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, what it does
    on macOS and Windows) is read once, when Ray is imported, so it is set on the
    imported constant too; the processes the start spawns inherit the variable. Both
    are put back afterwards: a later start may be asked to join a real cluster.
    """
    if not local:
        yield
        return
    constants = ray._private.ray_constants
    saved = os.environ.get(_CLUSTER_SWITCH), getattr(constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[_CLUSTER_SWITCH] = "0"
    if saved[1] is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if saved[0] is None:
            os.environ.pop(_CLUSTER_SWITCH, None)
        else:
            os.environ[_CLUSTER_SWITCH] = saved[0]
        if saved[1] is not None:
            constants.ENABLE_RAY_CLUSTER = saved[1]


def _named(target: str, from_environment: bool) -> str:
    """How a message names the address: the parameter, or the environment variable."""
    return f"RAY_ADDRESS={target!r} (from the environment)" if from_environment else (
        f"address={target!r}"
    )  # fmt: skip


def _check_reachable(target: str, from_environment: bool) -> str | None:
    """The address's host, once its port accepts a connection (``None`` for ``auto``).

    Raises:
        ConfigError: The address is no Ray address, or nothing answers at it.
    """
    if target == "auto":
        return None
    params = () if from_environment else ("address",)
    hostport = target.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise ConfigError(
            f"{_named(target, from_environment)} is no Ray address; give auto, HOST:PORT "
            "(the head node's GCS port, 6379 by default) or ray://HOST:PORT (Ray Client)",
            params=params,
        )
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise ConfigError(
            f"{_named(target, from_environment)}: no Ray cluster answers at {host}:{port} "
            f"({type(exc).__name__}: {exc}). Check that the cluster is up (`ray status` "
            "on its head node) and that this machine reaches that port",
            params=params,
        ) from exc
    return host


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class RayKeeper:
    """A thread that starts Ray, lives while it runs, and shuts it down: Ray's parent thread.

    Ray ties the processes ``ray.init`` spawns (raylet, GCS) to the thread that spawned
    them (Linux's parent-death signal follows the thread, not the process). Started
    from a session's event-loop thread, they were SIGKILLed when that thread ended,
    before the executor closed: an ungraceful stop after which Ray's agents lingered a
    minute trying to report it to a GCS already gone. The keeper thread outlives all
    that: it ends only after :meth:`stop` has shut Ray down gracefully. It is a daemon
    thread, so an executor never closed cannot hold the interpreter open; Ray's own
    exit hook shuts Ray down then.

    Args:
        ray: The imported ``ray`` module.
        address: As :func:`start_ray`.
        num_cpus: As :func:`start_ray`.

    Raises:
        ConfigError, FairJudgeError: As :func:`start_ray`, from the thread.
    """

    def __init__(self, ray: Any, address: str | None, num_cpus: int | None) -> None:
        self.ray = ray
        self.started = threading.Event()
        self.stopping = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(
            target=self._keep, args=(address, num_cpus), name="fairjudge-ray", daemon=True
        )
        self.thread.start()
        self.started.wait()
        if self.error is not None:
            raise self.error

    def _keep(self, address: str | None, num_cpus: int | None) -> None:
        try:
            start_ray(self.ray, address, num_cpus)
        except BaseException as exc:
            self.error = exc
            return
        finally:
            self.started.set()
        self.stopping.wait()
        self.ray.shutdown()

    def stop(self, timeout: float = 60.0) -> None:
        """Shut Ray down (from the thread that started it) and wait for that."""
        self.stopping.set()
        self.thread.join(timeout)
