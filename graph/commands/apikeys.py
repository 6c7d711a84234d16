"""API keys: each grants read, or read and write, on named spaces up to a privacy tier.

A key is `egk_<id>_<secret>`; Neo4j keeps the id, the SHA-256 of the secret (never the secret)
and the grants. Keys are administrative records outside the bi-temporal memory, and this module
is their one owner: the `ApiKey` neomodel model declares them (its unique `keyId` is the
constraint migration V0003 installs, a test holds the two together) and every write of an
`:ApiKey` node is a neomodel call below — including withdrawing a forgotten space's grants,
which `purge_outbox` asks of `withdraw_space_grants` after the forget commits.

neomodel runs in its own transactions (it cannot join Engram's), so a change is a
read-modify-save in one neomodel write transaction that first takes the key's write lock
(`LOCK_KEY`, the Cypher manual's cure for lost updates): a revoke and a withdrawal, or two
withdrawals, never overwrite each other's change.

    issued = await create_key("agent-7", [Grant("alice", Privacy.PRIVATE, write=True)])
    issued.secret            # shown once
    'egk_3f9a0c1b2d4e_…'
    actor = await authenticate(graph, issued.secret)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, LiteralString

from neomodel import (
    AsyncStructuredNode,
    DateTimeProperty,
    JSONProperty,
    StringProperty,
    adb,
)

from graph.domain.actor import SPACE_NAME, Actor, Grant
from graph.domain.errors import ValidationFailed
from graph.domain.vocabulary import Privacy
from graph.store.db import Graph
from graph.store.neomodel_bridge import bound_graph, in_neomodel

_KEY = re.compile(r"^egk_(?P<id>[0-9a-f]{12})_(?P<secret>[A-Za-z0-9_-]{20,100})$")


class ApiKey(AsyncStructuredNode):
    __label__ = "ApiKey"
    key_id = StringProperty(required=True, unique_index=True, db_property="keyId")
    secret_sha256 = StringProperty(required=True, db_property="secretSha256")
    name = StringProperty(default="", db_property="name")
    grants = JSONProperty(required=True, db_property="grants")
    created_at = DateTimeProperty(default_now=True, db_property="createdAt")
    revoked_at = DateTimeProperty(db_property="revokedAt")


# Takes the key's write lock before it is read again, so read-modify-save is not a lost update.
LOCK_KEY: LiteralString = """
MATCH (k:ApiKey {keyId: $keyId})
SET k._lock = true
REMOVE k._lock
"""

KEY_BY_ID: LiteralString = """
MATCH (k:ApiKey {keyId: $keyId})
RETURN k.keyId AS keyId, k.secretSha256 AS secretSha256, k.name AS name, k.grants AS grants,
       k.revokedAt AS revokedAt
