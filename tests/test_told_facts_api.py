"""Told facts through the door: a slice of the seeded histories of tests/test_told_fact_rules.py
told over GraphQL — by names, evidence as text, facts in any order, batches, two tiers written
by keys of their own — answer what the independent model of ENGRAM.md §2 (tests/told_model.py)
answers, at every probed asOf, past knownAt and tier, through `claims` and `related`.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.app import create_app
from graph.domain.actor import Actor, Grant
from graph.domain.vocabulary import Privacy
from graph.memory import Memory
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.support import DEEP
from tests.told_model import TIERS, KeyModel, Telling, batching, histories, probes

DAY0 = datetime(2020, 1, 1, tzinfo=UTC)
TIER_NAMES = {1: "NORMAL", 3: "SECRET"}
SUBJECTS = itertools.count()

REMEMBER = """
mutation($inputs: [RememberInput!]!) {
  rememberMany(space: "told", inputs: $inputs) {
    claims { id recordedAt }
    errors { code field message }
  }
}
"""

SHOWN = """
query($subject: String!, $asOf: DateTime, $knownAt: DateTime) {
  claims(space: "told", filter: {subject: {name: $subject}, predicate: "WORKS_AT"},
         asOf: $asOf, knownAt: $knownAt) {
    nodes { object { name } validFrom validTo }
  }
  related(space: "told", entity: {name: $subject}, relationTypes: ["WORKS_AT"],
          direction: OUT, asOf: $asOf, knownAt: $knownAt) {
    relations { to { name } }
  }
}
"""


def day(n: float) -> str:
    return (DAY0 + timedelta(days=n)).isoformat()


@dataclass
class Keys:
    """A writer and reader key per tier of the space `told`."""

    by_tier: dict[int, str]

    def headers(self, tier: int) -> dict[str, str]:
        return {"authorization": f"Bearer {self.by_tier[tier]}"}


@pytest.fixture
async def keys(graph: Graph, test_settings: Settings) -> Keys:
    memory = Memory(graph, test_settings)
    await memory.writes.create_space(Actor.operator("test"), "told")
    made = {
        tier: (
            await memory.admin.create_key(f"t{tier}", [Grant("told", Privacy(tier), write=True)])
        ).secret
        for tier in TIERS
    }
    return Keys(made)


@pytest.fixture
async def client(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    production = test_settings.model_copy(update={"dev": False})
    async with running(create_app(production, neo4j_target)) as http:
        yield http


def item(subject: str, telling: Telling) -> dict[str, Any]:
    """A telling as an agent writes it; an open start as a fact with no `validFrom` whose
    evidence was said long before every probe (it holds from the evidence's time)."""
    said = {"text": f"{subject} works at {telling.value}"}
    if telling.start is None:
        said["observedAt"] = day(-1000)
    return {
        "type": "FACT",
        "subject": {"name": subject, "kind": "PERSON"},
        "predicate": "WORKS_AT",
        "object": {"name": telling.value, "kind": "ORG"},
        "validFrom": None if telling.start is None else day(telling.start),
        "validTo": None if telling.end is None else day(telling.end),
        "privacy": TIER_NAMES[telling.tier],
        "evidence": [said],
    }


async def tell(
    client: httpx.AsyncClient, keys: Keys, subject: str, order: list[Telling], sizes: list[int]
) -> tuple[KeyModel, list[str]]:
    """Tell `order` in batches (each by the key of the highest tier in it); the model told the
    same, and the recorded instant of each batch."""
    model = KeyModel()
    recorded: list[str] = []
    start = 0
    for tick, size in enumerate(sizes, start=1):
        batch = order[start : start + size]
        start += size
        tier = max(t.tier for t in batch)
        answer = await gql(
            client,
            REMEMBER,
            {"inputs": [item(subject, t) for t in batch]},
            headers=keys.headers(tier),
        )
        assert "data" in answer, answer
        payload = answer["data"]["rememberMany"]
        assert payload["errors"] == [], payload["errors"]
        recorded.append(payload["claims"][0]["recordedAt"])
        for telling in batch:
            model.tell(telling, tick)
    return model, recorded


async def shown(
    client: httpx.AsyncClient, keys: Keys, subject: str, tier: int, when: float, known: str
) -> str | None:
    answer = await gql(
        client,
        SHOWN,
        {"subject": subject, "asOf": day(when), "knownAt": known},
        headers=keys.headers(tier),
    )
    if "errors" in answer:
        # Before any fact at the reader's tier, the subject is no entity it may see.
        [(code, field)] = {
            (e["extensions"]["code"], e["extensions"]["field"]) for e in answer["errors"]
        }
        assert (code, field) == ("NOT_FOUND", "name"), answer
        return None
    claims = [n["object"]["name"] for n in answer["data"]["claims"]["nodes"]]
    related = [r["to"]["name"] for r in answer["data"]["related"]["relations"]]
    assert len(claims) <= 1, f"two current values: {claims}"
    assert related == claims, "related shows what claims shows"
    return claims[0] if claims else None


API_HISTORIES = 200 if DEEP else 6
"""Histories told over GraphQL: 6 in every run (each is told twice and probed at every batch,
tier and instant: ~6 s apiece; 12 took 75 s of a two-worker suite), 200 with the deep profile.
The rules themselves meet 500 seeded histories without Neo4j (tests/test_told_fact_rules.py)."""


@settings(
    max_examples=API_HISTORIES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(facts=histories(), data=st.data())
async def test_facts_told_by_names_in_any_order_answer_as_the_model_over_graphql(
    keys: Keys, client: httpx.AsyncClient, facts: list[Telling], data: st.DataObject
) -> None:
    chance = data.draw(st.randoms(use_true_random=False), label="orders")
    sizes = batching(len(facts), data.draw)
    whens = probes(facts)[::2]
    for order in (facts, chance.sample(facts, len(facts))):
        subject = f"Person {next(SUBJECTS)}"
        model, recorded = await tell(client, keys, subject, list(order), sizes)
        for known, at in enumerate(recorded, start=1):
            for tier in TIERS:
                for when in whens:
                    expected = model.value(when, tier=tier, known=known)
                    assert await shown(client, keys, subject, tier, when, at) == expected, (
                        f"{subject} at day {when}, tier {tier}, known after batch {known}"
                    )
