"""People, employers and a project, with a job change, a rename, a retraction and a dispute.

    WORKS_AT is declared MANY in this space: a person's jobs are facts of their own.
    2019-01  bob works at Acme (still does)
    2020-01  alice works at Acme — recorded open-ended, later corrected to end 2023-06-30
    2021-01  carol works at Globex
    2022-01  Acme renames itself "Acme Global"
    2023-07  alice works at Globex
    2024-01  alice contributes to Engram; carol contributes to Engram (disputed)
    bob KNOWS carol — recorded, then retracted

`before_correction` is a recorded-time instant after everything but the correction of alice's
Acme job and the retraction of bob KNOWS carol.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from graph.commands.predicate_rules import declare_predicates
from graph.domain.model import Claim
from graph.domain.vocabulary import Cardinality
from graph.runtime import Graph
from tests.story import Story, new_story


def on(year: int, month: int, day: int = 1) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


@dataclass
class People:
    story: Story
    ids: dict[str, str]
    claims: dict[str, Claim]
    before_correction: datetime


async def people_story(graph: Graph, space: str = "alice", *, create: bool = True) -> People:
    story = await new_story(graph, space, create=create)
    # This space keeps jobs as facts of their own, each ended by a correction.
    await declare_predicates(graph, space, [("WORKS_AT", Cardinality.MANY)], actor=story.actor)
    ids: dict[str, str] = {}
    for key, name in [
        ("entity:person:alice", "Alice"),
        ("entity:person:bob", "Bob"),
        ("entity:person:carol", "Carol"),
        ("entity:org:acme", "Acme Corp"),
        ("entity:org:globex", "Globex"),
        ("entity:project:engram", "Engram"),
    ]:
        claim = await story.entity(key, name, at=on(2018, 1))
        ids[key.rsplit(":", 1)[1]] = claim.subject_id or ""

    async def link(name: str, source: str, relation: str, target: str, start: datetime) -> Claim:
        said = await story.say(f"{source} {relation} {target}", at=start)
        claim = await story.remember(
            said,
            type="fact",
            subject={"key": f"entity:{_kind(source)}:{source}"},
            predicate=relation,
            object={"key": f"entity:{_kind(target)}:{target}"},
        )
        claims[name] = claim
        return claim

    claims: dict[str, Claim] = {}
    await link("bob-acme", "bob", "WORKS_AT", "acme", on(2019, 1))
    await link("alice-acme", "alice", "WORKS_AT", "acme", on(2020, 1))
    await link("carol-globex", "carol", "WORKS_AT", "globex", on(2021, 1))
    await link("alice-globex", "alice", "WORKS_AT", "globex", on(2023, 7))
    await link("alice-engram", "alice", "CONTRIBUTES_TO", "engram", on(2024, 1))
    await link("carol-engram", "carol", "CONTRIBUTES_TO", "engram", on(2024, 1))
    await link("bob-carol", "bob", "KNOWS", "carol", on(2022, 3))
    renamed = await story.say("Acme is now Acme Global", at=on(2022, 1))
    [acme_row] = await story.graph.read(
        "MATCH (c:Claim {key: 'entity:org:acme'}) RETURN c.id AS id"
    )
    acme = acme_row["id"]
    await story.correct(
        claim_id=acme,
        kind="SUPERSEDE",
        value={"name": "Acme Global", "aliases": ["Acme Corp"]},
        valid_from=on(2022, 1),
        reason="renamed",
        evidence=[{"observation_id": renamed}],
    )
    doubt = await story.say("I doubt carol works on Engram", at=on(2024, 2))
    claims["carol-engram"] = await story.correct(
        claim_id=claims["carol-engram"].id,
        kind="DISPUTE",
        reason="doubted",
        evidence=[{"observation_id": doubt}],
    )
    before_correction = (await story.view()).known_at
    left = await story.say("alice left Acme at the end of June 2023", at=on(2023, 7))
    claims["alice-acme"] = await story.correct(
        claim_id=claims["alice-acme"].id,
        kind="SUPERSEDE",
        valid_to=on(2023, 6, 30),
        reason="she left",
        evidence=[{"observation_id": left}],
    )
    denial = await story.say("bob has never met carol", at=on(2024, 3))
    claims["bob-carol"] = await story.correct(
        claim_id=claims["bob-carol"].id,
        kind="RETRACT",
        reason="denied",
        evidence=[{"observation_id": denial}],
    )
    return People(story, ids, claims, before_correction)


def _kind(name: str) -> str:
    return {"acme": "org", "globex": "org", "engram": "project"}.get(name, "person")
