"""GraphQL types of the answers that walk the graph: relations, neighbourhoods, explanations,
search hits, the context snapshot and the timeline."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.graphql.types import (
    Claim,
    EngramInfo,
    Entity,
    Episode,
    Evidence,
    entity_in_view,
    from_record,
)
from graph.domain import read_records as answers
from graph.domain.vocabulary import ChangeKind, RevisionState, SelectorKind
from graph.memory import View


@strawberry.type(description="A visible, typed relation between two entities.")
class Relation:
    type: str
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    claim_id: strawberry.ID | None = strawberry.field(description="The claim asserting it.")
    claim_key: str | None
    status: str | None
    confidence: float | None
    reason: str | None = strawberry.field(description="Why, for a MERGED_INTO step.")
    source_id: strawberry.Private[str]
    target_id: strawberry.Private[str]
    view: strawberry.Private[View]

    @staticmethod
    def of(relation: answers.Relation, view: View) -> Relation:
        return from_record(Relation, relation, view=view)

    @strawberry.field(name="from", description="Where the relation starts.")
    async def source(self, info: EngramInfo) -> Entity | None:
        return await entity_in_view(info, self.view, self.source_id)

    @strawberry.field(name="to", description="Where the relation points.")
    async def target(self, info: EngramInfo) -> Entity | None:
        return await entity_in_view(info, self.view, self.target_id)


@strawberry.type
class RelatedEntity:
    entity: Entity
    distance: int = strawberry.field(description="Hops from the start (the start is 0).")


@strawberry.type(description="The visible neighbourhood of an entity.")
class Related:
    nodes: list[RelatedEntity]
    relations: list[Relation]
    truncated: bool = strawberry.field(description="True when a fan-out bound cut the answer.")


@strawberry.type(description="One hop of a path, with the claim and evidence behind it.")
class Step:
    relation: Relation
    direction: Annotated[str, strawberry.field(description="OUT when walked along, else IN.")]
    claim: Claim | None
    evidence: list[Evidence]
    from_id: strawberry.Private[str]
    to_id: strawberry.Private[str]
    view: strawberry.Private[View]

    @strawberry.field(name="from")
    async def source(self, info: EngramInfo) -> Entity | None:
        return await entity_in_view(info, self.view, self.from_id)

    @strawberry.field(name="to")
    async def target(self, info: EngramInfo) -> Entity | None:
        return await entity_in_view(info, self.view, self.to_id)


@strawberry.type
class Path:
    steps: list[Step]

    @strawberry.field
    def length(self) -> int:
        return len(self.steps)


@strawberry.type(description="Why two entities are connected, as of the view.")
class Explanation:
    paths: list[Path]
    reason: str | None = strawberry.field(description="Why there is no path, when there is none.")

    @staticmethod
    def of(explanation: answers.Explanation, view: View) -> Explanation:
        return Explanation(
            paths=[
                Path(
                    steps=[
                        Step(
                            relation=Relation.of(step.relation, view),
                            direction="OUT" if step.forward else "IN",
                            claim=Claim.of(step.claim, view) if step.claim else None,
                            evidence=[Evidence.of(link) for link in step.evidence],
                            from_id=step.from_id,
                            to_id=step.to_id,
                            view=view,
                        )
                        for step in path
                    ]
                )
                for path in explanation.paths
            ],
            reason=explanation.reason,
        )


@strawberry.type(
    description="A visible claim found by search (with includeHistory, maybe an ended or "
    "superseded revision: see state)."
)
class SearchHit:
    claim: Claim
    score: float = strawberry.field(description="Reciprocal-rank fusion score; higher is better.")
    sources: list[str] = strawberry.field(
        description="The ranked lists that found it: text, meaning, evidence, entity."
    )
    state: RevisionState = strawberry.field(
        description="CURRENT (valid at asOf, believed at knownAt), ENDED (valid time over by "
        "asOf) or SUPERSEDED (replaced by knownAt); only CURRENT without includeHistory."
    )


@strawberry.type(description="The byte-budgeted core snapshot an agent puts in its prompt.")
class ContextSnapshot:
    text: str
    bytes: int
    keys: list[str]
    omitted: int

    @staticmethod
    def of(snap: answers.ContextSnapshot) -> ContextSnapshot:
        return from_record(ContextSnapshot, snap)


@strawberry.type
class Timeline:
    claims: list[Claim]
    episodes: list[Episode]


@strawberry.type(description="What a forgetting's tombstone tells: never a subject or content.")
class Forgetting:
    selector_kind: SelectorKind
    claims: int
    observations: int
    episodes: int
    artifacts: int
    entities: int


@strawberry.type(
    description="One change: a told fact BEGAN or ENDED being what the view shows (valid "
    "time), or BEGAN to be believed, was CORRECTED (with the revision it replaced) or "
    "FORGOTTEN (recorded time)."
)
class Change:
    kind: ChangeKind
    at: datetime
    claim: Claim | None
    previous: Claim | None = strawberry.field(description="What a CORRECTED claim replaced.")
    forgotten: Forgetting | None = strawberry.field(description="What a FORGOTTEN one erased.")

    @staticmethod
    def of(change: answers.Change, view: View) -> Change:
        forgetting = change.forgetting
        return Change(
            kind=change.kind,
            at=change.at,
            claim=Claim.of(change.claim, view) if change.claim else None,
            previous=Claim.of(change.previous, view) if change.previous else None,
            forgotten=None
            if forgetting is None
            else Forgetting(
                selector_kind=SelectorKind(forgetting.selector_kind),
                **{
                    what: forgetting.counts.get(what, 0)
                    for what in ("claims", "observations", "episodes", "artifacts", "entities")
                },
            ),
        )


@strawberry.type
class Changes:
    changes: list[Change]
    truncated: bool = strawberry.field(description="True when `first` cut the answer.")
