"""`engram import` killed midway: running it again finishes it, with the same result as one
uninterrupted import and nothing left open."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from graph.domain.actor import Actor
from graph.memory import Memory
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.support import ENGRAM, engram_env, run_engram, until_async

LINES = 3000
BATCH = 50

CLAIMS_IN = """
MATCH (s:Space {name: $space})
RETURN COUNT { MATCH (c:Claim {spaceId: s.id}) } AS n
"""
EPISODES = """
MATCH (s:Space {name: $space}), (e:Episode {spaceId: s.id})
RETURN e.kind AS kind, e.status AS status, e.title AS title,
       reduce(top = 0, n IN e.observationCounts | CASE WHEN n > top THEN n ELSE top END)
         AS observations
"""
OBSERVATIONS = """
MATCH (s:Space {name: $space}), (e:Episode {spaceId: s.id})-[:HAS_OBSERVATION]->(o)
RETURN o.seq AS seq, o.content AS content
"""
CLAIMS = """
MATCH (s:Space {name: $space}), (c:Claim {spaceId: s.id})
RETURN c.key AS key, c.revision AS revision, c.status AS status, c.valueJson AS value,
       c.supersededAt IS NULL AS current
"""
ACTIONS = """
MATCH (s:Space {name: $space}), (a:AuditEvent {spaceId: s.id})
RETURN a.action AS action
"""


def items_file(tmp_path: Path) -> Path:
    source = tmp_path / "items.jsonl"
    lines = [
        {"type": "tasks", "key": f"task:engram:t{i}", "value_json": {"status": "todo", "n": i}}
        for i in range(LINES)
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return source


async def state(graph: Graph, space: str) -> dict[str, Any]:
    """What an import leaves in `space`, without ids or recorded times."""

    def rows(found: list[dict[str, Any]]) -> list[str]:
        return sorted(json.dumps(row, sort_keys=True) for row in found)

    actions = Counter(row["action"] for row in await graph.read(ACTIONS, space=space))
    return {
        "episodes": rows(await graph.read(EPISODES, space=space)),
        "observations": rows(await graph.read(OBSERVATIONS, space=space)),
        "claims": rows(await graph.read(CLAIMS, space=space)),
        "audit": dict(actions),
    }


async def test_an_import_killed_midway_is_finished_by_running_it_again(
    memory: Memory, graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    source = items_file(tmp_path)
    await memory.writes.create_space(Actor.operator("test"), "whole", "")
    await memory.writes.create_space(Actor.operator("test"), "resumed", "")
    lines = source.read_text().splitlines()
    await memory.admin.import_items(
        Actor.operator("cli:import"), "whole", lines, source=source.name, batch_size=BATCH
    )

    env = engram_env(test_settings, neo4j_target)
    command = [*ENGRAM, "import", str(source), "--space", "resumed", "--batch-size", str(BATCH)]
    quiet = subprocess.DEVNULL
    killed = subprocess.Popen(command, env=env, stdout=quiet, stderr=quiet)

    async def four_batches_written() -> bool:
        assert killed.poll() is None, "the import ended before it could be killed"
        return (await graph.read(CLAIMS_IN, space="resumed"))[0]["n"] >= 4 * BATCH

    await until_async(
        four_batches_written, within=120, every=0.05, failing="the import wrote nothing in 120 s"
    )
    killed.send_signal(signal.SIGKILL)
    assert killed.wait(timeout=30) == -signal.SIGKILL
    written = (await graph.read(CLAIMS_IN, space="resumed"))[0]["n"]
    assert 4 * BATCH <= written < LINES, "killed partway through"
    assert [json.loads(e)["status"] for e in (await state(graph, "resumed"))["episodes"]] == [
        "open"
    ], "the killed import left its episode open"

    rerun = run_engram(env, "import", str(source), "--space", "resumed", "--batch-size", str(BATCH))
    assert rerun.returncode == 0, rerun.stderr
    report = re.match(
        r"(\d+) lines: (\d+) remembered \(0 then retracted\), (\d+) already known, "
        r"0 skipped, 0 refused",
        rerun.stdout,
    )
    assert report, rerun.stdout
    lines, remembered, known = map(int, report.groups())
    # A batch is one transaction: the kill leaves whole batches — and the commit of the batch
    # the import had sent as it was killed may still land after `written` was counted.
    assert (lines, remembered + known) == (LINES, LINES)
    assert written <= known < LINES and known % BATCH == 0, (written, known)

    whole, resumed = await state(graph, "whole"), await state(graph, "resumed")
    sealed = {"kind": "import", "status": "sealed", "title": "import of items.jsonl"}
    assert [json.loads(e) for e in resumed["episodes"]] == [{**sealed, "observations": LINES}]
    assert resumed == whole
