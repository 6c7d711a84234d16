"""Forgotten content never comes back — through six paths, 10 seeded cases each (100 with the deep
profile, `HYPOTHESIS_PROFILE=deep ./scripts/test`):
(a) server-side caches, (b) replays of idempotency keys and embedding jobs that finish after the
forget, (c) stale full-text and vector index candidates, (d) artifacts and their outbox,
(e) re-import of old data, (f) restore of an older backup.

Each case writes a secret into a claim's value (`claim-…`) and into the message it came from
(`said-…`), forgets it with a selector drawn from the seed, and then looks for the secret through
the path under test and, finally, in every property of every node and relationship.
"""

from __future__ import annotations

import json
import random
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from api.app import create_app
from graph.commands.artifacts import add_artifact
from graph.commands.writing import begin_write
from graph.domain.actor import Actor
from graph.domain.errors import Forgotten
from graph.domain.vocabulary import SelectorKind
from graph.erasure.forget import forget_in
from graph.jobs.backup import backup, restore
from graph.meaning.embeddings import Embedder, embed_pending, pending, store
from graph.memory import (
    ArtifactInput,
    EvidenceRef,
    ForgetInput,
    Memory,
    ObservationInput,
    RememberInput,
    Selector,
)
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.story import Story, new_story
from tests.support import DEEP
from tests.text_search_everywhere import mentions_anywhere

SEEDS = range(100 if DEEP else 10)
"""A case's seed picks its selector kind (`KINDS`, in turn) and its secret's token: every run
forgets through each kind twice."""

CLAIM_TEXT = "MATCH (c:Claim {id: $id}) RETURN c.text AS text"
PLANT_STALE = """
MATCH (c:Claim {id: $id}) WHERE c.erasedAt IS NOT NULL
SET c.text = $text
CREATE (c)-[:MEANS]->(m:Meaning {spaceId: c.spaceId, claimId: c.id, stale: true})
WITH c, m
CALL db.create.setNodeVectorProperty(m, 'embedding', $vector)
RETURN c.id AS id
"""
UNPLANT_STALE = """
MATCH (c:Claim {id: $id})
OPTIONAL MATCH (c)-[:MEANS]->(m:Meaning {stale: true})
DETACH DELETE m
WITH DISTINCT c WHERE c.erasedAt IS NOT NULL
REMOVE c.text
"""
# The full-text index is updated just after commit (V0013): wait until it holds every write.
FULL_TEXT_CANDIDATES = (
    "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh() "
    "CALL db.index.fulltext.queryNodes('claim_text', $q) YIELD node RETURN node.id AS id"
)
VECTOR_CANDIDATES = (
    "MATCH (m:Meaning) WITH m ORDER BY vector.similarity.cosine(m.embedding, $vector) DESC "
    "LIMIT 20 RETURN m.claimId AS id"
)
ERASED_WITH_VECTORS = """
MATCH (c:Claim)-[:MEANS]->(:Meaning) WHERE c.erasedAt IS NOT NULL RETURN c.id AS id
"""
KINDS = [
    SelectorKind.CLAIM,
    SelectorKind.OBSERVATION,
    SelectorKind.EPISODE,
    SelectorKind.SUBJECT_PREDICATE,
    SelectorKind.ENTITY,
]


@dataclass
class Case:
    story: Story
    kind: SelectorKind
    claim_secret: str
    said_secret: str
    control: str
    selector: Selector
    said_id: str
    claim_id: str
    remember_input: RememberInput

    @property
    def gone(self) -> list[str]:
        """What this selector erases (an observation's forget leaves the claim, retracted)."""
        if self.kind in (SelectorKind.OBSERVATION, SelectorKind.EPISODE):
            return [self.said_secret]
        return [self.said_secret, self.claim_secret]


