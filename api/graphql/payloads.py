"""GraphQL payloads of the mutations: each `errors { code message field }` (a `Payload`) and the
result it names, left null when there are errors."""

from __future__ import annotations

from datetime import datetime

import strawberry

from api.graphql.error_types import UserError
from api.graphql.types import Artifact, Claim, Episode, Observation, Space, from_record
from graph.domain.vocabulary import Cardinality


@strawberry.type(description="How many current values a predicate's subject has.")
class PredicateRule:
    predicate: str
    cardinality: Cardinality
    declared: bool = strawberry.field(description="Declared by the space; else the default.")

    @staticmethod
    def of(rule: object) -> PredicateRule:
        return from_record(PredicateRule, rule)


@strawberry.type
class Payload:
    """What every mutation answers: its expected failures (`ErrorsInPayload` fills them in)."""

    errors: list[UserError] = strawberry.field(
        default_factory=list, description="Why nothing was written; empty on success."
    )


@strawberry.type
class PredicateRulePayload(Payload):
    rule: PredicateRule | None = None


@strawberry.type
class PredicateRulesPayload(Payload):
    rules: list[PredicateRule] = strawberry.field(default_factory=list)


@strawberry.type
class CreateSpacePayload(Payload):
    space: Space | None = None


@strawberry.type
class ClaimPayload(Payload):
    claim: Claim | None = None


@strawberry.type
class ClaimsPayload(Payload):
    claims: list[Claim] = strawberry.field(default_factory=list)


@strawberry.type
class EpisodePayload(Payload):
    episode: Episode | None = None


@strawberry.type
class ObservationPayload(Payload):
    observation: Observation | None = None


@strawberry.type
class ArtifactPayload(Payload):
    artifact: Artifact | None = None


@strawberry.type
class MergePayload(Payload):
    merge_id: strawberry.ID | None = None


@strawberry.type
class UnmergePayload(Payload):
    undone: bool = False


@strawberry.type(description="What a forget erased (counts, never content) and its tombstone.")
class ForgetReceipt:
    tombstone_id: strawberry.ID
    watermark: datetime = strawberry.field(description="The forget's recorded time.")
    claims: int
    observations: int
    episodes: int
    artifacts: int
    entities: int
    made_inactive: int = strawberry.field(description="Claims left without evidence.")
    whole_space: bool
    replayed: bool


@strawberry.type
class ForgetPayload(Payload):
    receipt: ForgetReceipt | None = None


@strawberry.type
class LegalHoldPayload(Payload):
    hold_id: strawberry.ID | None = None
    released: bool | None = None
