"""Audit events (one per mutation) and idempotency keys.

An audit event says who did what to which ids, when, and with which outcome — never the content
itself (keys, values and titles live on the records they describe), so forgetting a record
leaves its audit trail intact and content-free.

An idempotency key is unique within its space (a uniqueness constraint). The first request under
a key stores a hash of the request and its result in its audit event; a replay with the same
request returns that result and writes nothing; the same key with a different request is a
`CONFLICT`. Keys are kept as SHA-256 digests (callers may put names in them, and audit events
outlive forgetting); the result holds only ids.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, LiteralString

from graph.db import run
from graph.errors import Conflict, ValidationFailed
from graph.model import canonical_json
from graph.writing import WriteContext, new_id

MAX_IDEMPOTENCY_KEY = 200

FIND_IDEMPOTENT: LiteralString = """
UNWIND $keys AS key
MATCH (a:AuditEvent {spaceId: $spaceId, idempotencyKey: key.digest})
RETURN key.key AS key, a.action AS action, a.requestHash AS requestHash,
       a.resultJson AS resultJson
"""

CREATE_AUDIT_EVENTS: LiteralString = """
UNWIND $events AS event
CREATE (a:AuditEvent)
SET a = event, a.at = $now, a.spaceId = $spaceId, a.actor = $actor
"""


@dataclass(frozen=True)
class Replay:
    action: str
    result: dict[str, Any]


@dataclass
class AuditLog:
    """Audit events collected during one transaction and written at its end."""

    events: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        action: str,
        targets: list[str],
        *,
        idempotency_key: str | None = None,
        request_hash: str | None = None,
        result: dict[str, Any] | None = None,
        detail: str | None = None,
    ) -> None:
        self.events.append(
            {
                "id": new_id(),
                "action": action,
                "outcome": "ok",
                "targetIds": targets,
                "idempotencyKey": key_digest(idempotency_key) if idempotency_key else None,
                "requestHash": request_hash,
                "resultJson": canonical_json(result) if result is not None else None,
                "detail": detail,
            }
        )

    async def write(self, ctx: WriteContext) -> None:
        if self.events:
            await run(
                ctx.tx,
                CREATE_AUDIT_EVENTS,
                events=self.events,
                now=ctx.now,
                spaceId=ctx.space_id,
                actor=ctx.actor,
            )


def key_digest(key: str) -> str:
    """How an idempotency key is stored and looked up."""
    return hashlib.sha256(("idempotency:" + key).encode()).hexdigest()


def request_hash(action: str, payload: Any) -> str:
    """A stable fingerprint of a request: the same request hashes the same."""
    return hashlib.sha256(
        canonical_json({"action": action, "request": payload}).encode()
    ).hexdigest()


def check_idempotency_key(key: str | None) -> None:
    if key is not None and not (0 < len(key) <= MAX_IDEMPOTENCY_KEY):
        raise ValidationFailed(
            f"an idempotency key is 1–{MAX_IDEMPOTENCY_KEY} characters", field="idempotencyKey"
        )


async def find_replays(
    ctx: WriteContext, requests: dict[str, tuple[str, str]]
) -> dict[str, Replay]:
    """Earlier results of requests by idempotency key: `{key: (action, requestHash)}`."""
    if not requests:
        return {}
    keys = [{"key": key, "digest": key_digest(key)} for key in requests]
    rows = await run(ctx.tx, FIND_IDEMPOTENT, keys=keys, spaceId=ctx.space_id)
    replays: dict[str, Replay] = {}
    for row in rows:
        action, wanted_hash = requests[row["key"]]
        if row["action"] != action or row["requestHash"] != wanted_hash:
            raise Conflict(
                f"idempotency key {row['key']!r} was already used for a different request",
                field="idempotencyKey",
            )
        replays[row["key"]] = Replay(action, json.loads(row["resultJson"] or "{}"))
    return replays