async def make_case(graph: Graph, seed: int, space: str | None = None) -> Case:
    rng = random.Random(seed)
    kind = KINDS[seed % len(KINDS)]
    token = f"{seed}x{rng.randrange(10**9):09d}"
    story = await new_story(graph, space or f"case{seed}")
    person = await story.entity(f"entity:person:p{seed}", f"Person {seed}")
    control_said = await story.say(f"control-{token} stays")
    await story.remember(control_said, key="pref:other:control", value={"value": f"ctl-{token}"})
    said = await story.say(f"my code word is said-{token}")
    item = RememberInput(
        type="fact",
        subject={"id": person.subject_id},
        predicate="CODE_WORD",
        value=f"claim-{token}",
        evidence=[EvidenceRef(observation_id=said)],
        idempotency_key=f"remember-{token}",
    )
    [claim] = await story.memory.writes.remember(Actor.operator("agent"), story.space, [item])
    targets = {
        SelectorKind.CLAIM: {"id": claim.id},
        SelectorKind.OBSERVATION: {"id": said},
        SelectorKind.EPISODE: {"id": story.episode_id},
        SelectorKind.SUBJECT_PREDICATE: {
            "subject": {"id": person.subject_id},
            "predicate": "CODE_WORD",
        },
        SelectorKind.ENTITY: {"id": person.subject_id},
    }
    return Case(
        story,
        kind,
        f"claim-{token}",
        f"said-{token}",
        f"ctl-{token}",
        Selector(kind=kind, **targets[kind]),
        said,
        claim.id,
        item,
    )


async def forget_case(case: Case, blob_root: Path = Path("/nonexistent")) -> None:
    await case.story.memory.forgetting.forget(
        Actor.operator("agent"),
        case.story.space,
        ForgetInput(selector=case.selector, reason="asked"),
    )


async def assert_gone(graph: Graph, case: Case) -> None:
    for text in case.gone:
        assert await mentions_anywhere(graph, text) == [], f"{text} survived ({case.kind})"
    if case.kind is not SelectorKind.EPISODE:
        assert await mentions_anywhere(graph, case.control) != [], "the control must survive"


@pytest.mark.parametrize("seed", SEEDS)
async def test_a_server_side_cache_never_serves_forgotten_content(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget, seed: int
) -> None:
    case = await make_case(graph, seed, space="alice")
    queries = [
        'query($q: String!) { search(space: "alice", query: $q) '
        "{ claim { value text evidence { text } } } }",
        '{ claims(space: "alice", first: 100) { nodes { value evidence { text } } } }',
        'query($id: ID!) { episode(space: "alice", id: $id) { observations { content } } }',
    ]
    async with running(create_app(test_settings, neo4j_target)) as client:
        variables = {"id": case.story.episode_id, "q": f"{case.claim_secret} {case.said_secret}"}
        warm = [json.dumps(await gql(client, q, variables)) for q in queries]
        assert any(case.said_secret in body for body in warm), "the cache was warmed"
        selector = case.selector.model_dump(mode="json", exclude_none=True)
        forgot = await gql(
            client,
            'mutation($s: SelectorInput!) { forget(space: "alice", selector: $s, '
            'reason: "asked") { receipt { tombstoneId } errors { code } } }',
            {"s": selector},
        )
        assert forgot["data"]["forget"]["errors"] == [], forgot
        for query in queries:
            body = json.dumps(await gql(client, query, variables))
            for text in case.gone:
                assert text not in body
    await assert_gone(graph, case)


@pytest.mark.parametrize("seed", SEEDS)
async def test_replaying_an_idempotency_key_never_brings_content_back(
    memory: Memory, graph: Graph, seed: int
) -> None:
    case = await make_case(graph, seed)
    await forget_case(case)
    if case.kind is SelectorKind.OBSERVATION or case.kind is SelectorKind.EPISODE:
        # The claim was not forgotten (only its evidence): the replay answers the first result,
        # now without the forgotten evidence.
        [first] = await memory.writes.remember(
            Actor.operator("agent"), case.story.space, [case.remember_input]
        )
        assert (first.id, first.evidence) == (case.claim_id, ())
        assert case.said_secret not in repr(first)
    else:
        with pytest.raises(Forgotten, match="was forgotten"):
            await memory.writes.remember(
                Actor.operator("agent"), case.story.space, [case.remember_input]
            )
    replay = ObservationInput(
        episode_id=case.story.episode_id, content="again", idempotency_key=f"obs-{seed}"
    )
    if case.kind is not SelectorKind.EPISODE:
        await memory.writes.record_observation(Actor.operator("agent"), case.story.space, replay)
    await assert_gone(graph, case)


