"""What a GraphQL request costs in Cypher queries: at most what the domain needs for the same
answer + 1 (the view, or nothing more) — the API never reads again what a domain call returned.

Each case asks the same thing twice on two identical stories: once through `Memory` (the domain
calls a resolver makes, plus the batch reads a direct caller needs for the same fields), once
through /graphql; the server reports its count in `extensions.queries`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest

from graph.domain.actor import Actor
from graph.domain.read_records import ClaimFilter
from graph.domain.vocabulary import Cardinality
from graph.memory import Memory, View
from graph.runtime import Embedder, Graph, Settings, query_count
from tests.http import gql
from tests.story import Story, day, new_story

T = TypeVar("T")
OPERATOR = Actor.operator("test")


async def counted(work: Callable[[], Awaitable[T]]) -> tuple[T, int]:
    counter = [0]
    token = query_count.set(counter)
    try:
        return await work(), counter[0]
    finally:
        query_count.reset(token)


async def cost(
    client: httpx.AsyncClient, query: str, variables: dict[str, Any] | None = None
) -> int:
    body = await gql(client, query, variables)
    assert "errors" not in body, body
    for payload in body["data"].values():
        assert not (isinstance(payload, dict) and payload.get("errors")), payload
    return int(body["extensions"]["queries"])


async def acme_story(graph: Graph, space: str) -> Story:
    story = await new_story(graph, space)
    await story.entity("entity:person:alice", "Alice")
    await story.entity("entity:person:bob", "Bob")
    await story.entity("entity:org:acme", "Acme")
    for person in ("alice", "bob"):
        said = await story.say(f"{person} works at acme", at=day(1))
        await story.remember(
            said,
            type="fact",
            subject={"key": f"entity:person:{person}"},
            predicate="WORKS_AT",
            object={"key": "entity:org:acme"},
            valid_from=day(1),
        )
    said = await story.say("I prefer dark mode", at=day(2))
    await story.remember(said, key="pref:ui:theme", value={"value": "dark"})
    return story


@pytest.fixture
async def memory(graph: Graph, test_settings: Settings, embedder: Embedder) -> Memory:
    return Memory(graph, test_settings, embedder)


@pytest.fixture
async def stories(graph: Graph) -> tuple[Story, Story]:
    """'domain' is read and written through Memory, 'alice' through /graphql."""
    return await acme_story(graph, "domain"), await acme_story(graph, "alice")


async def read_view(memory: Memory) -> View:
    return await memory.reads.view(OPERATOR, "domain")


async def test_a_fact_by_names_with_its_message_as_evidence_costs_two_round_trips(
    memory: Memory, stories: tuple[Story, Story]
) -> None:
    """The tick with the lookup (the space's predicate rules; the replays, the entities by id,
    key and name, the session episode, the evidence and the rows of the keys), and every
    write in one statement — plus the opening of the session episode and its audit event, the
    first time a writer gives evidence text on a day."""

    def fact(n: int) -> dict[str, Any]:
        return {
            "type": "fact",
            "subject": {"name": "Alice", "kind": "person"},
            "predicate": "KNOWS",
            "object": {"name": f"Carol {n}", "kind": "person"},
            "evidence": [{"text": f"alice knows carol {n}"}],
        }

    costs = []
    for n in range(3):
        [claim], queries = await counted(
            lambda n=n: memory.writes.remember(OPERATOR, "domain", [fact(n)])
        )
        assert claim.revision == 1 and len(claim.evidence) == 1
        costs.append(queries)
    assert costs == [4, 2, 2]


async def test_a_batch_goes_to_neo4j_without_its_lists_written_out_for_the_drivers_debug_log(
    memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    """The driver formats every statement's parameters for its debug log, logged or not; a
    batch's lists are named by their length, so their content is neither formatted nor, when
    that log is on, written to it."""
    facts = [
        {
            "type": "fact",
            "subject": {"name": "Alice", "kind": "person"},
            "predicate": "LIVES_IN",
            "value": "Ultramarine Street 7731",
            "evidence": [{"text": "alice: I live on Ultramarine Street"}],
        },
        {
            "type": "fact",
            "subject": {"name": "Carol", "kind": "person"},
            "predicate": "KNOWS",
            "object": {"name": "Alice", "kind": "person"},
            "evidence": [{"text": "carol knows alice"}],
        },
    ]
    await memory.writes.create_space(OPERATOR, "logged", "a space written with the log on")
    caplog.set_level(logging.DEBUG, logger="neo4j")
    claims = await memory.writes.remember(OPERATOR, "logged", facts)
    runs = [record.getMessage() for record in caplog.records if " C: RUN " in record.getMessage()]
    assert [claim.text for claim in claims] == [
        "Alice lives in Ultramarine Street 7731",
        "Carol knows Alice",
    ]
    assert runs, "the driver logged the statements it ran"
    assert not [line for line in runs if "Ultramarine" in line]
    assert [line for line in runs if "'claims': <list of 4>" in line]


async def test_an_entity_costs_its_lookup_and_the_view(
    memory: Memory, stories: tuple[Story, Story], client: httpx.AsyncClient
) -> None:
    view = await read_view(memory)
    _, domain = await counted(lambda: memory.reads.entity(view, key="entity:person:alice"))
    http = await cost(client, '{ entity(space: "alice", key: "entity:person:alice") { name } }')
    assert (domain, http) == (1, 2)


async def test_a_claims_page_with_evidence_and_entities_costs_the_domain_batches_and_the_view(
    memory: Memory, stories: tuple[Story, Story], client: httpx.AsyncClient
) -> None:
    view = await read_view(memory)

    async def page() -> None:
        found = await memory.reads.claims(view, ClaimFilter())
        await memory.reads.evidence(view, [c.id for c in found.claims])
        ids = {i for c in found.claims for i in (c.subject_id, c.object_id) if i}
        await memory.reads.entities(view, sorted(ids))

    _, domain = await counted(page)
    http = await cost(
        client,
        '{ claims(space: "alice", first: 50) { nodes { key evidence { text } '
        "subject { name } object { name } } } }",
    )
    assert http <= domain + 1


async def test_related_costs_the_domain_call_and_the_view(
    memory: Memory, stories: tuple[Story, Story], client: httpx.AsyncClient
) -> None:
    view = await read_view(memory)
    found, domain = await counted(
        lambda: memory.reads.related(view, {"key": "entity:person:alice"}, hops=2)
    )
    assert [e.name for e in found.entities] == ["Alice", "Acme", "Bob"]
    http = await cost(
        client,
        '{ related(space: "alice", entity: {key: "entity:person:alice"}, hops: 2) '
        "{ nodes { entity { name } distance } relations { type from { name } to { name } } } }",
    )
    # No lookup: one query finds the key's entity, walks both hops and names what it reached.
    assert (domain, http) == (1, 2)


async def test_related_by_id_costs_one_query_and_the_view(
    memory: Memory, stories: tuple[Story, Story], client: httpx.AsyncClient
) -> None:
    view = await read_view(memory)
    alice = await memory.reads.find_entity(view, {"key": "entity:person:alice"})
    found, domain = await counted(lambda: memory.reads.related(view, {"id": alice.id}, hops=2))
    assert [e.name for e in found.entities] == ["Alice", "Acme", "Bob"]
    answer = await gql(client, '{ entity(space: "alice", key: "entity:person:alice") { id } }')
    alice_id = answer["data"]["entity"]["id"]
    http = await cost(
        client,
        f'{{ related(space: "alice", entity: {{id: "{alice_id}"}}, hops: 2) '
        "{ nodes { entity { name } distance } relations { type from { name } to { name } } } }",
    )
    # No lookup: the walk starts from the id, both hops and the names in that one query.
    assert (domain, http) == (1, 2)


async def test_explain_relation_costs_the_domain_call_and_the_view(
    memory: Memory, stories: tuple[Story, Story], client: httpx.AsyncClient
) -> None:
    """One query finds both keys' entities, the paths, their claims with evidence and their
    entities (named as the view names them, so GraphQL asks for no names of its own)."""
    view = await read_view(memory)

    async def explain() -> None:
        why = await memory.reads.explain_relation(
            view, {"key": "entity:person:alice"}, {"key": "entity:person:bob"}
        )
        assert why.paths and {e.key for e in why.entities} >= {
            "entity:person:alice",
            "entity:person:bob",
        }

    _, domain = await counted(explain)
    http = await cost(
        client,
        '{ explainRelation(space: "alice", from: {key: "entity:person:alice"}, '
        'to: {key: "entity:person:bob"}) { paths { steps { from { name } to { name } '
        "claim { key } evidence { text } } } } }",
    )
    assert (domain, http) == (1, 2)


async def test_explain_relation_by_names_costs_their_lookups_too(
    memory: Memory, stories: tuple[Story, Story]
) -> None:
    view = await read_view(memory)
    why, domain = await counted(
        lambda: memory.reads.explain_relation(view, {"name": "alice"}, {"key": "entity:person:bob"})
    )
    assert why.paths
    # The name's two lookups (the view's names, then names borne before), then the paths.
    assert domain == 3


async def test_explain_relation_by_ids_costs_one_query_and_the_view(
    memory: Memory, stories: tuple[Story, Story], client: httpx.AsyncClient
) -> None:
    view = await read_view(memory)
    alice, bob = [
        await memory.reads.find_entity(view, {"key": f"entity:person:{name}"})
        for name in ("alice", "bob")
    ]
    why, domain = await counted(
        lambda: memory.reads.explain_relation(view, {"id": alice.id}, {"id": bob.id})
    )
    assert [[s.relation.type for s in path] for path in why.paths] == [["WORKS_AT", "WORKS_AT"]]
    answer = await gql(
        client,
        '{ a: entity(space: "alice", key: "entity:person:alice") { id } '
        'b: entity(space: "alice", key: "entity:person:bob") { id } }',
    )
    ids = (answer["data"]["a"]["id"], answer["data"]["b"]["id"])
    http = await cost(
        client,
        f'{{ explainRelation(space: "alice", from: {{id: "{ids[0]}"}}, to: {{id: "{ids[1]}"}}) '
        "{ paths { steps { from { name } to { name } claim { key } evidence { text } } } } }",
    )
    # No lookups: the paths, their claims with evidence and their entities in one query.
    assert (domain, http) == (1, 2)


async def test_search_costs_the_domain_call_its_evidence_and_the_view(
    memory: Memory, stories: tuple[Story, Story], client: httpx.AsyncClient
) -> None:
    view = await read_view(memory)

    async def search() -> None:
        hits = await memory.reads.search(view, "acme")
        await memory.reads.evidence(view, [h.claim.id for h in hits])

    _, domain = await counted(search)
    http = await cost(
        client, '{ search(space: "alice", query: "acme") { claim { key evidence { text } } } }'
    )
    assert http <= domain + 1


Command = Callable[[Memory, str, dict[str, str]], Awaitable[Any]]
MUTATIONS: dict[str, tuple[str, Command, Command | None]] = {}
# Each: the GraphQL mutation (with $space and the ids it needs), the same command through
# Memory, and what to prepare (uncounted) on both sides. Claim payloads ask for evidence and
# the subject, so the domain side reads those too.
CLAIM_FIELDS = "claim { key evidence { text } subject { name } }"


def mutation(
    name: str, document: str, prepare: Command | None = None
) -> Callable[[Command], Command]:
    def register(domain: Command) -> Command:
        MUTATIONS[name] = (document, domain, prepare)
        return domain

    return register


async def _claim_fields(memory: Memory, space: str, claims: list[Any]) -> None:
    view = await memory.reads.written_view(OPERATOR, space, claims)
    await memory.reads.evidence(view, [c.id for c in claims])
    await memory.reads.entities(view, [c.subject_id for c in claims if c.subject_id])


LIKES = {
    "type": "fact",
    "subject": {"key": "entity:person:alice"},
    "predicate": "LIKES",
    "object": {"key": "entity:org:acme"},
}
LIKES_INPUT = (
    'type: FACT, subject: {key: "entity:person:alice"}, predicate: "LIKES", '
    'object: {key: "entity:org:acme"}, evidence: [{observationId: $obs}]'
)


@mutation(
    "remember",
    "mutation($space: String!, $obs: ID!) { remember(space: $space, input: {"
    + LIKES_INPUT
    + "}) { "
    + CLAIM_FIELDS
    + " errors { code } } }",
)
async def _remember(memory: Memory, space: str, ids: dict[str, str]) -> None:
    done = await memory.writes.remember(
        OPERATOR, space, [{**LIKES, "evidence": [{"observation_id": ids["obs"]}]}]
    )
    await _claim_fields(memory, space, done)


@mutation(
    "rememberMany",
    "mutation($space: String!, $obs: ID!) { rememberMany(space: $space, inputs: [{"
    + LIKES_INPUT
    + '}, {key: "pref:ui:font", value: {value: "serif"}, evidence: [{observationId: $obs}]}]) '
    "{ claims { key evidence { text } subject { name } } errors { code } } }",
)
async def _remember_many(memory: Memory, space: str, ids: dict[str, str]) -> None:
    evidence = [{"observation_id": ids["obs"]}]
    done = await memory.writes.remember(
        OPERATOR,
        space,
        [
            {**LIKES, "evidence": evidence},
            {"key": "pref:ui:font", "value": {"value": "serif"}, "evidence": evidence},
        ],
    )
    await _claim_fields(memory, space, done)


@mutation(
    "link",
    'mutation($space: String!, $obs: ID!) { link(space: $space, input: {type: "ADVISES", '
    'from: {key: "entity:person:bob"}, to: {key: "entity:person:alice"}, '
    "evidence: [{observationId: $obs}]}) { " + CLAIM_FIELDS + " errors { code } } }",
)
async def _link(memory: Memory, space: str, ids: dict[str, str]) -> None:
    done = await memory.writes.remember(
        OPERATOR,
        space,
        [
            {
                "type": "fact",
                "subject": {"key": "entity:person:bob"},
                "predicate": "ADVISES",
                "object": {"key": "entity:person:alice"},
                "evidence": [{"observation_id": ids["obs"]}],
            }
        ],
    )
    await _claim_fields(memory, space, done)


@mutation(
    "correct",
    "mutation($space: String!, $obs: ID!, $claim: ID!) { correct(space: $space, input: "
    '{claimId: $claim, kind: SUPERSEDE, value: {value: "light"}, '
    'evidence: [{observationId: $obs}], reason: "changed"}) { '
    + CLAIM_FIELDS
    + " errors { code } } }",
)
async def _correct(memory: Memory, space: str, ids: dict[str, str]) -> None:
    fixed = await memory.writes.correct(
        OPERATOR,
        space,
        {
            "claim_id": ids["claim"],
            "kind": "SUPERSEDE",
            "value": {"value": "light"},
            "evidence": [{"observation_id": ids["obs"]}],
            "reason": "changed",
        },
    )
    await _claim_fields(memory, space, [fixed])


@mutation(
    "createSpace",
    'mutation { createSpace(name: "fresh", description: "new") '
    "{ space { name } errors { code } } }",
)
async def _create_space(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.create_space(OPERATOR, "fresh-domain", "new")


@mutation(
    "declarePredicate",
    'mutation($space: String!) { declarePredicate(space: $space, predicate: "ADVISES", '
    "cardinality: MANY) { rule { declared } errors { code } } }",
)
async def _declare(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.declare_predicate(OPERATOR, space, "ADVISES", Cardinality.MANY)


@mutation(
    "declarePredicates",
    "mutation($space: String!) { declarePredicates(space: $space, rules: ["
    '{predicate: "MENTORS", cardinality: MANY}, {predicate: "OWNS", cardinality: ONE}]) '
    "{ rules { declared } errors { code } } }",
)
async def _declare_many(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.declare_predicates(
        OPERATOR, space, [("MENTORS", Cardinality.MANY), ("OWNS", Cardinality.ONE)]
    )


@mutation(
    "openEpisode",
    'mutation($space: String!) { openEpisode(space: $space, input: {title: "t"}) '
    "{ episode { id } errors { code } } }",
)
async def _open(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.open_episode(OPERATOR, space, {"title": "t"})


@mutation(
    "recordObservation",
    "mutation($space: String!, $episode: ID!) { recordObservation(space: $space, input: "
    '{episodeId: $episode, content: "hello"}) { observation { id } errors { code } } }',
)
async def _record(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.record_observation(
        OPERATOR, space, {"episode_id": ids["episode"], "content": "hello"}
    )


@mutation(
    "sealEpisode",
    "mutation($space: String!, $episode: ID!) { sealEpisode(space: $space, input: "
    "{episodeId: $episode}) { episode { status } errors { code } } }",
)
async def _seal(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.seal_episode(OPERATOR, space, {"episode_id": ids["episode"]})


@mutation(
    "addArtifact",
    'mutation($space: String!) { addArtifact(space: $space, input: {content: "a note"}) '
    "{ artifact { id } errors { code } } }",
)
async def _artifact(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.add_artifact(OPERATOR, space, {"content": "a note"})


MERGE = {"survivor": {"key": "entity:person:alice"}, "duplicate": {"key": "entity:person:bob"}}


@mutation(
    "mergeEntities",
    "mutation($space: String!) { mergeEntities(space: $space, input: {survivor: {key: "
    '"entity:person:alice"}, duplicate: {key: "entity:person:bob"}, reason: "same"}) '
    "{ mergeId errors { code } } }",
)
async def _merge(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.merge_entities(OPERATOR, space, {**MERGE, "reason": "same"})


async def _merged(memory: Memory, space: str, ids: dict[str, str]) -> dict[str, str]:
    return {
        "merge": await memory.writes.merge_entities(OPERATOR, space, {**MERGE, "reason": "same"})
    }


@mutation(
    "unmergeEntities",
    "mutation($space: String!, $merge: ID!) { unmergeEntities(space: $space, mergeId: $merge, "
    'reason: "not the same") { undone errors { code } } }',
    _merged,
)
async def _unmerge(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.writes.unmerge_entities(OPERATOR, space, ids["merge"], "not the same")


@mutation(
    "forget",
    "mutation($space: String!, $obs: ID!) { forget(space: $space, selector: {kind: OBSERVATION, "
    'id: $obs}, reason: "asked") { receipt { tombstoneId } errors { code } } }',
)
async def _forget(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.forgetting.forget(
        OPERATOR, space, {"selector": {"kind": "OBSERVATION", "id": ids["obs"]}, "reason": "asked"}
    )


@mutation(
    "setLegalHold",
    "mutation($space: String!, $claim: ID!) { setLegalHold(space: $space, selector: {kind: CLAIM, "
    'id: $claim}, reason: "case 7") { holdId errors { code } } }',
)
async def _hold(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.forgetting.set_legal_hold(
        OPERATOR, space, {"selector": {"kind": "CLAIM", "id": ids["claim"]}, "reason": "case 7"}
    )


async def _held(memory: Memory, space: str, ids: dict[str, str]) -> dict[str, str]:
    hold = {"selector": {"kind": "CLAIM", "id": ids["claim"]}, "reason": "case 7"}
    return {"hold": await memory.forgetting.set_legal_hold(OPERATOR, space, hold)}


@mutation(
    "releaseLegalHold",
    "mutation($space: String!, $hold: ID!) { releaseLegalHold(space: $space, holdId: $hold, "
    'reason: "closed") { released errors { code } } }',
    _held,
)
async def _release(memory: Memory, space: str, ids: dict[str, str]) -> None:
    await memory.forgetting.release_legal_hold(OPERATOR, space, ids["hold"], "closed")


@pytest.mark.fast
def test_every_mutation_of_the_schema_has_its_cost_case() -> None:
    from graphql import build_schema

    from api.graphql.schema import sdl

    mutation_type = build_schema(sdl()).mutation_type
    assert mutation_type is not None
    assert sorted(mutation_type.fields) == sorted(MUTATIONS)


@pytest.mark.parametrize("name", sorted(MUTATIONS))
async def test_a_mutation_costs_the_domain_command_and_at_most_one_more(
    name: str, memory: Memory, stories: tuple[Story, Story], client: httpx.AsyncClient
) -> None:
    document, domain_command, prepare = MUTATIONS[name]
    costs = []
    for story in stories:
        said = await story.say("it changed", at=day(3))
        view = await memory.reads.view(OPERATOR, story.space)
        [theme] = await memory.reads.claim_history(view, "pref:ui:theme")
        ids = {"obs": said, "claim": theme.id, "episode": story.episode_id}
        if prepare is not None:
            ids.update(await prepare(memory, story.space, ids))
        if story.space == "domain":

            async def direct(space: str = story.space, given: dict[str, str] = ids) -> Any:
                return await domain_command(memory, space, given)

            costs.append((await counted(direct))[1])
        else:
            wanted = {"space": story.space, **ids}
            variables = {k: v for k, v in wanted.items() if f"${k}" in document}
            costs.append(await cost(client, document, variables))
    domain, http = costs
    assert http <= domain + 1, f"{name}: domain {domain}, GraphQL {http}"
