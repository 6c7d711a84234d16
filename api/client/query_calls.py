"""The read operations (queries), built like the writes in `mutation_calls`: each returns the
request and how to read its answer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from api.client import documents as docs
from api.client.mutation_calls import Call, Data, present
from api.client.records import (
    Claim,
    ClaimPage,
    ContextSnapshot,
    Entity,
    Explanation,
    MessageHit,
    Related,
    SearchHit,
    Space,
)
from api.client.request_inputs import EntityRef
from api.client.wire import from_wire
from graph.domain.vocabulary import ClaimStatus, Direction, EntityKind, MemoryType, Role

T = TypeVar("T")


def _view(as_of: datetime | None, known_at: datetime | None) -> dict[str, Any]:
    return {"asOf": as_of, "knownAt": known_at}


def spaces() -> Call[list[Space]]:
    """The memory spaces this key may read."""
    return Call(docs.SPACES, {}, lambda data: [from_wire(Space, s) for s in data["spaces"]])


def search(
    space: str,
    query: str,
    *,
    types: Sequence[MemoryType] | None = None,
    first: int = 12,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
    include_history: bool = False,
) -> Call[list[SearchHit]]:
    """Visible claims matching the query's words or meaning, best first; with
    `include_history`, also revisions ended by `as_of` or superseded by `known_at` (each
    hit's `state` says which)."""
    variables = {
        "space": space,
        "query": query,
        "types": list(types) if types is not None else None,
        "first": first,
        "includeHistory": include_history,
        **_view(as_of, known_at),
    }
    return Call(
        docs.SEARCH, variables, lambda data: [from_wire(SearchHit, h) for h in data["search"]]
    )


def messages(
    space: str,
    query: str | None = None,
    *,
    start: datetime | None = None,
    end: datetime | None = None,
    role: Role | None = None,
    episode_id: str | None = None,
    first: int = 20,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
) -> Call[list[MessageHit]]:
    """What was said: the messages matching `query` by words, or by the meaning of claims drawn
    from them, observed in `[start, end)`, by `role`, in an episode; newest first without a
    query."""
    variables = {
        "space": space,
        "query": query,
        "from": start,
        "to": end,
        "role": role,
        "episode": episode_id,
        "first": first,
        **_view(as_of, known_at),
    }
    return Call(
        docs.MESSAGES, variables, lambda data: [from_wire(MessageHit, h) for h in data["messages"]]
    )


def related(
    space: str,
    entity: EntityRef,
    *,
    hops: int = 1,
    relation_types: Sequence[str] | None = None,
    direction: Direction = Direction.BOTH,
    first: int = 50,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
) -> Call[Related]:
    """Entities reachable from `entity` through visible relations (1–4 hops)."""
    variables = {
        "space": space,
        "entity": entity,
        "hops": hops,
        "relationTypes": list(relation_types) if relation_types is not None else None,
        "direction": direction,
        "first": first,
        **_view(as_of, known_at),
    }
    return Call(docs.RELATED, variables, lambda data: from_wire(Related, data["related"]))


def explain_relation(
    space: str,
    source: EntityRef,
    target: EntityRef,
    *,
    max_hops: int = 3,
    first: int = 5,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
) -> Call[Explanation]:
    """The shortest visible paths between two entities, with the claims and evidence behind
    each step (or, when there is none, why)."""
    variables = {
        "space": space,
        "from": source,
        "to": target,
        "maxHops": max_hops,
        "first": first,
        **_view(as_of, known_at),
    }
    return Call(
        docs.EXPLAIN_RELATION,
        variables,
        lambda data: from_wire(Explanation, data["explainRelation"]),
    )


def context(
    space: str,
    *,
    budget_bytes: int = 2048,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
) -> Call[ContextSnapshot]:
    """The core snapshot for a prompt, never over `budget_bytes`."""
    variables = {"space": space, "budgetBytes": budget_bytes, **_view(as_of, known_at)}
    return Call(docs.CONTEXT, variables, lambda data: from_wire(ContextSnapshot, data["context"]))


def claims(
    space: str,
    *,
    type: MemoryType | None = None,
    key_prefix: str | None = None,
    subject: EntityRef | None = None,
    predicate: str | None = None,
    statuses: Sequence[ClaimStatus] | None = None,
    first: int = 20,
    after: str | None = None,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
) -> Call[ClaimPage]:
    """One page of the claims visible in the view, newest recorded first; pass the page's
    `end_cursor` as `after` for the next. `statuses` defaults to active and disputed."""
    filter = present(
        type=type,
        keyPrefix=key_prefix,
        subject=subject,
        predicate=predicate,
        statuses=list(statuses) if statuses is not None else None,
    )
    variables = {
        "space": space,
        "filter": filter,
        "first": first,
        "after": after,
        **_view(as_of, known_at),
    }
    return Call(docs.CLAIMS, variables, lambda data: from_wire(ClaimPage, data["claims"]))


CLAIM_LOOKUP_PAGE = 100
"""Claims one `claim()` looks through: the newest visible ones whose key starts with its key."""


def claim(
    space: str, key: str, *, as_of: datetime | None = None, known_at: datetime | None = None
) -> Call[Claim | None]:
    """The newest visible claim with exactly this key, or None."""

    def read(data: Data) -> Claim | None:
        page = from_wire(ClaimPage, data["claims"])
        return next((c for c in page.claims if c.key == key), None)

    lookup = claims(space, key_prefix=key, first=CLAIM_LOOKUP_PAGE, as_of=as_of, known_at=known_at)
    return Call(lookup.document, lookup.variables, read)


def claim_history(space: str, key: str, *, known_at: datetime | None = None) -> Call[list[Claim]]:
    """Every revision of a key, with both intervals and reasons."""
    variables = {"space": space, "key": key, "knownAt": known_at}
    return Call(
        docs.CLAIM_HISTORY,
        variables,
        lambda data: [from_wire(Claim, c) for c in data["claimHistory"]],
    )


def entity(
    space: str,
    *,
    id: str | None = None,
    key: str | None = None,
    name: str | None = None,
    kind: EntityKind | None = None,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
) -> Call[Entity | None]:
    """One entity by exactly one of id, key or name (with its kind, if several share it),
    named as of `as_of`; None when there is none."""
    variables = {
        "space": space,
        "id": id,
        "key": key,
        "name": name,
        "kind": kind,
        **_view(as_of, known_at),
    }
    return Call(docs.ENTITY, variables, lambda data: _maybe(Entity, data["entity"]))


def _maybe(record: type[T], data: Data | None) -> T | None:
    return from_wire(record, data) if data is not None else None
