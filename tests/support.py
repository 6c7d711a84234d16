"""Helpers shared by the tests (not fixtures)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from pathlib import Path
from typing import Any, LiteralString

import httpx
import pytest
from tenacity import Retrying, retry_if_result, stop_after_delay, wait_fixed

from graph.runtime import Graph

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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_ready(process: subprocess.Popen[Any], base: str, log: Path, seconds: int) -> None:
    """Until `engram serve` at `base` answers /readyz 200; fails with its log if it exits or
    takes longer than `seconds`."""

    def ready() -> bool:
        assert process.poll() is None, f"engram serve exited:\n{log.read_text()}"
        with contextlib.suppress(httpx.TransportError):
            return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
        return False

    polls = Retrying(
        retry=retry_if_result(lambda answered: not answered),
        stop=stop_after_delay(seconds),
        wait=wait_fixed(0.2),
        retry_error_callback=lambda _: pytest.fail(
            f"engram serve not ready in {seconds} s:\n{log.read_text()}"
        ),
    )
    polls(ready)
