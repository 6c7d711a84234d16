"""Faults around a serving Engram: stopped by a signal, it stops the local Neo4j it started; a
local Neo4j killed and started again is found again without restarting the server.

Each test starts its own local Neo4j in its own data directory: the session's Neo4j, which every
other test uses, is never the one stopped or killed here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from graph.runtime import LocalNeo4j, Settings, resolve_target
from tests.http import running
from tests.support import (
    SHORT_LIVED_NEO4J_JVM,
    Served,
    serving,
    spawn_serve,
    until,
    until_async,
)


@pytest.fixture
def own_settings(tmp_path: Path, test_settings: Settings) -> Iterator[Settings]:
    """A private data directory for a local Neo4j of the test's own; stopped at the end."""
    settings = test_settings.model_copy(
        update={
            "data_dir": tmp_path / "data",
            "neo4j_uri": None,
            "neo4j_heap": "512m",
            "neo4j_jvm_options": SHORT_LIVED_NEO4J_JVM,
        }
    )
    yield settings
    LocalNeo4j(settings).stop()


def own_env(settings: Settings) -> dict[str, str]:
    """The environment of an `engram serve` with its own data directory (and so its own Neo4j)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "ENGRAM_"))}
    env.update(
        ENGRAM_DATA_DIR=str(settings.data_dir),
        ENGRAM_CACHE_DIR=str(settings.cache_dir),
        ENGRAM_NEO4J_HEAP=settings.neo4j_heap,
        ENGRAM_NEO4J_JVM_OPTIONS=settings.neo4j_jvm_options,
        ENGRAM_NEO4J_CONFIG=settings.neo4j_config,
        ENGRAM_BROWSER="false",
        ENGRAM_EMBED_INTERVAL="0",
    )
    return env


def serve(settings: Settings, *options: str) -> contextlib.AbstractContextManager[Served]:
    """`engram serve --dev` with its own data directory, once /readyz says ready."""
    log = settings.data_dir.parent / "serve.log"
    return serving(own_env(settings), log, "--dev", *options, ready_within=240)


def neo4j_processes(home: Path) -> list[int]:
    """The pids of the processes whose command line names the Neo4j home `home`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and not gone(int(entry.name)):
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if str(home).encode() in cmdline and any(b"java" in part for part in cmdline[:1]):
                found.append(int(entry.name))
    return found


def gone(pid: int) -> bool:
    """The process has exited (a zombie not yet reaped counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state == "Z"


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_engram_serve_stopped_by_a_signal_stops_the_neo4j_it_started(
    own_settings: Settings, stop: signal.Signals
) -> None:
    with serve(own_settings) as served:
        running_neo4j = LocalNeo4j(own_settings).status()
        assert running_neo4j is not None
        served.process.send_signal(stop)
        assert served.process.wait(timeout=120) == 0, served.log.read_text()
    assert gone(running_neo4j.pid)
    assert LocalNeo4j(own_settings).status() is None
    assert not (own_settings.neo4j_home / "server.json").exists()
    assert "Neo4j stopped (it was started by this command" in served.log.read_text()
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{served.base}/healthz", timeout=2)


@pytest.mark.parametrize("moment", ["one second after start", "while Neo4j boots"])
def test_engram_serve_stopped_during_boot_leaves_no_neo4j_running(
    own_settings: Settings, moment: str
) -> None:
    log = own_settings.data_dir.parent / "serve.log"
    served = spawn_serve(own_env(own_settings), log, "--dev")
    home = own_settings.neo4j_home
    try:
        if moment == "while Neo4j boots":

            def booting() -> bool:
                assert served.process.poll() is None, served.log.read_text()
                return bool(neo4j_processes(home))

            until(booting, within=120, every=0.05, failing=served.log.read_text)
            assert LocalNeo4j(own_settings).status() is None, "not yet ready"
        else:
            time.sleep(1)  # the moment under test, not a wait for something
        served.process.send_signal(signal.SIGTERM)
        # Before its handlers are set (the first moments of Python), SIGTERM ends it at once.
        exited = served.process.wait(timeout=120)
    finally:
        served.stop()
    assert exited in (0, -signal.SIGTERM), served.log.read_text()
    assert neo4j_processes(home) == []
    assert LocalNeo4j(own_settings).status() is None


def test_engram_serve_with_keep_neo4j_leaves_it_running_after_sigterm(
    own_settings: Settings,
) -> None:
    with serve(own_settings, "--keep-neo4j") as served:
        running_neo4j = LocalNeo4j(own_settings).status()
        assert running_neo4j is not None
        assert served.stop(seconds=120) == 0, served.log.read_text()
    still = LocalNeo4j(own_settings).status()
    assert still is not None and still.pid == running_neo4j.pid
    assert "Neo4j stopped" not in served.log.read_text()


async def test_readyz_recovers_after_the_local_neo4j_is_killed_and_started_again(
    own_settings: Settings,
) -> None:
    server = LocalNeo4j(own_settings)
    target = resolve_target(own_settings)
    assert target.local is not None and target.local.started_here
    async with running(create_app(own_settings, target)) as http:
        assert (await http.get("/readyz")).status_code == 200

        os.kill(target.local.pid, signal.SIGKILL)
        until(lambda: gone(target.local.pid), within=30, every=0.1)
        down = await http.get("/readyz")
        assert (down.status_code, down.json()["status"]) == (503, "unready")
        assert server.status() is None

        again = server.start()
        assert again.started_here is True
        assert again.uri == target.uri, "the restarted Neo4j listens where the app looks"

        async def ready() -> bool:
            return (await http.get("/readyz")).status_code == 200

        await until_async(ready, within=30, every=0.5, failing="/readyz not 200 after 30 s")
        ready_again = await http.get("/readyz")
        assert (ready_again.status_code, ready_again.json()["status"]) == (200, "ready")
