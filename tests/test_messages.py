"""Recall of what was said: the GraphQL `messages` query finds the messages themselves — by their
words, by the meaning of a claim drawn from them, in an observed-at window, by role and episode —
as the key's tier sees them, and never a forgotten one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
import pytest

from api.app import create_app
from graph.domain.actor import Actor, Grant
from graph.domain.vocabulary import Privacy
from graph.memory import Memory
from graph.runtime import Embedder, Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.story import day

OWNER = Actor.operator("owner")

MESSAGES = """
query($query: String, $from: DateTime, $to: DateTime, $role: Role, $episode: ID, $first: Int!,
      $knownAt: DateTime) {
  messages(space: "trips", query: $query, from: $from, to: $to, role: $role,
           episode: $episode, first: $first, knownAt: $knownAt) {
    score sources observation { id content role episodeId observedAt }
  }
}
"""


@dataclass(frozen=True)
class Said:
    """The seeded conversation: message ids by a short name, the two episodes, the key."""

    ids: dict[str, str]
    chat: str
    other: str
    key: str


@pytest.fixture
async def said(graph: Graph, test_settings: Settings, embedder: Embedder) -> Said:
    memory = Memory(graph, test_settings, embedder)
    await memory.writes.create_space(OWNER, "trips")
    chat = await memory.writes.open_episode(OWNER, "trips", {"title": "planning"})
    other = await memory.writes.open_episode(OWNER, "trips", {"title": "later"})
    lines = {
        "lisbon": (chat.id, "We are planning a trip to Lisbon in May", "user", 3.0, 1),
        "trains": (chat.id, "I can look up trains to Lisbon for you", "assistant", 3.5, 1),
        "window": (chat.id, "I always book a spot next to the window when I fly", "user", 4.0, 1),
        "budget": (other.id, "The trip budget is tight this year", "user", 9.0, 1),
        "passport": (other.id, "My passport for the trip expires in June", "user", 5.0, 3),
    }
    recorded = await memory.writes.record_observations(
        OWNER,
        "trips",
        [
            {
                "episode_id": episode,
                "content": text,
                "role": role,
                "observed_at": day(0) + timedelta(days=when),
                "privacy": tier,
            }
            for episode, text, role, when, tier in lines.values()
        ],
    )
    ids = dict(zip(lines, (o.id for o in recorded), strict=True))
    await memory.writes.remember(
        OWNER,
        "trips",
        [
            {
                "type": "pref",
                "key": "pref:other:seat",
                "value": {"value": "prefers window seats on flights"},
                "evidence": [{"observation_id": ids["window"]}],
            }
        ],
    )
    await memory.admin.embed_pending()
    reader = await memory.admin.create_key("reader", [Grant("trips", Privacy.NORMAL)])
    return Said(ids, chat.id, other.id, reader.secret)


@pytest.fixture
async def client(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    production = test_settings.model_copy(update={"dev": False})
    async with running(create_app(production, neo4j_target)) as http:
        yield http


async def recall(client: httpx.AsyncClient, said: Said, **variables: Any) -> list[dict[str, Any]]:
    body = await gql(
        client,
        MESSAGES,
        {"first": 20, **variables},
        headers={"authorization": f"Bearer {said.key}"},
    )
    assert "errors" not in body, body
    hits: list[dict[str, Any]] = body["data"]["messages"]
    return hits


def names(said: Said, hits: list[dict[str, Any]]) -> list[str]:
    by_id = {v: k for k, v in said.ids.items()}
    return [by_id[h["observation"]["id"]] for h in hits]


async def test_messages_are_found_by_their_words_with_the_message_itself_in_the_answer(
    client: httpx.AsyncClient, said: Said
) -> None:
    hits = await recall(client, said, query="Lisbon")

    assert sorted(names(said, hits)) == ["lisbon", "trains"]
    assert {h["observation"]["content"] for h in hits} == {
        "We are planning a trip to Lisbon in May",
        "I can look up trains to Lisbon for you",
    }
    assert all("words" in h["sources"] and h["score"] > 0 for h in hits)


async def test_a_message_is_found_by_the_meaning_of_the_claim_drawn_from_it(
    client: httpx.AsyncClient, said: Said
) -> None:
    hits = await recall(client, said, query="which seat does she like on a plane")

    assert names(said, hits)[0] == "window"
    assert "meaning" in hits[0]["sources"]


async def test_the_window_role_and_episode_narrow_what_was_said(
    client: httpx.AsyncClient, said: Said
) -> None:
    week = {"from": day(3).isoformat(), "to": day(8).isoformat()}

    assert names(said, await recall(client, said, query="trip", **week)) == ["lisbon"]
    assert names(said, await recall(client, said, **week)) == ["window", "trains", "lisbon"]
    assert names(said, await recall(client, said, role="ASSISTANT")) == ["trains"]
    assert names(said, await recall(client, said, episode=said.other)) == ["budget"]
    assert [h["sources"] for h in await recall(client, said, episode=said.other)] == [["time"]]


async def test_a_window_given_as_dates_means_their_first_instants(
    client: httpx.AsyncClient, said: Said
) -> None:
    hits = await recall(client, said, **{"from": "2024-01-04", "to": "2024-01-05"})

    assert names(said, hits) == ["trains", "lisbon"]
    assert hits[0]["observation"]["observedAt"] == "2024-01-04T12:00:00+00:00"


async def test_a_message_above_the_keys_tier_is_never_found(
    client: httpx.AsyncClient, said: Said
) -> None:
    assert "passport" not in names(said, await recall(client, said, query="passport trip"))
    assert "passport" not in names(said, await recall(client, said))


async def test_a_forgotten_message_is_never_found_again(
    client: httpx.AsyncClient, said: Said, graph: Graph, test_settings: Settings
) -> None:
    memory = Memory(graph, test_settings)
    await memory.forgetting.forget(
        OWNER,
        "trips",
        {"selector": {"kind": "OBSERVATION", "id": said.ids["lisbon"]}, "reason": "asked to"},
    )

    assert names(said, await recall(client, said, query="Lisbon")) == ["trains"]
    assert "lisbon" not in names(said, await recall(client, said))


@pytest.mark.parametrize(
    ("variables", "field"),
    [
        ({"first": 0}, "first"),
        ({"first": 101}, "first"),
        ({"query": "   "}, "query"),
        ({"from": day(5).isoformat(), "to": day(5).isoformat()}, "to"),
    ],
)
async def test_bad_arguments_are_a_validation_error_naming_the_argument(
    client: httpx.AsyncClient, said: Said, variables: dict[str, Any], field: str
) -> None:
    body = await gql(
        client,
        MESSAGES,
        {"first": 20, **variables},
        headers={"authorization": f"Bearer {said.key}"},
    )

    [error] = body["errors"]
    assert (error["extensions"]["code"], error["extensions"]["field"]) == ("VALIDATION", field)
    assert body["data"] == {"messages": None}


async def test_messages_of_a_space_the_key_does_not_grant_are_forbidden(
    client: httpx.AsyncClient, said: Said
) -> None:
    body = await gql(
        client,
        MESSAGES.replace('"trips"', '"elsewhere"'),
        {"first": 20},
        headers={"authorization": f"Bearer {said.key}"},
    )

    [error] = body["errors"]
    assert error["extensions"]["code"] == "FORBIDDEN"
