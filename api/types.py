"""Strawberry types that mirror graph/'s domain records."""

from __future__ import annotations

from datetime import datetime

import strawberry

from api.errors import UserError
from graph import spaces


@strawberry.type(description="A memory space: the unit of tenancy; nothing crosses spaces.")
class Space:
    id: strawberry.ID
    name: str
    description: str
    recorded_at: datetime = strawberry.field(description="When Engram created the space.")

    @staticmethod
    def of(space: spaces.Space) -> Space:
        return Space(
            id=strawberry.ID(space.id),
            name=space.name,
            description=space.description,
            recorded_at=space.recorded_at,
        )


@strawberry.type
class CreateSpacePayload:
    space: Space | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)
