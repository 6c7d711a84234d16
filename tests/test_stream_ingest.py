"""A long conversation — 3,000 messages in every run, 10,000 with the deep profile
(`HYPOTHESIS_PROFILE=deep ./scripts/test`) — ingested through GraphQL `rememberMany` in batches
of 250: each message states one fact by names and is its own evidence text. Afterwards every
message is an observation exactly once and a told fact from its own time, a ONE predicate shows
at every instant the last value stated by then, and the counts are exact."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from graph.runtime import Graph
from tests.http import gql
from tests.story import count
from tests.support import DEEP

MESSAGES = 10_000 if DEEP else 3_000
"""Every person speaks every 100th message: 3,000 give each 30 turns, enough for two changes of
employer, three acquaintances and a move (the counts below hold for both lengths)."""
BATCH = 250
PEOPLE = [f"Person {n:03}" for n in range(100)]
ORGS = [f"Org {n:02}" for n in range(20)]
CITIES = [f"City {n}" for n in range(10)]
T0 = datetime(2024, 1, 1, tzinfo=UTC)

REMEMBER_MANY = """mutation($inputs: [RememberInput!]!) { rememberMany(space: "chat",
    inputs: $inputs) { claims { revision } errors { code field message } } }"""


@dataclass(frozen=True)
class Message:
    """One message of the conversation and the fact it states."""

    text: str
    at: datetime
    subject: str
    predicate: str
    obj: tuple[str, str] | None
    """The object's (name, kind), or None for a literal `value`."""
    value: int | None = None

    def item(self, episode_id: str) -> dict[str, Any]:
        stamp = self.at.isoformat()
        data: dict[str, Any] = {
            "type": "FACT",
            "subject": {"name": self.subject, "kind": "PERSON"},
            "predicate": self.predicate,
            "validFrom": stamp,
            "evidence": [{"text": self.text, "observedAt": stamp, "episodeId": episode_id}],
        }
        if self.obj is None:
            data["value"] = self.value
        else:
            data["object"] = {"name": self.obj[0], "kind": self.obj[1]}
        return data


