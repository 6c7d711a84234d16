"""Retention: per-type policies that archive old claims (kept, readable, left out of recall) and
purge older ones (erased like forget, with a tombstone).

Never touched: pinned claims, open tasks, unfulfilled commitments (a value with
`"commitment": true` and no `"fulfilled": true`), tombstones, and anything under a legal hold.
Ages count from when Engram recorded a key's latest current row. `dry_run` plans and explains
without writing.

    report = await run_retention(graph, "alice", policies=DEFAULT_POLICIES, dry_run=True,
                               actor=Actor.operator("retention"))
    report.purged, report.skipped
    (['event:launch:2019-02-01:beta'], [('task:engram:t1', 'open task')])
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, LiteralString

from pydantic import BaseModel, ConfigDict, Field

from graph.commands.audit import AuditLog
from graph.commands.writing import WriteContext, run_command
from graph.domain import memory_types as mt
from graph.domain.actor import Actor
from graph.domain.model import canonical_json
from graph.domain.vocabulary import MemoryType
from graph.erasure.engine import erase
from graph.erasure.forget import write_tombstone
from graph.erasure.holds import held_ids
from graph.erasure.purge_outbox import purge_blobs
from graph.erasure.selectors import Selection
from graph.store.db import Graph
from graph.store.rows import native_props
from graph.store.text_indexes import text_indexes_caught_up

RETENTION_KIND = "RETENTION"


class Policy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    archive_after_days: int | None = Field(default=None, ge=0)
    purge_after_days: int | None = Field(default=None, ge=0)


DEFAULT_POLICIES: dict[MemoryType, Policy] = {
    MemoryType.EVENT: Policy(archive_after_days=180),
    MemoryType.TASK: Policy(archive_after_days=90),
    MemoryType.CASE: Policy(archive_after_days=365),
}
"""Out of the box Engram archives, and never purges: purging is opted into per type."""

CURRENT_ROWS: LiteralString = """
MATCH (c:Claim {spaceId: $spaceId})
WHERE c.type IN $types AND c.supersededAt IS NULL AND c.erasedAt IS NULL
RETURN properties(c) AS claim
"""

ALL_ROWS_OF_KEYS: LiteralString = """
UNWIND $keys AS key
MATCH (c:Claim {spaceId: $spaceId, key: key})
RETURN c.id AS id
"""

ARCHIVE: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
SET c.archivedAt = coalesce(c.archivedAt, $now)
"""


@dataclass
class RetentionReport:
    space: str
    dry_run: bool
    archived: list[str] = field(default_factory=list)
    purged: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    tombstone_id: str | None = None


def _protection(row: dict[str, Any]) -> str | None:
    """Why a row must never be archived or purged (None when it may be)."""
    value = json.loads(row["valueJson"]) if row.get("valueJson") else None
    if row.get("pinned"):
        return "pinned"
    if not isinstance(value, dict):
        return None
    if row["type"] == MemoryType.TASK.value and value.get("status") in mt.OPEN_TASK_STATUSES:
        return "open task"
    if value.get("commitment") and not value.get("fulfilled"):
        return "unfulfilled commitment"
    return None


async def run_retention(
    graph: Graph,
    space: str,
    *,
    policies: dict[MemoryType, Policy] | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
    actor: Actor,
) -> RetentionReport:
    """Apply the policies to one space in one transaction (or only plan them)."""
    policies = DEFAULT_POLICIES if policies is None else policies

    async def work(ctx: WriteContext) -> RetentionReport:
        clock = now or ctx.now
        report = RetentionReport(space, dry_run)
        rows = [
            native_props(r["claim"])
            for r in await ctx.run(CURRENT_ROWS, types=[t.value for t in policies])
        ]
        held, holds = await held_ids(ctx)
        space_held = any(whole for _, _, whole in holds)
        by_key: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            by_key.setdefault(row["key"], []).append(row)
        archive_ids: list[str] = []
        purge_keys: list[str] = []
        for key in sorted(by_key):
            current = by_key[key]
            policy = policies[MemoryType(current[0]["type"])]
            newest = max(row["recordedAt"] for row in current)
            age = clock - newest
            reasons = [reason for row in current if (reason := _protection(row))]
            if space_held or any(row["id"] in held for row in current):
                reasons.append("legal hold")
            due_purge = policy.purge_after_days is not None and age >= timedelta(
                days=policy.purge_after_days
            )
            due_archive = policy.archive_after_days is not None and age >= timedelta(
                days=policy.archive_after_days
            )
            if not (due_purge or due_archive):
                continue
            if reasons:
                report.skipped.append((key, ", ".join(sorted(set(reasons)))))
            elif due_purge:
                purge_keys.append(key)
            elif all(row.get("archivedAt") is None for row in current):
                archive_ids.extend(row["id"] for row in current)
                report.archived.append(key)
        report.purged = purge_keys
        if dry_run:
            return report
        if archive_ids:
            await ctx.run(ARCHIVE, ids=archive_ids)
        if purge_keys:
            ids = [r["id"] for r in await ctx.run(ALL_ROWS_OF_KEYS, keys=purge_keys)]
            selection = Selection(claims=set(ids))
            erasure = await erase(ctx, selection, held=held)
            policy_text = canonical_json(
                {t.value: p.model_dump() for t, p in sorted(policies.items())}
            )
            report.tombstone_id = await write_tombstone(
                ctx,
                kind=RETENTION_KIND,
                fingerprint=hashlib.sha256(
                    canonical_json({"space": ctx.space_id, "ids": sorted(ids)}).encode()
                ).hexdigest(),
                reason=f"retention policy {hashlib.sha256(policy_text.encode()).hexdigest()[:12]}",
                selection=selection,
                erasure=erasure,
            )
        if archive_ids or purge_keys:
            audit = AuditLog()
            audit.add(
                "retention",
                [report.tombstone_id] if report.tombstone_id else [],
                detail=f"archived {len(report.archived)}, purged {len(purge_keys)}",
            )
            await audit.write(ctx)
        return report

    report = await run_command(graph, space, actor, work)
    await text_indexes_caught_up(graph)
    return report


async def run_retention_everywhere(
    graph: Graph,
    spaces: list[str],
    *,
    blob_root: Any,
    policies: dict[MemoryType, Policy] | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
    actor: Actor,
) -> list[RetentionReport]:
    reports = [
        await run_retention(graph, space, policies=policies, now=now, dry_run=dry_run, actor=actor)
        for space in spaces
    ]
    if not dry_run:
        await purge_blobs(graph, blob_root)
    return reports


def parse_policies(text: str) -> dict[MemoryType, Policy]:
    """Policies from JSON: `{"event": {"archive_after_days": 180, "purge_after_days": 730}}`."""
    raw = json.loads(text)
    return {MemoryType(kind): Policy.model_validate(policy) for kind, policy in raw.items()}