@pytest.mark.parametrize("seed", SEEDS)
async def test_a_stale_index_candidate_is_never_returned(
    memory: Memory, graph: Graph, embedder: Embedder, seed: int
) -> None:
    case = await make_case(graph, seed)
    await embed_pending(graph, embedder)
    [text] = [row["text"] for row in await graph.read(CLAIM_TEXT, id=case.claim_id)]
    [vector] = embedder.embed([text])
    await forget_case(case)
    # Make the full-text and vector indexes hold the secret again on the erased skeleton, as a
    # lagging index (or a crash between erasure and index update) would.
    stale = await graph.write(PLANT_STALE, id=case.claim_id, text=text, vector=vector)
    if stale:
        candidates = await graph.read(FULL_TEXT_CANDIDATES, q=case.claim_secret)
        assert case.claim_id in [c["id"] for c in candidates], "the stale candidate is there"
        near = await graph.read(VECTOR_CANDIDATES, vector=vector)
        assert case.claim_id in [c["id"] for c in near], "the stale vector is there"
    view = await case.story.view()
    for query in (case.claim_secret, case.said_secret, text):
        hits = await memory.reads.search(view, query)
        for secret in case.gone:
            assert all(secret not in (h.claim.text + json.dumps(h.claim.value)) for h in hits)
    await graph.write(UNPLANT_STALE, id=case.claim_id)
    await assert_gone(graph, case)


@pytest.mark.parametrize("seed", SEEDS)
async def test_an_embedding_job_that_finishes_after_a_forget_never_writes_its_vector(
    memory: Memory, graph: Graph, embedder: Embedder, seed: int
) -> None:
    case = await make_case(graph, seed)
    waiting = await pending(graph)
    assert case.claim_id in [row["id"] for row in waiting]
    vectors = await embedder.embed_async([row["text"] for row in waiting])
    await forget_case(case)
    await store(graph, [{**row, "vector": v} for row, v in zip(waiting, vectors, strict=True)])
    await embed_pending(graph, embedder)  # a retry of the whole outbox changes nothing either
    assert await graph.read(ERASED_WITH_VECTORS) == []
    vector = vectors[[row["id"] for row in waiting].index(case.claim_id)]
    near = [row["id"] for row in await graph.read(VECTOR_CANDIDATES, vector=vector)]
    erased = case.claim_secret in case.gone
    assert (case.claim_id in near) is not erased
    view = await case.story.view()
    for query in (case.claim_secret, case.said_secret):
        for hit in await memory.reads.search(view, query):
            assert all(secret not in hit.claim.text for secret in case.gone)
    await assert_gone(graph, case)