def conversation() -> list[Message]:
    """Each person speaks every 100th message, in turn: an employer (changing every few turns,
    restated in between), an acquaintance (a few coexisting ones), a city, an age."""
    said: list[Message] = []
    for i in range(MESSAGES):
        person, turn = i % 100, i // 100
        who, at = PEOPLE[person], T0 + timedelta(minutes=i)
        match turn % 4:
            case 0:
                org = ORGS[(person + turn // 12) % len(ORGS)]
                said.append(
                    Message(f"#{i} {who}: I work at {org}", at, who, "WORKS_AT", (org, "ORG"))
                )
            case 1:
                friend = PEOPLE[(person + 1 + turn % 3) % 100]
                said.append(
                    Message(f"#{i} {who}: I know {friend}", at, who, "KNOWS", (friend, "PERSON"))
                )
            case 2:
                city = CITIES[(person + turn // 20) % len(CITIES)]
                said.append(
                    Message(f"#{i} {who}: I live in {city}", at, who, "LIVES_IN", (city, "OTHER"))
                )
            case _:
                age = 20 + person % 40 + turn // 40
                said.append(Message(f"#{i} {who}: I am {age}", at, who, "AGE", None, age))
    return said


def hyphenated(name: str) -> str:
    return "-".join(name.lower().split())


def told_rows(said: list[Message]) -> set[tuple[str, datetime, datetime | None, str]]:
    """The model: every message tells its fact from its own time, open-ended (a restatement
    is a told fact of its own: which one a view shows depends on the instant asked about)."""
    rows = set()
    for m in said:
        subject = f"person/{hyphenated(m.subject)}"
        shown = (
            str(m.value) if m.obj is None else f"entity:{m.obj[1].lower()}:{hyphenated(m.obj[0])}"
        )
        if m.predicate == "KNOWS":
            assert m.obj is not None
            key = f"fact:{subject}:KNOWS:person/{hyphenated(m.obj[0])}"
        else:
            key = f"fact:{subject}:{m.predicate}"
        rows.add((key, m.at, None, shown))
    return rows


async def held_rows(graph: Graph) -> set[tuple[str, datetime, datetime | None, str]]:
    """Every fact row not superseded in recorded time: what was believed over which valid time."""
    rows = await graph.read(
        "MATCH (c:Claim {type: 'fact'}) WHERE c.supersededAt IS NULL "
        "OPTIONAL MATCH (o:Entity {id: c.objectId}) "
        "RETURN c.key AS key, c.validFrom AS start, c.validTo AS end, o.key AS object, "
        "c.valueJson AS value"
    )
    return {
        (
            r["key"],
            r["start"].to_native(),
            None if r["end"] is None else r["end"].to_native(),
            r["object"] or str(r["value"]),
        )
        for r in rows
    }


async def test_a_long_conversation_streams_in_as_facts_with_exact_history(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    said = conversation()
    assert len({m.text for m in said}) == MESSAGES
    await gql(client, 'mutation { createSpace(name: "chat") { errors { code } } }')
    opened = await gql(
        client,
        'mutation { openEpisode(space: "chat", input: {title: "the conversation", '
        'startedAt: "2024-01-01T00:00:00Z"}) { episode { id } errors { code } } }',
    )
    episode = opened["data"]["openEpisode"]["episode"]["id"]

    started = time.perf_counter()
    for start in range(0, MESSAGES, BATCH):
        batch = [m.item(episode) for m in said[start : start + BATCH]]
        body = await gql(client, REMEMBER_MANY, {"inputs": batch})
        assert "errors" not in body and "data" in body, body
        assert body["data"]["rememberMany"]["errors"] == []
        assert len(body["data"]["rememberMany"]["claims"]) == BATCH
    print(f"\n{MESSAGES:,} messages ingested in {time.perf_counter() - started:.1f} s")

    texts = await graph.read(
        "MATCH (:Episode {id: $id})-[:HAS_OBSERVATION]->(o:Observation) "
        "RETURN o.content AS text, count(*) AS times",
        id=episode,
    )
    assert sorted(r["text"] for r in texts) == sorted(m.text for m in said)
    assert {r["times"] for r in texts} == {1}
    assert await count(graph, "Observation") == MESSAGES
    assert await count(graph, "Episode") == 1
    uncited = await graph.read(
        "MATCH (o:Observation) WHERE NOT (o)<-[:SUPPORTED_BY]-(:Claim) RETURN count(o) AS n"
    )
    assert uncited == [{"n": 0}]

    expected = told_rows(said)
    assert await held_rows(graph) == expected
    keys = {key for key, *_ in expected}
    one_keys = {k for k in keys if ":KNOWS:" not in k}
    assert (len(keys), len(one_keys), len(expected)) == (600, 300, MESSAGES)
    # Every entity created by name has its entity claim; every message is one told fact.
    entities = len(PEOPLE) + len(ORGS) + len(CITIES)
    assert await count(graph, "Entity") == entities
    assert await count(graph, "Claim") == entities + MESSAGES

    jobs = [m for m in said if m.subject == "Person 007" and m.predicate == "WORKS_AT"]
    for then in (jobs[3].at + timedelta(seconds=30), jobs[-2].at + timedelta(seconds=30)):
        held = await gql(
            client,
            """query($asOf: DateTime) { claims(space: "chat",
                 filter: {subject: {name: "person 007"}, predicate: "WORKS_AT"}, asOf: $asOf)
                 { nodes { object { name } } } }""",
            {"asOf": then.isoformat()},
        )
        stated = [m for m in jobs if m.at <= then][-1]
        assert stated.obj is not None
        assert held["data"]["claims"]["nodes"] == [{"object": {"name": stated.obj[0]}}]
    current = await gql(
        client,
        """{ claims(space: "chat", filter: {subject: {name: "person 007"}, predicate: "WORKS_AT"})
             { nodes { object { name } validFrom } } }""",
    )
    last = [m for m in said if m.subject == "Person 007" and m.predicate == "WORKS_AT"][-1]
    assert last.obj is not None
    assert current["data"]["claims"]["nodes"][0]["object"]["name"] == last.obj[0]
