"""The tier matrix: a writer at tier W never changes, returns or learns of anything above W.

Every write (remember, rememberMany, link, the three kinds of correct, forget by every selector,
openEpisode, recordObservation, addArtifact, mergeEntities, unmergeEntities, setLegalHold,
releaseLegalHold) is sent over HTTP by a key at W, once in a world that holds things above W
(a key, an entity, facts about W's entities, an episode, a merge, a hold, an idempotency key)
and once in the same world without them. Nothing above W may change (a snapshot of every node
and relationship above W), and the two answers must be equal field by field — a write cannot
tell the worlds apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from api.app import create_app
from graph.domain.actor import Grant
from graph.domain.vocabulary import Privacy
from graph.memory import Memory
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.support import delete_all_data
from tests.tier_worlds import SPACE, World, above, build, normalised

PAYLOAD = "errors { code message field }"
CLAIM = (
    "claim { key revision type status privacy value validFrom validTo actor reason "
    "evidence { kind text } subject { key name } } " + PAYLOAD
)
RECEIPT = (
    "receipt { tombstoneId watermark claims observations episodes artifacts entities "
    "madeInactive wholeSpace replayed } " + PAYLOAD
)


@dataclass(frozen=True)
class Write:
    """One write as the key sends it: the mutation, its variables from the world's ids, and
    the outcome expected (a code, or None for success) in both worlds."""

    mutation: str
    variables: Callable[[dict[str, str]], dict[str, Any]]
    expect: str | None
    legal: bool = False


def _evidence(ids: dict[str, str]) -> list[dict[str, str]]:
    return [{"observationId": ids["said"]}]


def _remember(**fields: Any) -> Write:
    return Write(
        f'mutation($input: RememberInput!) {{ remember(space: "{SPACE}", input: $input) '
        f"{{ {CLAIM} }} }}",
        lambda ids: {"input": {"privacy": ids["tier"], **fields, "evidence": _evidence(ids)}},
        fields.pop("_expect", None),
    )


def _link(relation: str, to: str, expect: str | None) -> Write:
    return Write(
        f'mutation($input: LinkInput!) {{ link(space: "alice", input: $input) {{ {CLAIM} }} }}',
        lambda ids: {
            "input": {
                "from": {"key": "entity:person:alice"},
                "type": relation,
                "to": {"key": to},
                "privacy": ids["tier"],
                "evidence": _evidence(ids),
            }
        },
        expect,
    )


def _forget(selector: Callable[[dict[str, str]], dict[str, Any]], expect: str | None) -> Write:
    return Write(
        'mutation($selector: SelectorInput!) { forget(space: "alice", selector: $selector, '
        f'reason: "asked") {{ {RECEIPT} }} }}',
        lambda ids: {"selector": selector(ids)},
        expect,
    )


def _correct(kind: str, target: str, expect: str | None, **more: Any) -> Write:
    def variables(ids: dict[str, str]) -> dict[str, Any]:
        extra = {k: ids[v] if k.endswith("Id") else v for k, v in more.items()}
        evidence = {} if "againstClaimId" in more else {"evidence": _evidence(ids)}
        return {
            "input": {
                "claimId": ids[target],
                "kind": kind,
                "reason": "fixing",
                **evidence,
                **extra,
            }
        }

    return Write(
        "mutation($input: CorrectInput!) "
        f'{{ correct(space: "alice", input: $input) {{ {CLAIM} }} }}',
        variables,
        expect,
    )


WRITES: dict[str, Write] = {
    "remember the value a hidden row holds": _remember(key="pref:ui:font", value={"value": "mono"}),
    "remember another value of a hidden key": _remember(
        key="pref:ui:font", value={"value": "serif"}
    ),
    "remember with a hidden idempotency key": _remember(
        key="pref:ui:font", value={"value": "serif"}, idempotencyKey="font-1"
    ),
    "remember expecting revision 0 of a hidden key": _remember(
        key="pref:ui:font", value={"value": "serif"}, expectedRevision=0
    ),
    "remember expecting revision 1 of a hidden key": _remember(
        key="pref:ui:font",
        value={"value": "serif"},
        expectedRevision=1,
        _expect="REVISION_CONFLICT",
    ),
    "remember a hidden entity's key": _remember(key="entity:person:carol", value={"name": "Carol"}),
    "remember a fact about a hidden entity": _remember(
        type="FACT",
        subject={"key": "entity:person:carol"},
        predicate="KNOWS",
        object={"key": "entity:person:alice"},
        _expect="NOT_FOUND",
    ),
    "remember a fact naming a hidden entity": _remember(
        type="FACT",
        subject={"name": "Carol"},
        predicate="KNOWS",
        object={"key": "entity:person:alice"},
        _expect="NOT_FOUND",
    ),
    "remember a fact about an entity merged away above the tier": _remember(
        type="FACT",
        subject={"key": "entity:org:acme"},
        predicate="SUPPLIES",
        object={"key": "entity:person:alice"},
    ),
    "remember many beside hidden keys": Write(
        'mutation($inputs: [RememberInput!]!) { rememberMany(space: "alice", inputs: $inputs) '
        "{ claims { key revision privacy value } errors { code message field } } }",
        lambda ids: {
            "inputs": [
                {
                    "key": "entity:person:carol",
                    "value": {"name": "Carol"},
                    "privacy": ids["tier"],
                    "evidence": _evidence(ids),
                },
                {
                    "key": "pref:ui:font",
                    "value": {"value": "mono"},
                    "privacy": ids["tier"],
                    "evidence": _evidence(ids),
                },
            ]
        },
        None,
    ),
    "link to a hidden entity": _link("KNOWS", "entity:person:carol", "NOT_FOUND"),
    "link two visible entities": _link("FOUNDED", "entity:org:acme", None),
    "supersede a visible fact": _correct(
        "SUPERSEDE", "works", None, validTo="2030-01-01T00:00:00Z"
    ),
    "retract a visible fact": _correct("RETRACT", "works", None),
    "dispute a visible fact": _correct("DISPUTE", "works", None),
    "retract a hidden fact": _correct("RETRACT", "earns", "NOT_FOUND"),
    "dispute a visible fact against a hidden one": _correct(
        "DISPUTE", "works", "NOT_FOUND", againstClaimId="earns"
    ),
    "forget a visible claim": _forget(lambda ids: {"kind": "CLAIM", "id": ids["works"]}, None),
    "forget a hidden claim": _forget(
        lambda ids: {"kind": "CLAIM", "id": ids["earns"]}, "NOT_FOUND"
    ),
    "forget a visible subject and predicate": _forget(
        lambda ids: {
            "kind": "SUBJECT_PREDICATE",
            "subject": {"key": "entity:person:alice"},
            "predicate": "WORKS_AT",
        },
        None,
    ),
    "forget a hidden subject and predicate": _forget(
        lambda ids: {
            "kind": "SUBJECT_PREDICATE",
            "subject": {"key": "entity:person:alice"},
            "predicate": "EARNS",
        },
        "NOT_FOUND",
    ),
    "forget an entity hidden facts are about": _forget(
        lambda ids: {"kind": "ENTITY", "id": ids["alice"]}, None
    ),
    "forget an entity a hidden fact names as subject": _forget(
        lambda ids: {"kind": "ENTITY", "id": ids["acme"]}, None
    ),
    "forget an episode holding a hidden observation": _forget(
        lambda ids: {"kind": "EPISODE", "id": ids["chat"]}, None
    ),
    "forget a hidden episode": _forget(
        lambda ids: {"kind": "EPISODE", "id": ids["diary"]}, "NOT_FOUND"
    ),
    "forget a visible observation": _forget(
        lambda ids: {"kind": "OBSERVATION", "id": ids["said"]}, None
    ),
    "forget a hidden observation": _forget(
        lambda ids: {"kind": "OBSERVATION", "id": ids["hidden_said"]}, "NOT_FOUND"
    ),
    "forget a visible artifact": _forget(lambda ids: {"kind": "ARTIFACT", "id": ids["doc"]}, None),
    "forget the whole space": _forget(lambda ids: {"kind": "SPACE"}, "FORBIDDEN"),
    "open an episode above the tier": Write(
        'mutation($input: OpenEpisodeInput) { openEpisode(space: "alice", input: $input) '
        "{ episode { title status } errors { code message field } } }",
        lambda ids: {"input": {"title": "x", "privacy": "SECRET"}},
        "FORBIDDEN",
    ),
    "open an episode superseding a hidden one": Write(
        'mutation($input: OpenEpisodeInput) { openEpisode(space: "alice", input: $input) '
        "{ episode { title status } errors { code message field } } }",
        lambda ids: {"input": {"title": "x", "supersedes": ids["diary"], "privacy": ids["tier"]}},
        "NOT_FOUND",
    ),
    "record an observation in a hidden episode": Write(
        'mutation($input: ObservationInput!) { recordObservation(space: "alice", '
        "input: $input) { observation { content } errors { code message field } } }",
        lambda ids: {"input": {"episodeId": ids["diary"], "content": "hello"}},
        "NOT_FOUND",
    ),
    "record an observation above the tier": Write(
        'mutation($input: ObservationInput!) { recordObservation(space: "alice", '
        "input: $input) { observation { content } errors { code message field } } }",
        lambda ids: {"input": {"episodeId": ids["chat"], "content": "hi", "privacy": "SECRET"}},
        "FORBIDDEN",
    ),
    "add an artifact above the tier": Write(
        'mutation($input: ArtifactInput!) { addArtifact(space: "alice", input: $input) '
        "{ artifact { storage } errors { code message field } } }",
        lambda ids: {"input": {"content": "x", "privacy": "SECRET"}},
        "FORBIDDEN",
    ),
    "merge a hidden entity into a visible one": Write(
        'mutation($input: MergeInput!) { mergeEntities(space: "alice", input: $input) '
        "{ mergeId errors { code message field } } }",
        lambda ids: {
            "input": {
                "survivor": {"key": "entity:person:alice"},
                "duplicate": {"key": "entity:person:carol"},
                "reason": "same",
            }
        },
        "NOT_FOUND",
    ),
    "undo a hidden merge": Write(
        'mutation($id: ID!) { unmergeEntities(space: "alice", mergeId: $id, reason: "no") '
        "{ undone errors { code message field } } }",
        lambda ids: {"id": ids["merge"]},
        "NOT_FOUND",
    ),
    "hold without the legal grant": Write(
        'mutation($selector: SelectorInput!) { setLegalHold(space: "alice", '
        'selector: $selector, reason: "case") { holdId errors { code message field } } }',
        lambda ids: {"selector": {"kind": "CLAIM", "id": ids["works"]}},
        "FORBIDDEN",
    ),
    "hold a hidden fact": Write(
        'mutation($selector: SelectorInput!) { setLegalHold(space: "alice", '
        'selector: $selector, reason: "case") { holdId errors { code message field } } }',
        lambda ids: {
            "selector": {
                "kind": "SUBJECT_PREDICATE",
                "subject": {"key": "entity:person:alice"},
                "predicate": "EARNS",
            }
        },
        "NOT_FOUND",
        legal=True,
    ),
    "release a hidden hold": Write(
        'mutation($id: ID!) { releaseLegalHold(space: "alice", holdId: $id, reason: "done") '
        "{ released errors { code message field } } }",
        lambda ids: {"id": ids["hold"]},
        "NOT_FOUND",
        legal=True,
    ),
}

TIERS = [
    (Privacy.NORMAL, Privacy.SECRET),
    (Privacy.PUBLIC, Privacy.NORMAL),
    (Privacy.PRIVATE, Privacy.SECRET),
]


@pytest.fixture(scope="module")
async def production(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    """One production-mode app for the module's cases (each already sends its two worlds through
    one app; starting an app per case cost ~0.3 s of 117 cases' time on an idle machine)."""
    settings = test_settings.model_copy(update={"dev": False})
    async with running(create_app(settings, neo4j_target)) as http:
        yield http


