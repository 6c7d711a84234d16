"""A Python client for Engram's GraphQL API, blocking and asyncio, on httpx.

    from api.client import EngramClient, EntityRef, MemoryItem
    with EngramClient("http://127.0.0.1:8000", api_key="egk_…") as engram:
        said = engram.record_observation("alice", episode.id, "I work at Acme")
        engram.link("alice", EntityRef(key="entity:person:alice"), "WORKS_AT",
                    EntityRef(key="entity:org:acme"), evidence=[said.id])

It talks HTTP only and imports nothing of the server but its vocabulary (the enums of
`graph.domain.vocabulary`, standard library only, which every face speaks); it needs httpx (the
`client` extra, `pip install '.[client]'`). Enums travel by name: `EntityKind.PERSON` is sent
as `PERSON`. Errors are raised as `EngramError`
subclasses whose `code` is the API's stable code (`NOT_FOUND`, `VALIDATION`, …).
"""

from api.client.engram_client import AsyncEngramClient, EngramClient
from api.client.exceptions import (
    AmbiguousSubjectError,
    ConflictError,
    EngramError,
    ErrorDetail,
    ForbiddenError,
    ForgottenError,
    GateRefusedError,
    HistoryUnavailableError,
    LegalHoldError,
    NotFoundError,
    RequestTimeoutError,
    RequestTooLargeError,
    RevisionConflictError,
    UnauthenticatedError,
    UnavailableError,
    UnexpectedError,
    ValidationError,
)
from api.client.mutation_calls import Call
from api.client.records import (
    Claim,
    ClaimPage,
    ContextSnapshot,
    Entity,
    Episode,
    Evidence,
    Explanation,
    ForgetReceipt,
    MessageHit,
    Observation,
    Path,
    Related,
    RelatedEntity,
    Relation,
    SearchHit,
    Space,
    Step,
)
from api.client.request_inputs import EntityRef, EvidenceRef, MemoryItem
from api.client.wire import UNSET, JSONValue
from graph.domain import vocabulary

# The client speaks the whole vocabulary, re-exported as it is (its own __all__).
from graph.domain.vocabulary import *  # noqa: F403

__all__ = [
    "UNSET",
    "AmbiguousSubjectError",
    "AsyncEngramClient",
    "Call",
    "Claim",
    "ClaimPage",
    "ConflictError",
    "ContextSnapshot",
    "EngramClient",
    "EngramError",
    "Entity",
    "EntityRef",
    "Episode",
    "ErrorDetail",
    "Evidence",
    "EvidenceRef",
    "Explanation",
    "ForbiddenError",
    "ForgetReceipt",
    "ForgottenError",
    "GateRefusedError",
    "HistoryUnavailableError",
    "JSONValue",
    "LegalHoldError",
    "MemoryItem",
    "MessageHit",
    "NotFoundError",
    "Observation",
    "Path",
    "Related",
    "RelatedEntity",
    "Relation",
    "RequestTimeoutError",
    "RequestTooLargeError",
    "RevisionConflictError",
    "SearchHit",
    "Space",
    "Step",
    "UnauthenticatedError",
    "UnavailableError",
    "UnexpectedError",
    "ValidationError",
    *vocabulary.__all__,
]
