"""`engram serve --workers 2`: two processes answer on one port, each taking its share of a crowd
that connects at once; the embedding worker runs in exactly one of them; a sibling that dies is
started again; SIGTERM stops them all. One test: each start of the server costs the suite ~20 s.

The server uses the session's Neo4j (NEO4J_URI), so nothing here starts or stops a Neo4j.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from graph.runtime import Graph, Neo4jTarget, Settings
from tests.people_story import people_story
from tests.support import Served, engram_env, serving, until, until_async

CLAIMS = 'query { claims(space: "alice", first: 50) { nodes { id } } }'
CLOSE = {"Connection": "close"}
PENDING = "MATCH (c:Claim:Unembedded) RETURN count(c) AS n"
EMBEDDABLE = "MATCH (c:Claim) WHERE c.text IS NOT NULL AND c.erasedAt IS NULL RETURN count(c) AS n"
MEANINGS = (
    "MATCH (c:Claim)-[:MEANS]->(:Meaning) RETURN count(c) AS claims, count(DISTINCT c) AS distinct"
)


def _workers(served: Served, started: int = 2) -> list[int]:
    """The command (a worker itself) and the sibling it started (not multiprocessing's resource
    tracker), once `started` apps in all have said they started."""

    def all_started() -> bool:
        assert served.process.poll() is None, served.log.read_text()
        return served.log.read_text().count("Application startup complete.") >= started

    until(
        all_started,
        within=120,
        failing=lambda: f"{started} apps not started in 120 s:\n{served.log.read_text()}",
    )
    siblings = []
    for child in _children(served.process.pid):
        command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        if any(b"spawn_main" in part for part in command):
            siblings.append(child)
    return [served.process.pid, *siblings]


@pytest.fixture
def served_by_two(
    test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> Iterator[Served]:
    """`engram serve --workers 2` on a free port, the embedding worker polling every 0.2 s."""
    env = engram_env(
        test_settings,
        neo4j_target,
        ENGRAM_BROWSER="false",
        ENGRAM_EMBED_INTERVAL="0.2",
        # A busy suite may keep a request waiting for its turn longer than the default 2 s.
        ENGRAM_IN_FLIGHT_WAIT="60",
    )
    with serving(env, tmp_path / "serve.log", "--dev", "--workers", "2") as served:
        yield served


async def test_two_workers_share_a_crowd_embed_once_outlive_a_killed_sibling_and_stop_together(
    served_by_two: Served, graph: Graph
) -> None:
    await people_story(graph)
    workers = _workers(served_by_two)
    assert len(workers) == 2
    before = {pid: _cpu_seconds(pid) for pid in workers}

    async def client() -> list[list[str]]:
        async with httpx.AsyncClient(base_url=served_by_two.base, timeout=60) as http:
            answers = []
            for _ in range(4):
                answer = await http.post("/graphql", json={"query": CLAIMS})
                assert answer.status_code == 200, answer.text
                nodes = answer.json()["data"]["claims"]["nodes"]
                answers.append(sorted(node["id"] for node in nodes))
            return answers

    everyone = await asyncio.gather(*(client() for _ in range(30)))
    first = everyone[0][0]
    assert len(first) >= 5
    assert all(answer == first for answers in everyone for answer in answers)
    # 30 connections hashed over two sockets: each process served some (an idle one spends ~0).
    spent = {pid: _cpu_seconds(pid) - before[pid] for pid in workers}
    assert all(seconds >= 0.05 for seconds in spent.values()), spent

    # The embedding worker polls every 0.2 s in one process; the other never embeds.
    async def none_pending() -> bool:
        return (await graph.read(PENDING))[0]["n"] == 0

    await until_async(none_pending, within=60, failing="claims were still unembedded after 60 s")
    embeddable = (await graph.read(EMBEDDABLE))[0]["n"]
    assert embeddable >= 5
    meanings = (await graph.read(MEANINGS))[0]
    assert meanings["claims"] == meanings["distinct"] == embeddable

    # A sibling that dies is started again; then SIGTERM stops the command and it.
    os.kill(workers[1], signal.SIGKILL)
    workers = _workers(served_by_two, started=3)
    assert len(workers) == 2
    async with httpx.AsyncClient(base_url=served_by_two.base, timeout=60) as http:
        for _ in range(6):  # fresh connections, dealt out over both sockets
            answer = await http.post("/graphql", json={"query": CLAIMS}, headers=CLOSE)
            assert answer.status_code == 200, answer.text
    assert served_by_two.stop() == 0
    assert [pid for pid in workers if Path(f"/proc/{pid}").exists()] == []
    log = served_by_two.log.read_text()
    assert "served by 2 worker processes" in log
    assert re.search(r"worker process \d+ exited \(-9\); starting another", log)
    assert log.count("Application shutdown complete.") == 2
    assert sum(int(n) for n in re.findall(r"embedded (\d+) claims", log)) == embeddable


def _children(pid: int) -> list[int]:
    found = []
    for thread in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (thread / "children").read_text().split()]
    return found


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
