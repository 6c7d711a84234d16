"""Two worlds for the tier matrix: the same memory seen by a writer at tier W, once with and once
without things above W (a hidden tier H). A write at W must answer the same in both and leave
everything above W as it was."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, LiteralString

from graph.commands.artifacts import ArtifactInput, add_artifact
from graph.commands.episodes import (
    ObservationInput,
    OpenEpisodeInput,
    open_episode,
    record_observation,
)
from graph.commands.merge import MergeInput, merge_entities
from graph.commands.remember import RememberInput, remember
from graph.commands.spaces import create_space
from graph.domain.actor import Actor
from graph.domain.inputs import parse
from graph.domain.vocabulary import Privacy
from graph.erasure.holds import HoldInput, set_legal_hold
from graph.erasure.selectors import Selector, SelectorKind
from graph.runtime import Graph, Settings

OPERATOR = Actor.operator("operator")
SPACE = "alice"

ABOVE: LiteralString = """
MATCH (n)
WHERE n.privacy > $tier
RETURN 'node:' + elementId(n) AS id, [labels(n), properties(n)] AS state
UNION ALL
MATCH (a)-[r]->(b)
WHERE r.privacy > $tier OR a.privacy > $tier OR b.privacy > $tier
RETURN 'rel:' + elementId(r) AS id, [type(r), elementId(a), elementId(b), properties(r)] AS state
"""


async def above(graph: Graph, tier: Privacy) -> dict[str, Any]:
    """Every node above `tier`, and every relationship above it or touching such a node."""
    return {row["id"]: row["state"] for row in await graph.read(ABOVE, tier=int(tier))}


@dataclass
class World:
    """Ids by name: what the writer can see, and (from the hidden world) what it cannot."""

    ids: dict[str, str] = field(default_factory=dict)


async def _say(graph: Graph, episode: str, text: str, privacy: Privacy) -> str:
    observation = await record_observation(
        graph,
        SPACE,
        ObservationInput(episode_id=episode, content=text, privacy=privacy),
        actor=OPERATOR,
    )
    return observation.id


async def _remember(graph: Graph, evidence: str, **fields: Any) -> str:
    data = {**fields, "evidence": [{"observation_id": evidence}]}
    [claim] = await remember(graph, SPACE, [parse(RememberInput, data)], actor=OPERATOR)
    return claim.id


async def _merge(graph: Graph, duplicate: str, survivor: str) -> str:
    merge = MergeInput(survivor={"key": survivor}, duplicate={"key": duplicate}, reason="same")
    return await merge_entities(graph, SPACE, merge, actor=OPERATOR)


async def build(graph: Graph, settings: Settings, writer: Privacy, hidden: Privacy | None) -> World:
    """The writer's memory at tier `writer`, plus (when `hidden`) a tier above it that holds a
    key, entities, facts about the writer's entities, an episode, merges (one of the writer's
    entities into a hidden one) and a legal hold."""
    world = World()
    ids = world.ids
    await create_space(graph, SPACE, "", actor=OPERATOR)
    chat = await open_episode(
        graph, SPACE, OpenEpisodeInput(title="chat", privacy=writer), actor=OPERATOR
    )
    ids["chat"] = chat.id
    said = await _say(graph, chat.id, "Alice works at Acme and likes dark themes", writer)
    ids["said"] = said
    for key, name in [("entity:person:alice", "Alice"), ("entity:org:acme", "Acme")]:
        await _remember(graph, said, key=key, value={"name": name}, privacy=writer)
    ids["works"] = await _remember(
        graph,
        said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"key": "entity:org:acme"},
        privacy=writer,
    )
    ids["theme"] = await _remember(
        graph, said, key="pref:ui:theme", value={"value": "dark"}, privacy=writer
    )
    doc = await add_artifact(
        graph,
        SPACE,
        ArtifactInput(content="the contract", privacy=writer),
        blob_root=settings.blobs,
        actor=OPERATOR,
    )
    ids["doc"] = doc.id
    if hidden is None:
        return world
    secret = await _say(graph, chat.id, "Alice earns 100 and Carol is her friend", hidden)
    ids["hidden_said"] = secret
    diary = await open_episode(
        graph, SPACE, OpenEpisodeInput(title="diary", privacy=hidden), actor=OPERATOR
    )
    ids["diary"] = diary.id
    await _say(graph, diary.id, "a diary entry", hidden)
    hidden_entities = [
        ("entity:person:carol", "Carol"),
        ("entity:person:dave", "Dave"),
        ("entity:org:bigco", "BigCo"),
    ]
    for key, name in hidden_entities:
        await _remember(graph, secret, key=key, value={"name": name}, privacy=hidden)
    ids["earns"] = await _remember(
        graph,
        secret,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="EARNS",
        value=100,
        privacy=hidden,
    )
    await _remember(
        graph,
        secret,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="KNOWS",
        object={"key": "entity:person:carol"},
        privacy=hidden,
    )
    await _remember(
        graph,
        secret,
        type="fact",
        subject={"key": "entity:org:acme"},
        predicate="HQ_IN",
        value="Berlin",
        privacy=hidden,
    )
    ids["font"] = await _remember(
        graph,
        secret,
        key="pref:ui:font",
        value={"value": "mono"},
        privacy=hidden,
        idempotency_key="font-1",
    )
    ids["merge"] = await _merge(graph, "entity:person:dave", "entity:person:carol")
    # A merge above the writer's tier of one of its own entities into a hidden one.
    await _merge(graph, "entity:org:acme", "entity:org:bigco")
    ids["hold"] = await set_legal_hold(
        graph,
        SPACE,
        HoldInput(selector=Selector(kind=SelectorKind.CLAIM, id=ids["earns"]), reason="case 7"),
        actor=OPERATOR,
    )
    return world


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)")
_KEY_ID = re.compile(r"key:[0-9a-f]{12}:")


def normalised(answer: Any) -> str:
    """An answer with fresh ids and recorded instants named by order of first appearance (they
    are new in every world), so two worlds' answers compare field by field."""
    text = _KEY_ID.sub("key:K:", repr(answer))
    for pattern, name in ((_UUID, "id"), (_INSTANT, "t")):
        text = _renamed(pattern, name, text)
    return text


def _renamed(pattern: re.Pattern[str], name: str, text: str) -> str:
    seen: dict[str, str] = {}
    return pattern.sub(lambda m: seen.setdefault(m[0], f"<{name}{len(seen)}>"), text)
