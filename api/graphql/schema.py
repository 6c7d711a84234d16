"""The GraphQL schema: the queries calling graph/'s reads (mutations in `api.graphql.mutations`).

Every resolver authorises first (the key must grant the space; writes need a write grant) and
reads through a `View` at the key's privacy tier. `schema.graphql` at the repository root is this
schema printed; `engram schema --write` regenerates it and a test fails when the two drift.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.extensions import (
    AddValidationRules,
    DisableIntrospection,
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    ValidationCache,
)

from api.graphql.error_types import EngramSchema, should_mask
from api.graphql.export_query import export_field
from api.graphql.extensions import QueryCounter
from api.graphql.input_types import (
    ClaimFilterInput,
    EntityRefInput,
    command_data,
)
from api.graphql.loaders import entity_loader
from api.graphql.messages_query import MessageHit, messages_field
from api.graphql.mutations import Mutation
from api.graphql.payloads import PredicateRule
from api.graphql.read_types import (
    Change,
    Changes,
    ContextSnapshot,
    Explanation,
    Related,
    RelatedEntity,
    Relation,
    SearchHit,
    Timeline,
)
from api.graphql.rules_query import rules_field
from api.graphql.scalars import DATETIME
from api.graphql.types import Claim, ClaimConnection, EngramInfo, Entity, Episode, Space
from graph.domain.errors import ValidationFailed
from graph.domain.read_records import (
    DEFAULT_BUDGET,
    DEFAULT_PAGE,
    DEFAULT_SEARCH_FIRST,
    DEFAULT_STATUSES,
    ClaimFilter,
)
from graph.domain.vocabulary import Axis, ClaimStatus, Direction, EntityKind, MemoryType
from graph.memory import View


async def _entity_id(info: EngramInfo, view: View, ref: EntityRefInput) -> str:
    entity = await info.context.memory.reads.find_entity(view, command_data(ref))
    return entity.id


@strawberry.type
class Query:
    @strawberry.field(description="The memory spaces this key may read, by name.")
    async def spaces(self, info: EngramInfo) -> list[Space]:
        return [Space.of(s) for s in await info.context.memory.reads.spaces(info.context.principal)]

    predicate_rules: list[PredicateRule] | None = rules_field

    @strawberry.field(
        description="One entity by exactly one of id, key or name (folded: case, spacing, - "
        "and _ alike; the name it bears at `asOf`, else any it has borne), named as of `asOf`."
    )
    async def entity(
        self,
        info: EngramInfo,
        space: str,
        id: strawberry.ID | None = None,
        key: str | None = None,
        name: str | None = None,
        kind: EntityKind | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> Entity | None:
        view = await info.context.view(space, as_of, known_at)
        ref = {"id": id, "key": key, "name": name, "kind": kind.value if kind else None}
        return Entity.of(await info.context.memory.reads.find_entity(view, ref))

    @strawberry.field(description="Claims visible in the view, newest recorded first, paged.")
    async def claims(
        self,
        info: EngramInfo,
        space: str,
        filter: ClaimFilterInput | None = None,
        first: int = DEFAULT_PAGE,
        after: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> ClaimConnection | None:
        view = await info.context.view(space, as_of, known_at)
        wanted = filter or ClaimFilterInput()
        subject_id = await _entity_id(info, view, wanted.subject) if wanted.subject else None
        try:
            statuses = tuple(ClaimStatus(s) for s in (wanted.statuses or DEFAULT_STATUSES))
        except ValueError as failure:
            raise ValidationFailed(str(failure), field="filter.statuses") from None
        page = await info.context.memory.reads.claims(
            view,
            ClaimFilter(
                type=wanted.type,
                key_prefix=wanted.key_prefix,
                subject_id=subject_id,
                predicate=wanted.predicate,
                statuses=statuses,
            ),
            first=first,
            after=after,
        )
        return ClaimConnection(
            nodes=[Claim.of(c, view) for c in page.claims],
            end_cursor=page.end,
            has_next_page=page.has_more,
        )

    @strawberry.field(description="Every revision of a key, with both intervals and reasons.")
    async def claim_history(
        self, info: EngramInfo, space: str, key: str, known_at: datetime | None = None
    ) -> list[Claim] | None:
        view = await info.context.view(space, None, known_at)
        history = await info.context.memory.reads.claim_history(view, key)
        return [Claim.of(c, view) for c in history]

    @strawberry.field(description="An episode with its observations visible in the view.")
    async def episode(
        self,
        info: EngramInfo,
        space: str,
        id: strawberry.ID,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> Episode | None:
        view = await info.context.view(space, as_of, known_at)
        return Episode.of(await info.context.memory.reads.episode(view, id))

    @strawberry.field(description="Claims and episodes that began in [from, to), in time order.")
    async def timeline(
        self,
        info: EngramInfo,
        space: str,
        from_: Annotated[datetime, strawberry.argument(name="from")],
        to: datetime,
        known_at: datetime | None = None,
        first: int = 100,
    ) -> Timeline | None:
        view = await info.context.view(space, None, known_at)
        found = await info.context.memory.reads.timeline(view, from_, to, first=first)
        return Timeline(
            claims=[Claim.of(c, view) for c in found.claims],
            episodes=[Episode.of(e) for e in found.episodes],
        )

    @strawberry.field(description="Entities reachable through visible relations (1–4 hops).")
    async def related(
        self,
        info: EngramInfo,
        space: str,
        entity: EntityRefInput,
        hops: int = 1,
        relation_types: list[str] | None = None,
        direction: Direction = Direction.BOTH,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = 50,
    ) -> Related | None:
        reads = info.context.memory.reads
        view, found = await info.context.viewed(
            space,
            as_of,
            known_at,
            lambda view: reads.related(
                view,
                command_data(entity),
                hops=hops,
                relation_types=relation_types,
                direction=direction,
                first=first,
            ),
        )
        entity_loader(info.context, view).prime_many({e.id: e for e in found.entities})
        nodes = [
            RelatedEntity(entity=Entity.of(e), distance=found.distances[e.id])
            for e in found.entities
        ]
        return Related(
            nodes=nodes,
            relations=[Relation.of(r, view) for r in found.relations],
            truncated=found.truncated,
        )

    @strawberry.field(description="The shortest visible paths between two entities, explained.")
    async def explain_relation(
        self,
        info: EngramInfo,
        space: str,
        from_: Annotated[EntityRefInput, strawberry.argument(name="from")],
        to: EntityRefInput,
        max_hops: int = 3,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = 5,
    ) -> Explanation | None:
        reads = info.context.memory.reads
        view, found = await info.context.viewed(
            space,
            as_of,
            known_at,
            lambda view: reads.explain_relation(
                view, command_data(from_), command_data(to), max_hops=max_hops, first=first
            ),
        )
        entity_loader(info.context, view).prime_many({e.id: e for e in found.entities})
        return Explanation.of(found, view)

    @strawberry.field(
        description="Visible claims matching text or meaning, fused by reciprocal rank."
    )
    async def search(
        self,
        info: EngramInfo,
        space: str,
        query: str,
        types: list[MemoryType] | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = DEFAULT_SEARCH_FIRST,
        include_history: Annotated[
            bool,
            strawberry.argument(
                description="Also rank revisions that ended by asOf or were superseded by "
                "knownAt (never forgotten ones, nor any recorded after knownAt); each hit's "
                "state says which."
            ),
        ] = False,
    ) -> list[SearchHit] | None:
        reads = info.context.memory.reads
        view, hits = await info.context.viewed(
            space,
            as_of,
            known_at,
            lambda view: reads.search(
                view,
                query,
                types=list(types) if types else None,
                first=first,
                include_history=include_history,
            ),
        )
        return [
            SearchHit(
                claim=Claim.of(h.claim, view),
                score=h.score,
                sources=list(h.sources),
                state=h.state,
            )
            for h in hits
        ]

    @strawberry.field(
        description="The core snapshot for a prompt, never over budgetBytes; with `about`, "
        "that entity's current facts too."
    )
    async def context(
        self,
        info: EngramInfo,
        space: str,
        budget_bytes: int = DEFAULT_BUDGET,
        about: EntityRefInput | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> ContextSnapshot | None:
        view = await info.context.view(space, as_of, known_at)
        snap = await info.context.memory.reads.context(
            view,
            budget_bytes=budget_bytes,
            about=command_data(about) if about is not None else None,
        )
        return ContextSnapshot.of(snap)

    @strawberry.field(
        description="What began, ended, was corrected or forgotten in [from, to): on the VALID "
        "axis, where a fact began or ended being what a view shows, as known at knownAt; on "
        "the RECORDED axis, what was learned or corrected then, and forgettings as tombstones "
        "(kind, when, how many; not with `about`)."
    )
    async def changes(
        self,
        info: EngramInfo,
        space: str,
        from_: Annotated[datetime, strawberry.argument(name="from")],
        to: datetime,
        axis: Axis = Axis.RECORDED,
        about: EntityRefInput | None = None,
        known_at: datetime | None = None,
        first: int = 100,
    ) -> Changes | None:
        view = await info.context.view(space, None, known_at)
        subject = command_data(about) if about is not None else None
        found = await info.context.memory.reads.changes(
            view, from_, to, axis=axis, about=subject, first=first
        )
        return Changes(
            changes=[Change.of(c, view) for c in found.changes], truncated=found.truncated
        )

    export: str | None = export_field
    messages: list[MessageHit] | None = messages_field


def build_schema(
    *, dev: bool, max_depth: int = 12, max_aliases: int = 20, max_tokens: int = 2000
) -> strawberry.Schema:
    """The schema with its limits; introspection only in dev mode.

    The depth and alias limits are validation rules made once here: a limiter made per request
    brings rule classes of its own, and the validation cache, keyed by the rules, would then
    validate every request again."""
    limits = [
        *QueryDepthLimiter(max_depth=max_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=max_aliases).validation_rules,
    ]
    extensions: list[Any] = [
        lambda: AddValidationRules(limits),
        lambda: MaxTokensLimiter(max_token_count=max_tokens),
        lambda: ParserCache(maxsize=256),
        lambda: ValidationCache(maxsize=256),
        lambda: MaskErrors(should_mask_error=should_mask),
        QueryCounter,
    ]
    if not dev:
        extensions.append(DisableIntrospection)
    return EngramSchema(
        query=Query, mutation=Mutation, extensions=extensions, scalar_overrides={datetime: DATETIME}
    )


schema = build_schema(dev=False)


def sdl() -> str:
    """The schema in SDL, as committed in schema.graphql."""
    return schema.as_str() + "\n"
