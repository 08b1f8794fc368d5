"""A real Redis Cluster for the tests: three ``redis-server`` primaries on loopback ports.

:func:`local_cluster` starts one per test process (so each xdist worker has its own) the first
time a test asks for it, and :func:`stop_local_cluster` (called at the end of the run by
``tests/conftest.py``, and at exit as a last resort) kills the servers and removes their
folders. Each node runs in its own temporary folder, bound to 127.0.0.1 only, with
``cluster-enabled yes``; ``redis-cli --cluster create`` assigns the slots, and the start waits
(polling ``CLUSTER INFO`` of every node) until each reports ``cluster_state:ok``. A start that
fails half-way stops what it started before raising.

Without ``redis-server`` / ``redis-cli`` the tests that need a cluster skip, naming what is
missing; under ``CI=true`` they fail instead.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["LocalCluster", "local_cluster", "require_cluster", "stop_local_cluster"]

NODES = 3
START_TIMEOUT = 60.0
"""Seconds a cluster may take to reach ``cluster_state:ok`` (a busy 2-core machine)."""


@dataclass
class LocalCluster:
    """Three running primaries: their ports, folders and processes."""

    ports: list[int]
    root: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def url(self) -> str:
        """A ``redis+cluster://`` URL naming the first node (the client finds the others)."""
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    @property
    def plain_url(self) -> str:
        """The first node as a ``redis://`` URL (for ``redis.RedisCluster.from_url``)."""
        return f"redis://127.0.0.1:{self.ports[0]}"

    def client(self, **kwargs: Any) -> Any:
        """A new ``redis.RedisCluster`` on this cluster; the caller closes it."""
        import redis

        return redis.RedisCluster.from_url(self.plain_url, **kwargs)

    def node(self, port: int) -> Any:
        """A plain client on one node (no redirections followed); the caller closes it."""
        import redis

        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=30)

    def stop(self) -> None:
        """Kill every server and remove the folders (each step even when one fails)."""
        for proc in self.processes:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.processes:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        self.processes.clear()
        shutil.rmtree(self.root, ignore_errors=True)


def missing_tools() -> list[str]:
    """The programs a cluster needs that are not on ``PATH``."""
    return [tool for tool in ("redis-server", "redis-cli") if shutil.which(tool) is None]


def require_cluster() -> None:
    """Skip (or, under CI=true, fail) when this machine cannot run a local cluster."""
    missing = missing_tools()
    if not missing:
        return
    reason = f"a local Redis Cluster needs {' and '.join(missing)} on PATH"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason + "; CI=true requires it")
    pytest.skip(reason)


def _free_ports(n: int) -> list[int]:
    """``n`` distinct loopback ports free right now (held together, so never the same)."""
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _start_node(root: Path, port: int, bus_port: int) -> subprocess.Popen[bytes]:
    folder = root / str(port)
    folder.mkdir()
    args = [
        "redis-server",
        *("--port", str(port), "--cluster-port", str(bus_port), "--bind", "127.0.0.1"),
        *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
        *("--cluster-node-timeout", "5000", "--dir", str(folder)),
        *("--save", "", "--appendonly", "no", "--daemonize", "no"),
        *("--logfile", str(folder / "redis.log")),
    ]
    return subprocess.Popen(args, cwd=folder, stdin=subprocess.DEVNULL)


def _poll(what: str, cluster: LocalCluster, ready: Any, deadline: float) -> None:
    """Wait until ``ready()`` is true, failing with the nodes' logs at ``deadline``."""
    while not ready():
        for proc, port in zip(cluster.processes, cluster.ports, strict=True):
            if proc.poll() is not None:
                raise RuntimeError(f"redis-server on port {port} exited: {_logs(cluster)}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the local Redis Cluster never {what}: {_logs(cluster)}")
        time.sleep(0.05)  # polling interval, not a synchronisation


def _logs(cluster: LocalCluster) -> str:
    tails = []
    for port in cluster.ports:
        log = cluster.root / str(port) / "redis.log"
        text = log.read_text(errors="replace") if log.exists() else "(no log)"
        tails.append(f"[{port}] " + " | ".join(text.splitlines()[-5:]))
    return "; ".join(tails)


def _answers(cluster: LocalCluster, check: Any) -> bool:
    import redis

    for port in cluster.ports:
        client = cluster.node(port)
        try:
            if not check(client):
                return False
        except redis.exceptions.RedisError:
            return False
        finally:
            client.close()
    return True


def start_cluster() -> LocalCluster:
    """Start three primaries and join them into one cluster; stop them if that fails."""
    ports = _free_ports(2 * NODES)
    cluster = LocalCluster(ports[:NODES], Path(tempfile.mkdtemp(prefix="summem-cluster-")))
    try:
        for port, bus in zip(ports[:NODES], ports[NODES:], strict=True):
            cluster.processes.append(_start_node(cluster.root, port, bus))
        deadline = time.monotonic() + START_TIMEOUT
        _poll("started", cluster, lambda: _answers(cluster, lambda c: c.ping()), deadline)
        create = subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(f"127.0.0.1:{port}" for port in cluster.ports),
                *("--cluster-replicas", "0", "--cluster-yes"),
            ],
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
            check=False,
        )
        if create.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {create.stdout}{create.stderr}")

        def ok(client: Any) -> bool:
            return bool(client.execute_command("CLUSTER INFO").get("cluster_state") == "ok")

        _poll("reached cluster_state:ok", cluster, lambda: _answers(cluster, ok), deadline)
    except BaseException:
        cluster.stop()
        raise
    return cluster


_lock = threading.Lock()
_cluster: LocalCluster | None = None


def local_cluster() -> LocalCluster:
    """This process's cluster, started on first use (skips when it cannot run here)."""
    global _cluster
    require_cluster()
    with _lock:
        if _cluster is None:
            _cluster = start_cluster()
            atexit.register(stop_local_cluster)
        return _cluster


def stop_local_cluster() -> None:
    """Stop this process's cluster, if one was started."""
    global _cluster
    with _lock:
        if _cluster is not None:
            _cluster.stop()
            _cluster = None
