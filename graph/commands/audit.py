"""Audit events (one per mutation) and idempotency keys.

An audit event says who did what to which ids, when, and with which outcome — never the content
itself (keys, values and titles live on the records they describe), so forgetting a record
leaves its audit trail intact and content-free.

An idempotency key is unique within its space and the writer's privacy tier (a uniqueness
constraint on the space and the key's digest, which folds the tier in): writers at one tier
share keys, and a writer never meets — by a replay or a `CONFLICT` — a key used at another tier,
so a key says nothing about writes it may not read. The first request under a key stores a hash
of the request and its result in its audit event; a replay with the same request returns that
result and writes nothing; the same key with a different request is a `CONFLICT`. Keys are
kept as SHA-256 digests (callers may put names in them, and audit events outlive forgetting);
the result holds only ids.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, LiteralString

from graph.commands.write_batch import Writes, write_all
from graph.commands.writing import WriteContext, new_id, run_command
from graph.domain.actor import Actor
from graph.domain.errors import Conflict, NotFound, ValidationFailed
from graph.domain.model import canonical_json
from graph.domain.vocabulary import Privacy
from graph.store.db import Graph

MAX_IDEMPOTENCY_KEY = 200

FIND_IDEMPOTENT: LiteralString = """
UNWIND $keys AS key
MATCH (a:AuditEvent {spaceId: $spaceId, idempotencyKey: key.digest})
RETURN key.key AS key, a.action AS action, a.requestHash AS requestHash,
       a.resultJson AS resultJson
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
    ) -> AuditLog:
        """Collect one event; returns the log, so a command of one act writes it in one line:
        `await AuditLog().add(...).write(ctx)`."""
        self.events.append(
            {
                "action": action,
                "outcome": "ok",
                "targetIds": targets,
                "idempotencyKey": idempotency_key,
                # A request's fingerprint matters only to its replays, found by its key.
                "requestHash": request_hash if idempotency_key else None,
                "result": result,
                "detail": detail,
            }
        )
        return self

    def stored_events(self, ctx: WriteContext) -> list[dict[str, Any]]:
        """The events as stored: one per act of the transaction (action and detail) for all its
        targets, but one for each request with an idempotency key (stored as a digest), whose
        replays find its own result."""
        stored: list[dict[str, Any]] = []
        shared: dict[tuple[str, str | None], dict[str, Any]] = {}
        for event in self.events:
            if event["idempotencyKey"]:
                digest = key_digest(event["idempotencyKey"], ctx.max_privacy)
                stored.append({**event, "idempotencyKey": digest})
            elif (act := (event["action"], event["detail"])) not in shared:
                shared[act] = {**event, "targetIds": list(event["targetIds"])}
                stored.append(shared[act])
            else:
                # Several targets of one act: their results are their ids, which it lists.
                shared[act]["targetIds"].extend(event["targetIds"])
                shared[act]["result"] = None
        return [_stored(event) for event in stored]

    def add_to(self, writes: Writes, ctx: WriteContext) -> None:
        """Add the events to a command's `write_batch.Writes`."""
        writes.events.extend(self.stored_events(ctx))

    async def write(self, ctx: WriteContext) -> None:
        await write_all(ctx, self)


def _stored(event: dict[str, Any]) -> dict[str, Any]:
    """An event's properties: its result as canonical JSON, and an id of its own."""
    result = event.pop("result")
    return {
        **event,
        "id": new_id(),
        "resultJson": canonical_json(result) if result is not None else None,
    }


def key_digest(key: str, tier: Privacy) -> str:
    """How an idempotency key used by a writer at `tier` is stored and looked up. (At the top
    tier it is the digest of the key alone, as before tiers were folded in, so keys recorded
    by operators then still replay.)"""
    scoped = key if tier is Privacy.SECRET else f"{tier.name.lower()}:{key}"
    return hashlib.sha256(("idempotency:" + scoped).encode()).hexdigest()


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
    rows = await ctx.run(FIND_IDEMPOTENT, keys=replay_keys(ctx, requests))
    return replays_of(rows, requests)


def replay_keys(ctx: WriteContext, requests: dict[str, tuple[str, str]]) -> list[dict[str, str]]:
    """The `$keys` of `FIND_IDEMPOTENT` for the requests' idempotency keys."""
    return [{"key": key, "digest": key_digest(key, ctx.max_privacy)} for key in requests]


def replays_of(
    rows: list[dict[str, Any]], requests: dict[str, tuple[str, str]]
) -> dict[str, Replay]:
    """The replays the rows of `FIND_IDEMPOTENT` found; `CONFLICT` for a key used before for
    another request."""
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


@dataclass(frozen=True)
class Undo:
    """An undo of an earlier act (an unmerge, a hold's release): `query` takes `$id` and
    `$reason` and answers whether it was `already` undone; audited as `action`."""

    query: LiteralString
    action: str
    what: str
    """What the id names, for `NOT_FOUND` ("merge", "legal hold")."""
    field: str
    already: str


async def undo_once(
    graph: Graph, space: str, actor: Actor, undo: Undo, target_id: str, reason: str
) -> bool:
    """Run `undo` on `target_id` in the space, at the writer's tier: `NOT_FOUND` when it finds
    nothing, False when it was undone before, else audited and True."""

    async def work(ctx: WriteContext) -> bool:
        rows = await ctx.run(undo.query, id=target_id, reason=reason)
        if not rows:
            raise NotFound(f"no {undo.what} {target_id!r} in space {space!r}", field=undo.field)
        if rows[0][undo.already]:
            return False
        audit = AuditLog()
        audit.add(undo.action, [target_id])
        await audit.write(ctx)
        return True

    return await run_command(graph, space, actor, work)
