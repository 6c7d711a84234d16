"""DataLoaders: nested fields of a page load in one `UNWIND $ids` query per kind and view."""

from __future__ import annotations

from strawberry.dataloader import DataLoader

from api.context import EngramContext
from graph import listing, reads
from graph.model import Entity, EvidenceLink
from graph.visibility import View


def evidence_loader(context: EngramContext, view: View) -> DataLoader[str, list[EvidenceLink]]:
    async def load(ids: list[str]) -> list[list[EvidenceLink]]:
        return await listing.evidence_of(context.graph, view, ids)

    return context.loader("evidence", view, load)


def entity_loader(context: EngramContext, view: View) -> DataLoader[str, Entity | None]:
    async def load(ids: list[str]) -> list[Entity | None]:
        return await reads.entities_by_ids(context.graph, view, ids)

    return context.loader("entity", view, load)
