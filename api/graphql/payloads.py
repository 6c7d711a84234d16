"""GraphQL payloads of the mutations: each a result and `errors { code message field }`."""

from __future__ import annotations

from datetime import datetime

import strawberry

from api.graphql.error_types import UserError
from api.graphql.types import (
    Artifact,
    Cardinality,
    Claim,
    Episode,
    Observation,
    Space,
    from_record,
)


@strawberry.type(description="How many current values a predicate's subject has.")
class PredicateRule:
    predicate: str
    cardinality: Cardinality
    declared: bool = strawberry.field(description="Declared by the space; else the default.")

    @staticmethod
    def of(rule: object) -> PredicateRule:
        return from_record(PredicateRule, rule)


@strawberry.type
class PredicateRulePayload:
    rule: PredicateRule | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class PredicateRulesPayload:
    rules: list[PredicateRule] = strawberry.field(default_factory=list)
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class CreateSpacePayload:
    space: Space | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ClaimPayload:
    claim: Claim | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ClaimsPayload:
    claims: list[Claim] = strawberry.field(default_factory=list)
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class EpisodePayload:
    episode: Episode | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ObservationPayload:
    observation: Observation | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ArtifactPayload:
    artifact: Artifact | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class MergePayload:
    merge_id: strawberry.ID | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class UnmergePayload:
    undone: bool = False
    errors: list[UserError] = strawberry.field(default_factory=list)


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
class ForgetPayload:
    receipt: ForgetReceipt | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class LegalHoldPayload:
    hold_id: strawberry.ID | None = None
    released: bool | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)
