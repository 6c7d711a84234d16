"""Helpers shared by the tests (not fixtures)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, LiteralString

import httpx
import pytest
from tenacity import AsyncRetrying, Retrying, retry_if_result, stop_after_delay, wait_fixed

from graph.runtime import Graph, Neo4jTarget, Settings

DELETE_DATA: LiteralString = """
MATCH (n) WHERE NOT n:Migration
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
"""


DEEP = os.environ.get("HYPOTHESIS_PROFILE") == "deep"
"""The deep profile (`HYPOTHESIS_PROFILE=deep ./scripts/test`): every long run at full length."""

NEO4J_EXAMPLES = 2000 if DEEP else 30
"""Examples of a property test that writes to Neo4j: 30 seeded ones in every run (each costs
transactions; the pure rules they store run 200–500 examples each in the fast tier), 2000 in the
deep profile."""

RACE_REPETITIONS = 200 if DEEP else 25
"""Runs of a race test (two writers, or a forget beside readers, started at once): 25 in every
run, each interleaving a matter of timing, 200 in the deep profile."""


SHORT_LIVED_NEO4J_JVM = "-XX:TieredStopAtLevel=1"
"""JVM options of a Neo4j that lives for one test or answers a few queries (the restore target,
the servers the serve-fault and local-Neo4j tests start, `engram restore --into`): C1 only, as
warming up C2 costs such a server more CPU than it returns. The two servers the whole run uses
keep the JVM's default (C2): most of their CPU goes to planning Cypher (a walk of four hops takes
1.4 s to plan, 2.5 s under C1), and the suite took 15:06 with C2 there against 20:28 with C1."""

QUICK_NEO4J_CONFIG = "dbms.cypher.min_replan_interval=60s"
"""neo4j.conf settings of every Neo4j the tests start: a query's plan is kept for at least a
minute. Every test empties the database, so by default (10 s) every query was planned again in
the next test for its new statistics (0.3–2 s each for the erasure queries, against 10–30 ms to
run them). Plans are still made again when the statistics have moved: a plan kept for good
(as before) was made on an empty database and scanned every Entity to find one by id, and a
write of 10,000 messages took 480 s instead of 80."""


async def delete_all_data(graph: Graph) -> None:
    """Delete every node but the migration ledger (schema stays)."""
    async with graph.driver.session(database=graph.database) as session:
        result = await session.run(DELETE_DATA)
        await result.consume()


ENGRAM = [sys.executable, "-c", "from api.cli.main import main; main()"]
"""The `engram` command, run by this interpreter (whether or not its script is on PATH)."""


def engram_env(settings: Settings, target: Neo4jTarget, **extra: str) -> dict[str, str]:
    """The environment of an `engram` command run against `target` with `settings`' directories
    (nothing of the caller's NEO4J_* / ENGRAM_* leaks in), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "ENGRAM_"))}
    env.update(
        NEO4J_URI=target.uri,
        NEO4J_USER=target.user,
        NEO4J_PASSWORD=target.password or "",
        ENGRAM_DATA_DIR=str(settings.data_dir),
        ENGRAM_CACHE_DIR=str(settings.cache_dir),
        # Only `engram restore --into` starts a Neo4j here, for one restore.
        ENGRAM_NEO4J_JVM_OPTIONS=SHORT_LIVED_NEO4J_JVM,
        ENGRAM_NEO4J_CONFIG=settings.neo4j_config,
    )
    env.update(extra)
    return env


def run_engram(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENGRAM, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@dataclass
class Served:
    """An `engram serve` process: where it answers, and the file its output goes to."""

    process: subprocess.Popen[str]
    base: str
    log: Path

    def started(self) -> bool:
        """It has printed where it is and uvicorn serves (fails the test if it exited)."""
        assert self.process.poll() is None, f"engram serve exited:\n{self.log.read_text()}"
        return "Uvicorn running" in self.log.read_text()

    def stop(self, seconds: float = 60) -> int | None:
        """SIGTERM, as a supervisor stops it; killed when still running after `seconds`.
        Returns its exit status (None: it had to be killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(seconds)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return None
        return self.process.returncode


def spawn_serve(
    env: dict[str, str],
    log: Path,
    *options: str,
    command: list[str] = ENGRAM,
    cwd: Path | None = None,
) -> Served:
    """`engram serve` started on a free port with `env`, its output written to `log`; not waited
    for."""
    port = free_port()
    with log.open("w") as output:
        process = subprocess.Popen(
            [*command, "serve", "--port", str(port), *options],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=cwd,
        )
    return Served(process, f"http://127.0.0.1:{port}", log)


@contextlib.contextmanager
def serving(
    env: dict[str, str],
    log: Path,
    *options: str,
    ready_within: int = 120,
    command: list[str] = ENGRAM,
    cwd: Path | None = None,
) -> Iterator[Served]:
    """`engram serve` (`spawn_serve`) once /readyz answers 200; stopped at the end (`Served.stop`)
    if the test has not stopped it."""
    served = spawn_serve(env, log, *options, command=command, cwd=cwd)
    try:
        wait_until_ready(served.process, served.base, log, ready_within)
        yield served
    finally:
        served.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


Failing = str | Callable[[], str]
"""What a wait that ran out says: a text, or a function that writes it then (e.g. a log's end)."""


def _fail(failing: Failing, within: float) -> None:
    said = failing() if callable(failing) else failing
    pytest.fail(said or f"still not so after {within} s")


def until(
    condition: Callable[[], bool], *, within: float, every: float = 0.2, failing: Failing = ""
) -> None:
    """Until `condition()` is true, asked every `every` s; fails the test with `failing` when it
    is still false after `within` s. An assertion inside `condition` fails at once."""
    polls = Retrying(
        retry=retry_if_result(lambda held: not held),
        stop=stop_after_delay(within),
        wait=wait_fixed(every),
        retry_error_callback=lambda _: _fail(failing, within),
    )
    polls(condition)


async def until_async(
    condition: Callable[[], Awaitable[bool]],
    *,
    within: float,
    every: float = 0.2,
    failing: Failing = "",
) -> None:
    """`until` for a condition that awaits (asks Neo4j, a server …)."""
    polls = AsyncRetrying(
        retry=retry_if_result(lambda held: not held),
        stop=stop_after_delay(within),
        wait=wait_fixed(every),
        retry_error_callback=lambda _: _fail(failing, within),
    )
    await polls(condition)


def wait_until_ready(process: subprocess.Popen[Any], base: str, log: Path, seconds: int) -> None:
    """Until `engram serve` at `base` answers /readyz 200; fails with its log if it exits or
    takes longer than `seconds`."""

    def ready() -> bool:
        assert process.poll() is None, f"engram serve exited:\n{log.read_text()}"
        with contextlib.suppress(httpx.TransportError):
            return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
        return False

    until(
        ready,
        within=seconds,
        failing=lambda: f"engram serve not ready in {seconds} s:\n{log.read_text()}",
    )