"""

DEV = Actor.operator("dev")


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    secret: str
    grants: list[Grant]


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _grants_json(grants: list[Grant]) -> list[dict[str, Any]]:
    return [
        {
            "space": g.space,
            "tier": g.tier.name.lower(),
            "write": g.write,
            "legal": g.legal,
            "rules": g.rules,
        }
        for g in grants
    ]


def _grants(raw: list[dict[str, Any]]) -> dict[str, Grant]:
    return {
        g["space"]: Grant(
            g["space"],
            Privacy[str(g["tier"]).upper()],
            bool(g["write"]),
            bool(g.get("legal", False)),
            bool(g.get("rules", False)),
        )
        for g in raw
    }


async def create_key(name: str, grants: list[Grant]) -> IssuedKey:
    """Issue a key; its secret is returned once and only its hash is kept."""
    if not grants:
        raise ValidationFailed("a key grants at least one space", field="space")
    for grant in grants:
        if not SPACE_NAME.match(grant.space):
            raise ValidationFailed(f"not a space name: {grant.space!r}", field="space")
    key_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    key = ApiKey(
        key_id=key_id, secret_sha256=_digest(secret), name=name, grants=_grants_json(grants)
    )
    await in_neomodel(bound_graph(), key.save())
    return IssuedKey(key_id, f"egk_{key_id}_{secret}", grants)


async def authenticate(graph: Graph, presented: str) -> Actor | None:
    """The actor of a presented key, or None if it is malformed, unknown or revoked."""
    match = _KEY.match(presented.strip())
    if match is None:
        return None
    # Read through the driver's managed read transaction, not neomodel's: routable, and a
    # request timeout that cancels it while the server stalls leaves no session open (a
    # cancelled `adb.read_transaction` does). neomodel stays the only writer of keys.
    rows = await graph.read(KEY_BY_ID, keyId=match["id"])
    if not rows or rows[0]["revokedAt"] is not None:
        return None
    key = rows[0]
    if not hmac.compare_digest(key["secretSha256"], _digest(match["secret"])):
        return None
    return Actor(f"key:{key['keyId']}:{key['name'] or ''}", _grants(json.loads(key["grants"])))


async def _locked(key: ApiKey) -> ApiKey:
    """`key` as it is now, its write lock held to the end of the current transaction."""
    await adb.cypher_query(LOCK_KEY, {"keyId": key.key_id})
    await key.refresh()
    return key


async def revoke_key(key_id: str) -> bool:
    """Revoke a key from now on; False when it is unknown or revoked already."""

    async def work() -> bool:
        async with adb.write_transaction:
            key = await ApiKey.nodes.get_or_none(key_id=key_id)
            if key is None or (await _locked(key)).revoked_at is not None:
                return False
            key.revoked_at = datetime.now(UTC)
            await key.save()
            return True

    return await in_neomodel(bound_graph(), work())


async def withdraw_space_grants(graph: Graph, space: str) -> int:
    """Take `space` out of every key's grants (a forgotten space's name may be taken again by a
    new space, which the old keys must not reach); returns the keys changed. Safe to repeat."""

    async def work() -> int:
        changed = 0
        async with adb.write_transaction:
            for found in await ApiKey.nodes.order_by("key_id").all():
                if not any(grant.get("space") == space for grant in found.grants):
                    continue
                key = await _locked(found)
                kept = [grant for grant in key.grants if grant.get("space") != space]
                if len(kept) != len(key.grants):
                    key.grants = kept
                    await key.save()
                    changed += 1
        return changed

    return await in_neomodel(graph, work())


async def list_keys() -> list[dict[str, Any]]:

    async def read_all() -> list[ApiKey]:
        async with adb.read_transaction:
            found: list[ApiKey] = await ApiKey.nodes.order_by("key_id").all()
            return found

    keys = await in_neomodel(bound_graph(), read_all())
    return [
        {
            "keyId": k.key_id,
            "name": k.name,
            "grants": k.grants,
            "createdAt": k.created_at.isoformat() if k.created_at else None,
            "revoked": k.revoked_at is not None,
        }
        for k in keys
    ]


# A closed space keeps its old name until the keys that granted it have lost the grant.
GRANTS_TO_WITHDRAW: LiteralString = """
MATCH (s:Space)
WHERE s.grantsToWithdraw IS NOT NULL
RETURN s.id AS id, s.grantsToWithdraw AS space
"""

GRANTS_WITHDRAWN: LiteralString = """
MATCH (s:Space {id: $id})
WHERE s.grantsToWithdraw = $space
REMOVE s.grantsToWithdraw
"""


async def withdraw_forgotten_grants(graph: Graph) -> int:
    """Take every forgotten space out of the API keys that granted it; returns the spaces."""
    rows = await graph.read(GRANTS_TO_WITHDRAW)
    for row in rows:
        await withdraw_space_grants(graph, row["space"])
        await graph.write(GRANTS_WITHDRAWN, id=row["id"], space=row["space"])
    return len(rows)
