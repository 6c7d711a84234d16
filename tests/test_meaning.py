"""Meaning vectors: the packaged MiniLM model, the embedding outbox, search by meaning, and
vectors that are erased with what they mean and never written back."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from api.app import create_app
from bench._support import SCAN_OPERATORS, query_plan
from graph.domain.actor import Actor
from graph.domain.errors import SetupError
from graph.domain.vocabulary import SelectorKind
from graph.erasure.forget import forget
from graph.erasure.purge_outbox import purge_spaces
from graph.jobs.backup import backup, restore
from graph.meaning import embeddings
from graph.meaning.embeddings import (
    DIMENSIONS,
    GROUP,
    MODEL_SHA256,
    Embedder,
    check_file,
    count_pending,
    embed_pending,
    pending,
    store,
)
from graph.memory import ForgetInput, Memory, Selector, View
from graph.reads.search import search
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.story import Story, new_story
from tests.support import engram_env, run_engram, until_async

NOWHERE = Path("/nonexistent")

MEANINGS: str = "MATCH (c:Claim)-[:MEANS]->(m:Meaning) RETURN c.id AS id, m.spaceId AS space"
MEANING_INDEXES: str = "MATCH (ix:MeaningIndex) RETURN ix.state AS state"


NEAREST: str = (
    "MATCH (m:Meaning) WITH m ORDER BY vector.similarity.cosine(m.embedding, $v) DESC LIMIT 10 "
    "RETURN m.claimId AS id"
)


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture
async def story(graph: Graph) -> Story:
    story = await new_story(graph)
    said = await story.say("I love mountaineering, every summer in the Alps")
    await story.remember(said, key="pref:other:hobby", value={"value": "mountaineering"})
    tea = await story.say("remember: oolong, not green")
    await story.remember(tea, key="pref:other:drink", value={"value": "oolong tea"})
    return story


async def forget_claim(story: Story, claim_id: str) -> None:
    await story.memory.forgetting.forget(
        Actor.operator("test"),
        story.space,
        ForgetInput(selector=Selector(kind=SelectorKind.CLAIM, id=claim_id), reason="asked"),
    )


def test_the_model_gives_unit_vectors_that_rank_a_paraphrase_above_an_unrelated_text(
    embedder: Embedder,
) -> None:
    climbing, paraphrase, taxes = embedder.embed(
        ["I love mountaineering", "climbing peaks is my passion", "quarterly tax filing"]
    )
    assert len(climbing) == DIMENSIONS
    assert math.isclose(math.sqrt(cosine(climbing, climbing)), 1.0, abs_tol=1e-5)
    assert cosine(climbing, paraphrase) > 0.5 > 0.1 > cosine(climbing, taxes)
    assert embedder.embed([]) == []


@pytest.mark.fast
def test_a_model_file_with_other_bytes_is_refused(tmp_path: Path) -> None:
    tampered = tmp_path / "model.onnx"
    tampered.write_bytes(b"not the model")
    with pytest.raises(SetupError, match="model.onnx has sha256 .* expected 8199be6f"):
        check_file(tampered, MODEL_SHA256)
    with pytest.raises(SetupError, match="cannot read .*missing.onnx"):
        check_file(tmp_path / "missing.onnx", MODEL_SHA256)


def test_a_text_embeds_the_same_alone_and_in_a_batch(embedder: Embedder) -> None:
    [alone] = embedder.embed(["oolong tea"])
    batched = embedder.embed(["a much longer sentence that pads the batch a lot", "oolong tea"])
    assert cosine(alone, batched[1]) == pytest.approx(1.0, abs=1e-5)


def test_a_large_batch_of_mixed_lengths_keeps_every_vector_in_its_place(
    embedder: Embedder,
) -> None:
    texts = [" ".join(["word"] * (n % 9 + 1)) + f" item {n}" for n in range(GROUP * 2 + 5)]
    batched = embedder.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        assert cosine(embedder.embed([text])[0], vector) == pytest.approx(1.0, abs=1e-5), text


def test_groups_run_on_two_threads_give_exactly_the_vectors_of_one_thread(
    embedder: Embedder,
) -> None:
    texts = [f"{'long ' * (n % 7)}claim number {n} about tea" for n in range(GROUP * 3 + 1)]
    two = Embedder(threads=2)
    assert two.embed(texts) == embedder.embed(texts)


async def test_a_claim_is_found_by_meaning_once_the_outbox_has_embedded_it(
    story: Story, embedder: Embedder
) -> None:
    view = await story.view()
    assert await story.memory.reads.search(view, "climbing peaks") == []
    assert await count_pending(story.graph) == 2
    assert await embed_pending(story.graph, embedder) == 2
    assert await count_pending(story.graph) == 0
    hits = await story.memory.reads.search(view, "climbing peaks")
    assert [(h.claim.key, h.sources) for h in hits] == [("pref:other:hobby", ("meaning",))]
    assert await embed_pending(story.graph, embedder) == 0


async def test_a_new_revision_waits_for_its_own_vector_and_search_sees_only_the_current_one(
    story: Story, embedder: Embedder
) -> None:
    await embed_pending(story.graph, embedder)
    [hobby] = [c for c in await story.memory.reads.search(await story.view(), "alps")]
    said = await story.say("I gave up climbing; I sail now")
    await story.correct(
        claim_id=hobby.claim.id,
        kind="SUPERSEDE",
        value={"value": "sailing"},
        reason="changed hobby",
        evidence=[{"observation_id": said}],
    )
    assert await count_pending(story.graph) == 1
    await embed_pending(story.graph, embedder)
    view = await story.view()
    by_meaning = await story.memory.reads.search(view, "boats on the sea")
    assert [(h.claim.value, h.sources) for h in by_meaning] == [
        ({"value": "sailing"}, ("meaning",))
    ]
    # The old revision keeps its vector for views of the past, and only those see it.
    climbing = await story.memory.reads.search(view, "climbing peaks")
    assert {"value": "mountaineering"} not in [h.claim.value for h in climbing]
    before = await story.view(known_at=hobby.claim.recorded_at)
    climbing_then = await story.memory.reads.search(before, "climbing peaks")
    assert [h.claim.value for h in climbing_then] == [{"value": "mountaineering"}]


async def test_forgetting_a_claim_deletes_its_vector_so_its_nearest_neighbour_query_is_empty(
    story: Story, embedder: Embedder
) -> None:
    await embed_pending(story.graph, embedder)
    [hit] = await story.memory.reads.search(await story.view(), "climbing peaks")
    [vector] = embedder.embed([hit.claim.text])
    await forget_claim(story, hit.claim.id)
    near = await story.graph.read(NEAREST, v=vector)
    assert hit.claim.id not in [row["id"] for row in near]
    assert [row["id"] for row in await story.graph.read(MEANINGS)] == [
        (await story.memory.reads.search(await story.view(), "oolong"))[0].claim.id
    ]
    assert await story.memory.reads.search(await story.view(), "climbing peaks") == []


async def test_a_vector_computed_before_a_forget_is_never_written_back(
    story: Story, embedder: Embedder
) -> None:
    waiting = await pending(story.graph)
    vectors = embedder.embed([row["text"] for row in waiting])
    hobby = next(row for row in waiting if "mountaineering" in row["text"])
    await forget_claim(story, hobby["id"])
    stored = await store(
        story.graph,
        [{**row, "vector": v} for row, v in zip(waiting, vectors, strict=True)],
    )
    assert stored == 1
    assert hobby["id"] not in [row["id"] for row in await story.graph.read(MEANINGS)]
    assert await count_pending(story.graph) == 0
    assert await story.memory.reads.search(await story.view(), "climbing peaks") == []


async def test_a_space_forget_purges_its_vectors_and_no_other_spaces(
    memory: Memory, story: Story, graph: Graph, embedder: Embedder
) -> None:
    other = await new_story(graph, "bob")
    said = await other.say("bob likes hiking")
    await other.remember(said, key="pref:other:hobby", value={"value": "hiking"})
    await embed_pending(graph, embedder)
    await forget(
        graph,
        story.space,
        ForgetInput(selector=Selector(kind=SelectorKind.SPACE), reason="closed"),
        actor=Actor.operator("test"),
        blob_root=NOWHERE,
    )
    await purge_spaces(graph)
    rows = await graph.read(MEANINGS)
    assert len(rows) == 1
    hits = await memory.reads.search(await other.view(), "walking in the hills")
    assert [(h.claim.id, h.sources) for h in hits] == [(rows[0]["id"], ("meaning",))]


async def test_a_backup_leaves_vectors_out_and_a_restore_embeds_again(
    story: Story, restored: Graph, embedder: Embedder, tmp_path: Path
) -> None:
    await embed_pending(story.graph, embedder, index_from=2)  # alice gets her own index
    assert await story.graph.read(MEANING_INDEXES) == [{"state": "ready"}]
    report = await backup(story.graph, tmp_path / "b.zip", blob_root=tmp_path)
    nodes = await story.graph.read("MATCH (n) WHERE NOT n:Migration RETURN count(n) AS n")
    assert report.nodes == nodes[0]["n"] - 3  # two vectors and the index's marker stay out
    await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "restored")
    assert await restored.read(MEANINGS) == []
    assert await restored.read(MEANING_INDEXES) == []
    assert await count_pending(restored) == 2
    assert await embed_pending(restored, embedder, index_from=2) == 2
    assert await restored.read(MEANING_INDEXES) == [{"state": "ready"}]
    hits = await search(restored, await View.open(restored, "alice"), "climbing peaks", embedder)
    assert [(h.claim.key, h.sources) for h in hits] == [("pref:other:hobby", ("meaning",))]


async def test_the_server_embeds_in_the_background_and_search_finds_by_meaning(
    test_settings: Settings, neo4j_target: Neo4jTarget, story: Story
) -> None:
    eager = test_settings.model_copy(update={"embed_interval": 0.05})
    async with running(create_app(eager, neo4j_target)) as client:

        async def all_embedded() -> bool:
            return await count_pending(story.graph) == 0

        await until_async(all_embedded, within=10, every=0.05, failing="unembedded after 10 s")
        body = await gql(
            client,
            '{ search(space: "alice", query: "climbing peaks") { sources claim { key } } }',
        )
    assert body["data"]["search"] == [
        {"sources": ["meaning"], "claim": {"key": "pref:other:hobby"}}
    ]


async def test_engram_embed_fills_in_every_waiting_vector(
    story: Story, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    done = run_engram(engram_env(test_settings, neo4j_target), "embed")
    assert (done.returncode, done.stdout.strip()) == (0, "embedded 2 claims"), done.stderr
    assert await count_pending(story.graph) == 0


@pytest.mark.parametrize("query", ["STORE", "DROP_UNEMBEDDABLE"])
async def test_the_outbox_finds_claims_by_their_unique_id_never_by_a_scan(
    graph: Graph, query: str
) -> None:
    plan = await query_plan(
        graph, getattr(embeddings, query), {"rows": [], "ids": [], "model": "m"}, profile=False
    )
    operators = {step.operator for step in plan}
    assert "NodeUniqueIndexSeek(Locking)" in operators
    assert not operators & SCAN_OPERATORS
