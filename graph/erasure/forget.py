"""forget: erase what a selector selects, in every revision, and never let it come back.

In one transaction: the content of everything selected is erased (claim values, texts, keys and
names in every revision; observation texts and their hashes; artifact content and locators;
entity names; episode titles) together with the observations and artifacts that were evidence of
nothing but the forgotten claims, the relationships that carried it are deleted (relations,
evidence links, merges), claims that lose their only evidence become non-active (a `retracted`
revision, reason given), and a `Tombstone` records — without any content — what was erased:
the selector's fingerprint, the erased ids, keyed fingerprints of erased texts (so an import of
the same old data is recognised), the reason, the actor and the watermark (the forget's
recorded time). Blob files are deleted right after commit through the tombstone's outbox
(`pendingBlobs`), which `purge_blobs` also drains at start-up. A whole space is closed in the
transaction (every read and write of it fails from commit on) and its nodes are purged in
batches right after, through the same outbox (`pendingSpacePurge`).

    receipt = await forget(graph, "alice", ForgetInput(
        selector=Selector(kind=SelectorKind.CLAIM, id=claim.id), reason="user asked"),
        actor=agent, blob_root=settings.blobs)
    receipt.erased
    {'claims': 3, 'observations': 0, 'episodes': 0, 'artifacts': 0, 'entities': 0}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, LiteralString

from pydantic import BaseModel, ConfigDict, Field

from graph.commands.audit import AuditLog, check_idempotency_key, find_replays, request_hash
from graph.commands.writing import WriteContext, new_id, run_command
from graph.domain.actor import Actor
from graph.erasure.engine import Erasure, erase, keyed_digest
from graph.erasure.holds import check_holds
from graph.erasure.purge_outbox import purge_blobs, purge_spaces
from graph.erasure.selectors import Selection, Selector, SelectorKind, fingerprint, select
from graph.store.db import Graph
from graph.store.text_indexes import text_indexes_caught_up

CREATE_TOMBSTONE: LiteralString = """
CREATE (t:Tombstone)
SET t = $props, t.at = $now, t.watermark = $now
FOREACH (_ IN CASE WHEN t.pendingBlobs IS NULL THEN [] ELSE [1] END | SET t:PendingBlobs)
FOREACH (_ IN CASE WHEN t.pendingSpacePurge IS NULL THEN [] ELSE [1] END |
  SET t:PendingSpacePurge)
"""


class ForgetInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    selector: Selector
    reason: str = Field(min_length=1, max_length=2000)
    idempotency_key: str | None = None


@dataclass(frozen=True)
class ForgetReceipt:
    """What one forget erased (counts, never content) and its tombstone."""

    tombstone_id: str
    watermark: datetime
    erased: dict[str, int]
    made_inactive: int
    """Claims that lost their only evidence and became non-active."""
    whole_space: bool = False
    replayed: bool = False
    blob_files: int = 0
    """Blob files the outbox is to delete after commit."""

    def as_result(self) -> dict[str, Any]:
        return {
            "tombstoneId": self.tombstone_id,
            "watermark": self.watermark.isoformat(),
            "erased": self.erased,
            "madeInactive": self.made_inactive,
            "wholeSpace": self.whole_space,
        }


async def forget(
    graph: Graph, space: str, request: ForgetInput, *, actor: Actor, blob_root: Path
) -> ForgetReceipt:
    """Erase what the selector selects (see the module docstring); returns the receipt."""
    check_idempotency_key(request.idempotency_key)

    async def work(ctx: WriteContext) -> ForgetReceipt:
        return await forget_in(ctx, request)

    receipt = await run_command(graph, space, actor, work)
    if receipt.whole_space:
        await purge_spaces(graph)
    if receipt.blob_files:
        await purge_blobs(graph, blob_root)
    await text_indexes_caught_up(graph)
    return receipt


async def forget_in(ctx: WriteContext, request: ForgetInput) -> ForgetReceipt:
    """`forget` inside a writing transaction that has begun (`begin_write`)."""
    fingerprint_of_request = request_hash("forget", request.model_dump(mode="json"))
    if request.selector.by_content():
        # A key or a name is content: the audit keeps only a keyed digest of such a request,
        # so that nothing in it can confirm a guess of what was forgotten.
        fingerprint_of_request = await keyed_digest(ctx, fingerprint_of_request)
    if request.idempotency_key is not None:
        replays = await find_replays(
            ctx, {request.idempotency_key: ("forget", fingerprint_of_request)}
        )
        if request.idempotency_key in replays:
            result = replays[request.idempotency_key].result
            return ForgetReceipt(
                tombstone_id=result["tombstoneId"],
                watermark=datetime.fromisoformat(result["watermark"]),
                erased=result["erased"],
                made_inactive=result["madeInactive"],
                whole_space=result["wholeSpace"],
                replayed=True,
            )
    selection = await select(ctx, request.selector)
    held = await check_holds(ctx, selection)
    erasure = await erase(ctx, selection, held=held)
    tombstone_id = await write_tombstone(
        ctx,
        kind=request.selector.kind.value,
        fingerprint=fingerprint(ctx.space_id, request.selector, selection),
        reason=request.reason,
        selection=selection,
        erasure=erasure,
    )
    receipt = ForgetReceipt(
        tombstone_id=tombstone_id,
        watermark=ctx.now,
        erased=selection.counts(),
        made_inactive=len(erasure.made_inactive),
        whole_space=selection.whole_space,
        blob_files=len(erasure.blobs),
    )
    audit = AuditLog()
    audit.add(
        "forget",
        [tombstone_id],
        idempotency_key=request.idempotency_key,
        request_hash=fingerprint_of_request,
        result=receipt.as_result(),
        detail=request.selector.kind.value,
    )
    await audit.write(ctx)
    return receipt


async def write_tombstone(
    ctx: WriteContext,
    *,
    kind: str,
    fingerprint: str,
    reason: str,
    selection: Selection,
    erasure: Erasure,
) -> str:
    """Record an erasure in the ledger (ids, keyed fingerprints, counts — never content)."""
    tombstone_id = new_id()
    props = {
        "id": tombstone_id,
        "spaceId": ctx.space_id,
        "selectorKind": kind,
        "fingerprint": fingerprint,
        "reason": reason,
        "actor": ctx.actor,
        "erasedIds": sorted(selection.all_ids() - erasure.lifted.keys()),
        # Lifted entities are replayed as lifts (never as erasures) after a restore.
        "liftedJson": json.dumps(erasure.lifted, sort_keys=True) if erasure.lifted else None,
        "tier": int(ctx.max_privacy),
        "contentFingerprints": sorted(erasure.fingerprints),
        "countsJson": json.dumps(selection.counts(), sort_keys=True),
        "madeInactive": len(erasure.made_inactive),
        "pendingBlobs": sorted(erasure.blobs) or None,
        "pendingSpacePurge": True if selection.whole_space else None,
    }
    await ctx.run(CREATE_TOMBSTONE, props=props)
    return tombstone_id


__all__ = ["ForgetInput", "ForgetReceipt", "Selector", "SelectorKind", "forget", "forget_in"]
