"""One function per API operation: it builds the request (document and variables) and says how
to read the answer into a record. The sync and the async client both run these, so each
operation's arguments, defaults and documentation are written once. The writes (mutations) are
here, the reads (queries) in `query_calls`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from api.client import documents as docs
from api.client.exceptions import payload_errors, raise_errors
from api.client.records import (
    Claim,
    Episode,
    ForgetReceipt,
    Observation,
    Space,
)
from api.client.request_inputs import Cited, EntityRef, MemoryItem, cited
from api.client.wire import UNSET, JSONValue, Unsettable, from_wire
from graph.domain.vocabulary import (
    CorrectionKind,
    EpisodeKind,
    ObservationKind,
    Privacy,
    Role,
    SelectorKind,
)

T = TypeVar("T")
Data = Mapping[str, Any]


@dataclass(frozen=True)
class Call(Generic[T]):
    """A request ready to send, and how to read its `data` into a `T` (raising on errors).
    The variables may hold enums, instants and inputs: they go out as `wire.to_wire` says."""

    document: str
    variables: dict[str, Any]
    read: Callable[[Data], T]


def present(**fields: Any) -> dict[str, Any]:
    """The fields given: None and UNSET left out."""
    return {k: v for k, v in fields.items() if v is not None and v is not UNSET}


def _payload(field: str, part: str, record: type[T]) -> Callable[[Data], T]:
    """Read a mutation's payload: raise its `errors`, else read the record from `part`."""

    def read(data: Data) -> T:
        payload = data[field]
        raise_errors(payload_errors(payload))
        return from_wire(record, payload[part])

    return read


def _payload_list(field: str, part: str, record: type[T]) -> Callable[[Data], list[T]]:
    def read(data: Data) -> list[T]:
        payload = data[field]
        raise_errors(payload_errors(payload))
        return [from_wire(record, each) for each in payload[part]]

    return read


def create_space(name: str, description: str = "") -> Call[Space]:
    """Create a memory space (name: 1–63 of a-z 0-9 _ -); `CONFLICT` if the name is taken."""
    return Call(
        docs.CREATE_SPACE,
        {"name": name, "description": description},
        _payload("createSpace", "space", Space),
    )


def open_episode(
    space: str,
    *,
    title: str | None = None,
    kind: EpisodeKind | None = None,
    participants: Sequence[str] | None = None,
    started_at: datetime | None = None,
    privacy: Privacy | None = None,
    idempotency_key: str | None = None,
) -> Call[Episode]:
    """Open an episode (a conversation, a tool run, an import) to record observations in."""
    data = present(
        title=title,
        kind=kind,
        participants=list(participants) if participants is not None else None,
        startedAt=started_at,
        privacy=privacy,
        idempotencyKey=idempotency_key,
    )
    return Call(
        docs.OPEN_EPISODE,
        {"space": space, "input": data},
        _payload("openEpisode", "episode", Episode),
    )


def seal_episode(
    space: str,
    episode_id: str,
    *,
    ended_at: datetime | None = None,
    idempotency_key: str | None = None,
) -> Call[Episode]:
    """Seal an open episode: it takes no more observations."""
    data = present(episodeId=episode_id, endedAt=ended_at, idempotencyKey=idempotency_key)
    return Call(
        docs.SEAL_EPISODE,
        {"space": space, "input": data},
        _payload("sealEpisode", "episode", Episode),
    )


def record_observation(
    space: str,
    episode_id: str,
    content: str,
    *,
    kind: ObservationKind | None = None,
    role: Role | None = None,
    observed_at: datetime | None = None,
    privacy: Privacy | None = None,
    idempotency_key: str | None = None,
) -> Call[Observation]:
    """Append an observation (a message, a tool result, …) to an open episode."""
    data = present(
        episodeId=episode_id,
        content=content,
        kind=kind,
        role=role,
        observedAt=observed_at,
        privacy=privacy,
        idempotencyKey=idempotency_key,
    )
    return Call(
        docs.RECORD_OBSERVATION,
        {"space": space, "input": data},
        _payload("recordObservation", "observation", Observation),
    )


