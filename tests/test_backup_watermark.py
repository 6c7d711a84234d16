"""A backup holds what was known at its watermark, and writers go on while it runs."""

from __future__ import annotations

import asyncio
import json
import time
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.generate import generate
from graph.domain.actor import Actor, Grant
from graph.domain.timeutil import to_native
from graph.domain.vocabulary import Privacy, SelectorKind
from graph.erasure.forget import forget
from graph.jobs.backup import backup
from graph.jobs.restore import restore
from graph.memory import ForgetInput, HoldInput, Memory, SealEpisodeInput, Selector
from graph.runtime import Graph
from graph.store.clock import BARRIER
from tests.people_story import on, people_story
from tests.story import new_story

SNAPSHOT_NODES = """
MATCH (n) WHERE NOT n:Migration AND NOT n:Meaning
RETURN labels(n) AS labels, properties(n) AS props
"""
SNAPSHOT_RELATIONSHIPS = """
MATCH (a)-[r]->(b) WHERE NOT r:MEANS
RETURN coalesce(a.id, a.name) AS start, type(r) AS type, coalesce(b.id, b.name) AS end,
       properties(r) AS props
"""
CLAIM_ROWS = "MATCH (c:Claim) RETURN c.id AS id, c.recordedAt AS recordedAt, c.supersededAt AS s"


async def snapshot(graph: Graph) -> tuple[list[str], list[str]]:
    """Every node and relationship (but migrations and meaning vectors), as sorted JSON lines."""

    def line(row: dict[str, Any]) -> str:
        if "labels" in row:
            row = {**row, "labels": sorted(row["labels"])}
        return json.dumps(row, sort_keys=True, default=str)

    nodes = sorted(line(row) for row in await graph.read(SNAPSHOT_NODES))
    relationships = sorted(line(row) for row in await graph.read(SNAPSHOT_RELATIONSHIPS))
    return nodes, relationships


async def clock(graph: Graph) -> datetime:
    """A recovery point, taken as a backup takes it: every clock set to one instant."""
    return to_native((await graph.write(BARRIER))[0]["watermark"])


