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
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tenacity import AsyncRetrying, Retrying, retry_if_result, stop_after_delay, wait_fixed

from graph.runtime import Graph, Neo4jTarget, Settings
from tests.people_story import people_story
from tests.support import free_port, wait_until_ready
from tests.test_cli import ENGRAM, engram_env

CLAIMS = 'query { claims(space: "alice", first: 50) { nodes { id } } }'
CLOSE = {"Connection": "close"}
PENDING = "MATCH (c:Claim:Unembedded) RETURN count(c) AS n"
EMBEDDABLE = "MATCH (c:Claim) WHERE c.text IS NOT NULL AND c.erasedAt IS NULL RETURN count(c) AS n"
MEANINGS = (
    "MATCH (c:Claim)-[:MEANS]->(:Meaning) RETURN count(c) AS claims, count(DISTINCT c) AS distinct"
)


class Served:
    def __init__(self, process: subprocess.Popen[str], base: str, log: Path) -> None:
        self.process, self.base, self.log = process, base, log

    def workers(self, started: int = 2) -> list[int]:
        """The command (a worker itself) and the sibling it started (not multiprocessing's
        resource tracker), once `started` apps in all have said they started."""

        def all_started() -> bool:
            assert self.process.poll() is None, self.log.read_text()
            return self.log.read_text().count("Application startup complete.") >= started

        polls = Retrying(
            retry=retry_if_result(lambda done: not done),
            stop=stop_after_delay(120),
            wait=wait_fixed(0.2),
            retry_error_callback=lambda _: pytest.fail(
                f"{started} apps not started in 120 s:\n{self.log.read_text()}"
            ),
        )
        polls(all_started)
        siblings = []
        for child in _children(self.process.pid):
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            if any(b"spawn_main" in part for part in command):
                siblings.append(child)
        return [self.process.pid, *siblings]


@pytest.fixture
def served_by_two(
    test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> Iterator[Served]:
    """`engram serve --workers 2` on a free port, the embedding worker polling every 0.2 s."""
    port = free_port()
    log = tmp_path / "serve.log"
    env = engram_env(
        test_settings,
        neo4j_target,
        ENGRAM_BROWSER="false",
        ENGRAM_EMBED_INTERVAL="0.2",
        # A busy suite may keep a request waiting for its turn longer than the default 2 s.
        ENGRAM_IN_FLIGHT_WAIT="60",
    )
    with log.open("w") as output:
        process = subprocess.Popen(
            [*ENGRAM, "serve", "--port", str(port), "--dev", "--workers", "2"],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(process, base, log, 120)
        yield Served(process, base, log)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(60)


async def test_two_workers_share_a_crowd_embed_once_outlive_a_killed_sibling_and_stop_together(
    served_by_two: Served, graph: Graph
) -> None:
    await people_story(graph)
    workers = served_by_two.workers()
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

    polls = AsyncRetrying(
        retry=retry_if_result(lambda done: not done),
        stop=stop_after_delay(60),
        wait=wait_fixed(0.2),
        retry_error_callback=lambda _: pytest.fail("claims were still unembedded after 60 s"),
    )
    await polls(none_pending)
    embeddable = (await graph.read(EMBEDDABLE))[0]["n"]
    assert embeddable >= 5
    meanings = (await graph.read(MEANINGS))[0]
    assert meanings["claims"] == meanings["distinct"] == embeddable

    # A sibling that dies is started again; then SIGTERM stops the command and it.
    os.kill(workers[1], signal.SIGKILL)
    workers = served_by_two.workers(started=3)
    assert len(workers) == 2
    async with httpx.AsyncClient(base_url=served_by_two.base, timeout=60) as http:
        for _ in range(6):  # fresh connections, dealt out over both sockets
            answer = await http.post("/graphql", json={"query": CLAIMS}, headers=CLOSE)
            assert answer.status_code == 200, answer.text
    served_by_two.process.send_signal(signal.SIGTERM)
    assert served_by_two.process.wait(60) == 0
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