async def _entity_ids(graph: Graph, world: World) -> None:
    rows = await graph.read(
        "MATCH (e:Entity {key: $alice}) RETURN e.id AS alice "
        "UNION ALL MATCH (e:Entity {key: $acme}) RETURN e.id AS alice",
        alice="entity:person:alice",
        acme="entity:org:acme",
    )
    world.ids["alice"], world.ids["acme"] = rows[0]["alice"], rows[1]["alice"]


async def _send(
    memory: Memory,
    client: httpx.AsyncClient,
    writer: Privacy,
    write: Write,
    ids: dict[str, str],
) -> dict[str, Any]:
    grant = Grant(SPACE, writer, write=True, legal=write.legal)
    key = (await memory.admin.create_key("writer", [grant])).secret
    variables = write.variables({**ids, "tier": writer.name})
    body = await gql(client, write.mutation, variables, headers={"authorization": f"Bearer {key}"})
    assert "errors" not in body, body
    [answer] = body["data"].values()
    return dict(answer)


@pytest.mark.parametrize(
    "tiers", TIERS, ids=lambda t: f"{t[0].name.lower()}-under-{t[1].name.lower()}"
)
@pytest.mark.parametrize("name", list(WRITES))
async def test_a_write_cannot_tell_or_touch_what_lies_above_its_tier(
    memory: Memory,
    graph: Graph,
    production: httpx.AsyncClient,
    test_settings: Settings,
    name: str,
    tiers: tuple[Privacy, Privacy],
) -> None:
    writer, hidden = tiers
    write = WRITES[name]

    hiding = await build(graph, test_settings, writer, hidden)
    await _entity_ids(graph, hiding)
    before = await above(graph, writer)
    answer_hiding = await _send(memory, production, writer, write, hiding.ids)
    after = await above(graph, writer)
    assert {k: after.get(k) for k in before} == before, "something above the writer changed"

    await delete_all_data(graph)
    plain = await build(graph, test_settings, writer, None)
    await _entity_ids(graph, plain)
    # What only the hiding world has is referred to by the same id strings in the plain one.
    ids = {**hiding.ids, **plain.ids}
    answer_plain = await _send(memory, production, writer, write, ids)

    codes = [error["code"] for error in answer_plain["errors"]]
    assert codes == ([write.expect] if write.expect else [])
    assert normalised(answer_hiding) == normalised(answer_plain)