@pytest.mark.parametrize("seed", SEEDS)
async def test_forgotten_artifacts_are_unreadable_and_their_blobs_deleted_even_after_a_crash(
    memory: Memory,
    graph: Graph,
    test_settings: Settings,
    neo4j_target: Neo4jTarget,
    tmp_path: Path,
    seed: int,
) -> None:
    await new_story(graph, "alice")
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    (blobs / f"scan-{seed}.txt").write_text(f"blob-secret-{seed}")
    inline = await add_artifact(
        graph,
        "alice",
        ArtifactInput(content=f"inline-secret-{seed}"),
        blob_root=blobs,
        actor=Actor.operator("a"),
    )
    blob = await add_artifact(
        graph,
        "alice",
        ArtifactInput(path=f"scan-{seed}.txt"),
        blob_root=blobs,
        actor=Actor.operator("a"),
    )
    [claim] = await memory.writes.remember(
        Actor.operator("a"),
        "alice",
        [
            RememberInput(
                key="case:docs:scan",
                value={"value": f"doc-secret-{seed}"},
                evidence=[EvidenceRef(artifact_id=inline.id), EvidenceRef(artifact_id=blob.id)],
            )
        ],
    )
    target = [claim.id, inline.id, blob.id][seed % 3]
    kind = [SelectorKind.CLAIM, SelectorKind.ARTIFACT, SelectorKind.ARTIFACT][seed % 3]
    request = ForgetInput(selector=Selector(kind=kind, id=target), reason="asked")

    async def work(tx: object) -> object:  # forget, then "crash" before the outbox drains
        ctx = await begin_write(tx, "alice", Actor.operator("agent"))
        return await forget_in(ctx, request)

    await graph.write_tx(work)  # type: ignore[arg-type]
    erased_blob = kind is SelectorKind.CLAIM or target == blob.id
    if erased_blob:
        assert (blobs / f"scan-{seed}.txt").exists(), "the crash left the file behind"
    with pytest.raises(Forgotten):
        await memory.writes.remember(
            Actor.operator("a"),
            "alice",
            [
                RememberInput(
                    key="case:docs:again",
                    value={"value": 1},
                    evidence=[
                        EvidenceRef(
                            artifact_id=target if kind is SelectorKind.ARTIFACT else inline.id
                        )
                    ],
                )
            ],
        )
    restarted = test_settings.model_copy(update={"blob_root": blobs})
    async with running(create_app(restarted, neo4j_target)):
        pass  # start-up drains the outbox
    assert (blobs / f"scan-{seed}.txt").exists() is not erased_blob
    if kind is SelectorKind.CLAIM or target == inline.id:
        assert await mentions_anywhere(graph, f"inline-secret-{seed}") == []
    if kind is SelectorKind.CLAIM:
        assert await mentions_anywhere(graph, f"doc-secret-{seed}") == []


@pytest.mark.parametrize("seed", SEEDS)
async def test_reimporting_old_data_never_brings_it_back(
    memory: Memory, graph: Graph, seed: int
) -> None:
    await memory.writes.create_space(Actor.operator("t"), "alice", "")
    rng = random.Random(seed)
    lines = [
        json.dumps(
            {
                "type": "preferences",
                "key": f"pref:other:item{i}",
                "value_json": {"value": f"import-secret-{seed}-{i}"},
                "authority": "user_stated",
            }
        )
        for i in range(3)
    ]
    await memory.admin.import_items(Actor.operator("t"), "alice", lines, source="old.jsonl")
    victim = rng.randrange(3)
    rows = await graph.read(
        "MATCH (c:Claim {key: $key}) RETURN c.id AS id", key=f"pref:other:item{victim}"
    )
    selector = Selector(kind=SelectorKind.CLAIM, id=rows[0]["id"])
    await memory.forgetting.forget(
        Actor.operator("t"), "alice", ForgetInput(selector=selector, reason="asked")
    )
    again = await memory.admin.import_items(Actor.operator("t"), "alice", lines, source="old.jsonl")
    reserialised = [
        json.dumps(dict(reversed(json.loads(line).items())), separators=(" ,", " : "))
        for line in reversed(lines)
    ]
    renamed = await memory.admin.import_items(
        Actor.operator("t"), "alice", reserialised, source="copy.jsonl"
    )
    assert (again.remembered, renamed.remembered) == (0, 0)
    assert [r.code for r in renamed.refused] == ["FORGOTTEN"]
    assert await mentions_anywhere(graph, f"import-secret-{seed}-{victim}") == []
    for other in set(range(3)) - {victim}:
        assert await mentions_anywhere(graph, f"import-secret-{seed}-{other}") != []


@pytest.mark.parametrize("seed", SEEDS)
async def test_restoring_a_backup_taken_before_a_forget_never_brings_it_back(
    graph: Graph, restored: Graph, tmp_path: Path, seed: int
) -> None:
    case = await make_case(graph, seed)
    archive = tmp_path / "before.backup"
    await backup(graph, archive, blob_root=tmp_path)
    with zipfile.ZipFile(archive) as zipped:
        assert case.said_secret in zipped.read("nodes.jsonl").decode(), "the backup has it"
    await forget_case(case)
    report = await restore(restored, archive, blob_root=tmp_path / "b", ledger=graph)
    assert report.replayed_tombstones >= 1
    assert report.checks["tombstones"] == "no forgotten data present"
    await assert_gone(restored, case)
