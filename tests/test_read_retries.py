"""A one-query read (`Graph.read`, an auto-commit read) is retried like a managed transaction:
a failure that says Neo4j cannot answer now is tried again until the graph's retry time runs
out; a read Neo4j refuses as wrong is not tried again.

Every attempt goes through `query_count`, which is how the attempts are counted here.
"""

from __future__ import annotations

import socket
import time
from collections.abc import AsyncIterator

import pytest
from neo4j import AsyncGraphDatabase
from neo4j.exceptions import CypherSyntaxError, ServiceUnavailable

from graph.runtime import Graph, query_count


def closed_port() -> int:
    """A local port nothing listens on (taken from the OS, then let go)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
async def unreachable() -> AsyncIterator[Graph]:
    """A graph whose Neo4j refuses every connection, retrying for one second."""
    driver = AsyncGraphDatabase.driver(
        f"bolt://127.0.0.1:{closed_port()}", auth=("neo4j", "unused"), connection_timeout=1.0
    )
    yield Graph(driver, "neo4j", retry_time=1.0)
    await driver.close()


async def test_a_read_neo4j_cannot_answer_is_retried_until_the_retry_time_runs_out(
    unreachable: Graph,
) -> None:
    attempts = [0]
    token = query_count.set(attempts)
    started = time.monotonic()
    try:
        with pytest.raises(ServiceUnavailable):
            await unreachable.read("RETURN 1 AS one")
    finally:
        query_count.reset(token)
    elapsed = time.monotonic() - started
    # Waits of 0.1, 0.2, 0.4 s (±20 %) fit in the second; the next (0.8 s) would not.
    assert attempts[0] >= 3
    assert 0.5 <= elapsed < 1.0 + 1.0  # the budget, and one failing attempt's time at most


async def test_a_read_neo4j_refuses_as_wrong_is_not_retried(graph: Graph) -> None:
    attempts = [0]
    token = query_count.set(attempts)
    try:
        with pytest.raises(CypherSyntaxError):
            await graph.read("RETURN nonsense( AS broken")
    finally:
        query_count.reset(token)
    assert attempts[0] == 1


async def test_a_read_answers_its_rows_in_one_attempt(graph: Graph) -> None:
    attempts = [0]
    token = query_count.set(attempts)
    try:
        rows = await graph.read("UNWIND [1, 2, 3] AS n RETURN n * $k AS m", k=10)
    finally:
        query_count.reset(token)
    assert rows == [{"m": 10}, {"m": 20}, {"m": 30}]
    assert attempts[0] == 1