async def test_a_restored_backup_equals_the_graph_as_known_at_its_watermark(
    memory: Memory, graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    people = await people_story(graph)
    story = people.story
    hold = await memory.forgetting.set_legal_hold(
        Actor.operator("t"),
        "alice",
        HoldInput(
            selector=Selector(kind=SelectorKind.CLAIM, id=people.claims["bob-acme"].id),
            reason="litigation",
        ),
    )
    watermark = await clock(graph)
    then = await snapshot(graph)
    # After the watermark: a supersede (stamps supersededAt on rows and relations known then),
    # a new claim, a hold released, the episode sealed.
    moved = await story.say("alice moved to Initech", at=on(2025, 1))
    await story.correct(
        claim_id=people.claims["alice-globex"].id,
        kind="SUPERSEDE",
        valid_to=on(2024, 12, 31),
        reason="she left",
        evidence=[{"observation_id": moved}],
    )
    await story.remember(moved, key="pref:tools:editor", value={"value": "vim"})
    await memory.forgetting.release_legal_hold(Actor.operator("t"), "alice", hold, "settled")
    await memory.writes.seal_episode(
        Actor.operator("t"), "alice", SealEpisodeInput(episode_id=story.episode_id)
    )
    assert await snapshot(graph) != then

    report = await backup(graph, tmp_path / "b.zip", blob_root=tmp_path, as_known_at=watermark)
    assert report.watermark == watermark
    await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r")
    now = await snapshot(restored)
    for was, got in zip(then, now, strict=True):
        assert sorted(set(got) - set(was)) == sorted(set(was) - set(got)) == []


async def test_what_is_forgotten_after_the_watermark_stays_forgotten_in_the_backup(
    graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    people = await people_story(graph)
    watermark = await clock(graph)
    victim = people.claims["bob-acme"].id
    await forget(
        graph,
        "alice",
        ForgetInput(selector=Selector(kind=SelectorKind.CLAIM, id=victim), reason="asked"),
        actor=Actor.operator("t"),
        blob_root=tmp_path,
    )
    report = await backup(graph, tmp_path / "b.zip", blob_root=tmp_path, as_known_at=watermark)
    assert report.tombstones == 1, "a tombstone recorded after the watermark is in the ledger"
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        lines = archive.read("nodes.jsonl").decode().splitlines()
    [row] = [json.loads(line) for line in lines if victim in line and '"Claim"' in line]
    assert "erasedAt" in row["props"] and "text" not in row["props"]
    # Even without the live ledger, the archive's own ledger erases it again.
    await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r", ledger=None)
    rows = await restored.read(
        "MATCH (c:Claim {id: $id}) RETURN c.erasedAt IS NOT NULL AS erased, c.text AS text",
        id=victim,
    )
    assert rows == [{"erased": True, "text": None}]


async def test_writes_during_a_backup_succeed_without_waiting_for_it(
    graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    await generate(graph, "bulk", claims=2000, show_progress=False)
    story = await new_story(graph, "writer")
    said = await story.say("my editor changes often")
    editors = ["vim", "emacs", "helix", "nano"]
    await story.remember(said, key="pref:tools:editor", value={"value": "ed"})
    backing_up = asyncio.create_task(backup(graph, tmp_path / "b.zip", blob_root=tmp_path))
    latencies: list[tuple[float, float]] = []
    while not backing_up.done():
        started = time.perf_counter()
        # Each write supersedes the previous revision of the key: rows known at the watermark
        # get a supersededAt after it.
        value = editors[len(latencies) % len(editors)]
        await story.remember(said, key="pref:tools:editor", value={"value": value})
        latencies.append((started, time.perf_counter()))
    report = await backing_up

    assert len(latencies) >= 5, "writes went on while the backup ran"
    slowest = max(end - start for start, end in latencies)
    assert slowest < report.seconds / 2, f"a write waited {slowest:.2f} s of {report.seconds:.2f}"
    live = {row["id"]: row for row in await graph.read(CLAIM_ROWS)}
    after = [row for row in live.values() if to_native(row["recordedAt"]) > report.watermark]
    assert len(after) >= 3, "writes were recorded after the watermark while the backup ran"

    await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r", ledger=graph)
    expected = {
        id_: row["s"] if row["s"] is not None and to_native(row["s"]) <= report.watermark else None
        for id_, row in live.items()
        if to_native(row["recordedAt"]) <= report.watermark
    }
    assert {row["id"]: row["s"] for row in await restored.read(CLAIM_ROWS)} == expected


async def test_a_claim_whose_evidence_is_forgotten_after_the_watermark_is_retracted_on_restore(
    graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    people = await people_story(graph)
    watermark = await clock(graph)
    claim = people.claims["carol-globex"]
    [evidence] = await graph.read(
        "MATCH (:Claim {id: $id})-[:SUPPORTED_BY]->(o:Observation) RETURN o.id AS id", id=claim.id
    )
    # Forgetting the message erases the evidence link too; the claim, left with none, gets a
    # retracted revision recorded after the watermark.
    await forget(
        graph,
        "alice",
        ForgetInput(
            selector=Selector(kind=SelectorKind.OBSERVATION, id=evidence["id"]), reason="asked"
        ),
        actor=Actor.operator("t"),
        blob_root=tmp_path,
    )
    await backup(graph, tmp_path / "b.zip", blob_root=tmp_path, as_known_at=watermark)
    report = await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r", ledger=None)
    assert report.checks["invariants"] == "hold"
    rows = await restored.read(
        "MATCH (c:Claim {key: $key}) RETURN c.revision AS revision, c.status AS status, "
        "c.supersededAt IS NULL AS current ORDER BY revision",
        key=claim.key,
    )
    assert rows == [
        {"revision": 1, "status": "active", "current": False},
        {"revision": 2, "status": "retracted", "current": True},
    ]


async def test_an_entity_lifted_after_a_backup_stays_out_of_lower_views_after_restoring_it(
    graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    normal = Actor("normal", {"alice": Grant("alice", Privacy.NORMAL, write=True)})
    story = await new_story(graph)
    alice = await story.entity("entity:person:alice", "Alice")
    secret_said = await story.say("Alice earns 100")
    await graph.write("MATCH (o:Observation {id: $id}) SET o.privacy = 3", id=secret_said)
    await story.remember(
        secret_said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="EARNS",
        value=100,
        privacy=3,
    )
    await backup(graph, tmp_path / "b.zip", blob_root=tmp_path)
    await forget(
        graph,
        "alice",
        ForgetInput(selector=Selector(kind=SelectorKind.ENTITY, id=alice.subject_id), reason="x"),
        actor=normal,
        blob_root=tmp_path,
    )
    await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r", ledger=graph)
    rows = await restored.read(
        "MATCH (e:Entity {id: $id}) RETURN e.privacy AS privacy, e.erasedAt IS NULL AS kept",
        id=alice.subject_id,
    )
    assert rows == [{"privacy": 3, "kept": True}], "lifted again: only the secret tier sees it"
    [naming] = await restored.read(
        "MATCH (c:Claim {id: $id}) RETURN c.erasedAt IS NOT NULL AS erased", id=alice.id
    )
    assert naming == {"erased": True}