def remember(space: str, memory: MemoryItem) -> Call[Claim]:
    """Create or revise one claim, citing at least one piece of evidence."""
    return Call(
        docs.REMEMBER,
        {"space": space, "input": memory},
        _payload("remember", "claim", Claim),
    )


def remember_many(space: str, memories: Sequence[MemoryItem]) -> Call[list[Claim]]:
    """Remember many claims in one transaction: all or nothing, claims in the input's order."""
    return Call(
        docs.REMEMBER_MANY,
        {"space": space, "inputs": list(memories)},
        _payload_list("rememberMany", "claims", Claim),
    )


def link(
    space: str,
    source: EntityRef,
    relation: str,
    target: EntityRef,
    *,
    evidence: Sequence[Cited],
    confidence: float | None = None,
    importance: float | None = None,
    privacy: Privacy | None = None,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    idempotency_key: str | None = None,
    expected_revision: int | None = None,
) -> Call[Claim]:
    """Assert a typed relation (`relation` in UPPER_SNAKE_CASE, e.g. WORKS_AT) as a fact."""
    data = present(
        confidence=confidence,
        importance=importance,
        privacy=privacy,
        validFrom=valid_from,
        validTo=valid_to,
        idempotencyKey=idempotency_key,
        expectedRevision=expected_revision,
    )
    data.update(
        {
            "from": source,
            "type": relation,
            "to": target,
            "evidence": cited(evidence),
        }
    )
    return Call(docs.LINK, {"space": space, "input": data}, _payload("link", "claim", Claim))


def correct(
    space: str,
    claim_id: str | None,
    kind: CorrectionKind,
    *,
    reason: str,
    claim_key: str | None = None,
    evidence: Sequence[Cited] | None = None,
    value: JSONValue | Unsettable = UNSET,
    object: EntityRef | None = None,
    valid_from: datetime | None = None,
    valid_to: datetime | Unsettable | None = UNSET,
    confidence: float | None = None,
    importance: float | None = None,
    privacy: Privacy | None = None,
    against_claim_id: str | None = None,
    expected_revision: int | None = None,
    idempotency_key: str | None = None,
) -> Call[Claim]:
    """SUPERSEDE, RETRACT or DISPUTE one current claim revision (by `claim_id`, or None and
    `claim_key` for the key's current revision); never in place.

    `valid_to=None` opens the interval and `value=None` clears the value; left out (UNSET),
    each keeps what the claim had."""
    data = present(
        claimId=claim_id,
        claimKey=claim_key,
        kind=kind,
        reason=reason,
        evidence=cited(evidence) if evidence is not None else None,
        object=object,
        validFrom=valid_from,
        confidence=confidence,
        importance=importance,
        privacy=privacy,
        againstClaimId=against_claim_id,
        expectedRevision=expected_revision,
        idempotencyKey=idempotency_key,
    )
    if value is not UNSET:
        data["value"] = value
    if valid_to is not UNSET:
        data["validTo"] = valid_to
    return Call(docs.CORRECT, {"space": space, "input": data}, _payload("correct", "claim", Claim))


def forget(
    space: str,
    kind: SelectorKind,
    *,
    reason: str,
    id: str | None = None,
    key: str | None = None,
    name: str | None = None,
    subject: EntityRef | None = None,
    predicate: str | None = None,
    idempotency_key: str | None = None,
) -> Call[ForgetReceipt]:
    """Erase what the selector selects (a claim, observation, episode, artifact or entity by
    `id`; a claim or an entity by `key`; an entity by `name`; a `subject` + `predicate`; the
    whole space), in every revision, for good."""
    selector = present(
        kind=kind,
        id=id,
        key=key,
        name=name,
        subject=subject,
        predicate=predicate,
    )
    return Call(
        docs.FORGET,
        {"space": space, "selector": selector, "reason": reason, "idempotencyKey": idempotency_key},
        _payload("forget", "receipt", ForgetReceipt),
    )
