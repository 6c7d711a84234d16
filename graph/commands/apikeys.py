"""API keys: each grants read, or read and write, on named spaces up to a privacy tier.

A key is `egk_<id>_<secret>`; Neo4j keeps the id, the SHA-256 of the secret (never the secret)
and the grants. Keys are administrative records outside the bi-temporal memory, kept with
neomodel on the driver the app's lifespan shares with it.

    >>> issued = await create_key("agent-7", [Grant("alice", Privacy.PRIVATE, write=True)])
    >>> issued.secret            # shown once
    'egk_3f9a0c1b2d4e_…'
    >>> actor = await authenticate(issued.secret)
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neomodel import AsyncStructuredNode, DateTimeProperty, JSONProperty, StringProperty

from graph.commands.spaces import SPACE_NAME
from graph.domain.actor import Actor, Grant
from graph.domain.errors import ValidationFailed
from graph.domain.model import Privacy

_KEY = re.compile(r"^egk_(?P<id>[0-9a-f]{12})_(?P<secret>[A-Za-z0-9_-]{20,100})$")


class ApiKey(AsyncStructuredNode):
    __label__ = "ApiKey"
    key_id = StringProperty(required=True, db_property="keyId")
    secret_sha256 = StringProperty(required=True, db_property="secretSha256")
    name = StringProperty(default="", db_property="name")
    grants = JSONProperty(required=True, db_property="grants")
    created_at = DateTimeProperty(default_now=True, db_property="createdAt")
    revoked_at = DateTimeProperty(db_property="revokedAt")


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
        {"space": g.space, "tier": g.tier.name.lower(), "write": g.write, "legal": g.legal}
        for g in grants
    ]


def _grants(raw: list[dict[str, Any]]) -> dict[str, Grant]:
    return {
        g["space"]: Grant(
            g["space"],
            Privacy[str(g["tier"]).upper()],
            bool(g["write"]),
            bool(g.get("legal", False)),
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
    await ApiKey(
        key_id=key_id, secret_sha256=_digest(secret), name=name, grants=_grants_json(grants)
    ).save()
    return IssuedKey(key_id, f"egk_{key_id}_{secret}", grants)


async def authenticate(presented: str) -> Actor | None:
    """The actor of a presented key, or None if it is malformed, unknown or revoked."""
    match = _KEY.match(presented.strip())
    if match is None:
        return None
    key = await ApiKey.nodes.get_or_none(key_id=match["id"])
    if key is None or key.revoked_at is not None:
        return None
    if not hmac.compare_digest(key.secret_sha256, _digest(match["secret"])):
        return None
    return Actor(f"key:{key.key_id}:{key.name}", _grants(key.grants))


async def revoke_key(key_id: str) -> bool:
    key = await ApiKey.nodes.get_or_none(key_id=key_id)
    if key is None or key.revoked_at is not None:
        return False
    key.revoked_at = datetime.now(UTC)
    await key.save()
    return True


async def list_keys() -> list[dict[str, Any]]:
    keys = await ApiKey.nodes.order_by("key_id").all()
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
