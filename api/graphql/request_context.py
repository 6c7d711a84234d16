"""What every resolver gets in `info.context`: the memory, who asks, and per-request loaders."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from strawberry.dataloader import DataLoader

from graph.domain.actor import Actor
from graph.memory import Memory, View

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass
class EngramContext:
    request: Request | None
    response: Response | None
    memory: Memory
    principal: Actor
    loaders: dict[tuple[str, View], DataLoader[Any, Any]] = field(default_factory=dict)

    @property
    def actor(self) -> Actor:
        """Who acts in this request's mutations (the key's grants, tier and legal grant)."""
        return self.principal

    async def view(
        self, space: str, as_of: datetime | None = None, known_at: datetime | None = None
    ) -> View:
        """A view of `space` at the caller's tier; FORBIDDEN when the key may not read it."""
        return await self.memory.reads.view(self.principal, space, as_of, known_at)

    async def viewed(
        self,
        space: str,
        as_of: datetime | None,
        known_at: datetime | None,
        read: Callable[[View], Awaitable[V]],
    ) -> tuple[View, V]:
        """`read` in a view of `space` at the caller's tier, and that view (the view's own query
        and the read wait side by side once the space has been read in this process)."""
        return await self.memory.reads.viewed(self.principal, space, as_of, known_at, read)

    def loader(
        self, name: str, view: View, load: Callable[[list[K]], Awaitable[list[V]]]
    ) -> DataLoader[K, V]:
        """One DataLoader per (kind, view) and request: a page's nested fields cost one query."""
        key = (name, view)
        if key not in self.loaders:
            self.loaders[key] = DataLoader(load_fn=load)
        loader: DataLoader[K, V] = self.loaders[key]
        return loader
