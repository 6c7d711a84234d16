"""Forgetting, as an actor — `memory.forgetting` of `graph.memory.Memory`: erasing what a
selector selects (with everything derived from it), the legal holds that stop it, retention by
policy, and the purges a forget leaves for after its commit.

What is forgotten never comes back: not in a read, a search, an export, a backup or a restore.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graph.domain.actor import Actor
from graph.domain.inputs import as_input
from graph.domain.vocabulary import MemoryType
from graph.erasure import forget as erasing
from graph.erasure import holds
from graph.erasure.purge_outbox import purge_blobs, purge_spaces
from graph.jobs import retention
from graph.store.db import Graph
from graph.store.settings import Settings


class Forgetting:
    """Erasure, legal holds and retention, each checked against the actor's grants."""

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    async def forget(
        self, actor: Actor, space: str, request: erasing.ForgetInput | Mapping[str, Any]
    ) -> erasing.ForgetReceipt:
        """Erase what the selector selects, in every revision; it never comes back."""
        actor.check_write(space)
        selected = as_input(erasing.ForgetInput, request)
        return await erasing.forget(
            self.graph, space, selected, actor=actor, blob_root=self.settings.blobs
        )

    async def set_legal_hold(
        self, actor: Actor, space: str, hold: holds.HoldInput | Mapping[str, Any]
    ) -> str:
        """Hold what the selector selects against forgetting and retention (the legal grant)."""
        actor.check_write(space)
        actor.check_legal(space)
        placed = as_input(holds.HoldInput, hold)
        return await holds.set_legal_hold(self.graph, space, placed, actor=actor)

    async def release_legal_hold(self, actor: Actor, space: str, hold_id: str, reason: str) -> bool:
        actor.check_write(space)
        actor.check_legal(space)
        return await holds.release_legal_hold(
            self.graph, space, hold_id, reason=reason, actor=actor
        )

    async def run_retention(
        self,
        actor: Actor,
        space_names: list[str],
        *,
        policies: dict[MemoryType, retention.Policy] | None = None,
        dry_run: bool = False,
    ) -> list[retention.RetentionReport]:
        """Archive and purge per the retention policies, space by space."""
        return await retention.run_retention_everywhere(
            self.graph,
            space_names,
            blob_root=self.settings.blobs,
            policies=policies,
            dry_run=dry_run,
            actor=actor,
        )

    async def drain_purges(self) -> None:
        """Finish what forgets left for after their commit (blob files, forgotten spaces)."""
        await purge_blobs(self.graph, self.settings.blobs)
        await purge_spaces(self.graph)
