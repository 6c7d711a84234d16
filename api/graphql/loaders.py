"""DataLoaders: nested fields of a page load in one `UNWIND $ids` query per kind and view."""

from __future__ import annotations

from strawberry.dataloader import DataLoader

from api.graphql.request_context import EngramContext
from graph.domain.model import Entity, EvidenceLink
from graph.memory import View


def evidence_loader(context: EngramContext, view: View) -> DataLoader[str, list[EvidenceLink]]:
    async def load(ids: list[str]) -> list[list[EvidenceLink]]:
        return await context.memory.reads.evidence(view, ids)

    return context.loader("evidence", view, load)


def entity_loader(context: EngramContext, view: View) -> DataLoader[str, Entity | None]:
    async def load(ids: list[str]) -> list[Entity | None]:
        return await context.memory.reads.entities(view, ids)

    return context.loader("entity", view, load)
