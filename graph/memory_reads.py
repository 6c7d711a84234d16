"""What a caller reads, always through a `View`: one space, at one valid time and one known
time, at the tier of the actor it was opened for — `memory.reads` of `graph.memory.Memory`.

Every read here answers through `graph.reads.visibility`'s one predicate: what the view may not
show is neither returned nor counted nor named in an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import TypeVar, Unpack

from graph.commands import predicate_rules, spaces
from graph.commands.spaces import Space
from graph.domain.actor import Actor
from graph.domain.errors import NotFound, ValidationFailed
from graph.domain.model import Claim, Entity, Episode, EvidenceLink
from graph.domain.read_records import (
    DEFAULT_BUDGET,
    DEFAULT_PAGE,
    ChangeOptions,
    Changes,
    ClaimFilter,
    ClaimPage,
    ContextSnapshot,
    Explanation,
    Hit,
    MessageHit,
    MessageOptions,
    Neighbourhood,
    Timeline,
)
from graph.domain.timeutil import utc_now
from graph.domain.vocabulary import Direction
from graph.jobs import export as exporting
from graph.jobs.export import ExportFormat
from graph.meaning.embeddings import Embedder
from graph.reads import changes, listing, resources, search, snapshot, traverse
from graph.reads.messages import messages as recall
from graph.reads.visibility import View
from graph.store.db import Graph

T = TypeVar("T")

EntityRef = str | Mapping[str, str | None]
"""An entity by id, or a reference naming exactly one of its id, key or current name."""


class Reads:
    """Views, and what they show: entities, claims, walks, paths, search, messages, context."""

    def __init__(self, graph: Graph, embedder: Embedder) -> None:
        self.graph = graph
        self.embedder = embedder
        self._space_ids: dict[str, str] = {}
        """The id of each space a view was opened on in this process, by name."""

    async def view(
        self,
        actor: Actor,
        space: str,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> View:
        """A view of `space` at the actor's tier; FORBIDDEN when it may not read the space."""
        tier = actor.tier_in(space)
        view = await View.open(self.graph, space, as_of=as_of, known_at=known_at, max_privacy=tier)
        self._space_ids[space] = view.space_id
        return view

    async def viewed(
        self,
        actor: Actor,
        space: str,
        as_of: datetime | None,
        known_at: datetime | None,
        read: Callable[[View], Awaitable[T]],
    ) -> tuple[View, T]:
        """`read` in a view of `space` (as `view` opens it), and that view; once a view of the
        space was opened in this process, the read waits beside the view's own query
        (`View.open_beside`) instead of after it."""
        tier = actor.tier_in(space)
        space_id = self._space_ids.get(space)
        if space_id is None:
            view = await self.view(actor, space, as_of, known_at)
            return view, await read(view)
        view, found = await View.open_beside(
            self.graph, space, space_id, read, as_of=as_of, known_at=known_at, max_privacy=tier
        )
        self._space_ids[space] = view.space_id
        return view, found

    async def written_view(self, actor: Actor, space: str, written: Sequence[Claim]) -> View:
        """The view a write's claims are shown in: now, at the actor's tier, known at least as
        late as the write — built from the claims themselves, without another query."""
        if not written:
            return await self.view(actor, space)
        now = utc_now()
        return View(
            written[0].space_id,
            space,
            now,
            max(now, *(claim.recorded_at for claim in written)),
            actor.tier_in(space),
        )

    async def spaces(self, actor: Actor) -> list[Space]:
        """The spaces the actor may read, by name."""
        return [s for s in await spaces.list_spaces(self.graph) if actor.sees_space(s.name)]

    async def entity(
        self, view: View, *, entity_id: str | None = None, key: str | None = None
    ) -> Entity:
        if (entity_id is None) == (key is None):
            raise ValidationFailed("give exactly one of id or key", field="id")
        return await resources.get_entity(self.graph, view, entity_id=entity_id, key=key)

    async def find_entity(self, view: View, ref: Mapping[str, str | None]) -> Entity:
        """The entity a reference names by exactly one of id, key or name (current in the
        view), a name perhaps with a kind."""
        given = resources.reference(ref)
        return await resources.find_entity(
            self.graph,
            view,
            entity_id=given.get("id"),
            key=given.get("key"),
            name=given.get("name"),
            kind=ref.get("kind") if "name" in given else None,
        )

    async def entities(self, view: View, ids: list[str]) -> list[Entity | None]:
        return await resources.entities_by_ids(self.graph, view, ids)

    async def evidence(self, view: View, claim_ids: list[str]) -> list[list[EvidenceLink]]:
        return await listing.evidence_of(self.graph, view, claim_ids)

    async def changes(
        self, view: View, start: datetime, end: datetime, **options: Unpack[ChangeOptions]
    ) -> Changes:
        """What began, ended, was corrected or forgotten in `[start, end)` (`axis`, `about`)."""
        if options.get("about") is not None:
            options["about"] = await self._entity_id(view, options["about"])
        return await changes.changes(self.graph, view, start, end, **options)

    async def claims(
        self,
        view: View,
        claim_filter: ClaimFilter,
        *,
        first: int = DEFAULT_PAGE,
        after: str | None = None,
    ) -> ClaimPage:
        return await listing.list_claims(self.graph, view, claim_filter, first=first, after=after)

    async def claim(self, view: View, claim_id: str) -> Claim:
        """One claim revision by id; NOT_FOUND when the view does not show it."""
        return await resources.get_claim(self.graph, view, claim_id)

    async def claims_by_key(self, view: View, key: str) -> list[Claim]:
        """The revisions of `key` the view shows, newest revision first."""
        return await resources.claims_by_key(self.graph, view, key)

    async def claim_history(self, view: View, key: str) -> list[Claim]:
        return await resources.claim_history(self.graph, view, key)

    async def episode(self, view: View, episode_id: str) -> Episode:
        return await resources.get_episode(self.graph, view, episode_id)

    async def timeline(
        self, view: View, start: datetime, end: datetime, *, first: int = 100
    ) -> Timeline:
        return await listing.timeline(self.graph, view, start, end, first=first)

    async def related(
        self,
        view: View,
        entity: EntityRef,
        *,
        hops: int = 1,
        relation_types: list[str] | None = None,
        direction: Direction = Direction.BOTH,
        first: int = 50,
    ) -> Neighbourhood:
        """The visible neighbourhood of an entity, 1–4 hops: given by id (nothing when the view
        does not show it), or by a reference by id, key or name (`NOT_FOUND` when it does not)."""
        traverse.check_related(hops, relation_types, first)
        # A reference by id or key costs no lookup of its own: the walk starts from it (or its
        # survivor) when the view shows it, and answers nothing when it does not.
        by, start = await self._start(view, entity)
        found = await traverse.related(
            self.graph,
            view,
            start,
            hops=hops,
            relation_types=relation_types,
            direction=direction,
            first=first,
            by=by,
        )
        if not isinstance(entity, str) and not found.distances:
            raise NotFound(f"no visible entity {start!r}", field=by)
        return found

    async def explain_relation(
        self, view: View, source: EntityRef, target: EntityRef, *, max_hops: int = 3, first: int = 5
    ) -> Explanation:
        """The shortest visible paths between two entities, with evidence on every hop."""
        traverse.check_explain(max_hops, first)
        # Ids and keys cost no lookups (the paths' query starts from them); names are looked up,
        # both at once, the source's failure reported first whichever answered first.
        ends: list[tuple[resources.By, str]] = []
        for end in await asyncio.gather(
            self._start(view, source), self._start(view, target), return_exceptions=True
        ):
            if isinstance(end, BaseException):
                raise end
            ends.append(end)
        [(from_by, from_start), (to_by, to_start)] = ends
        return await traverse.explain_relation(
            self.graph,
            view,
            from_start,
            to_start,
            max_hops=max_hops,
            first=first,
            by=(from_by, to_by),
            refuse_unseen=not isinstance(source, str) or not isinstance(target, str),
        )

    async def _start(self, view: View, entity: EntityRef) -> tuple[resources.By, str]:
        """Where a walk or a path starts: an id or key as given (the query finds it), a name
        looked up first."""
        if isinstance(entity, str):
            return "id", entity
        given = resources.reference(entity)
        if "name" not in given:
            by: resources.By = "id" if "id" in given else "key"
            return by, given[by]
        named = await resources.find_entity(
            self.graph, view, name=given["name"], kind=entity.get("kind")
        )
        return "id", named.id

    async def _entity_id(self, view: View, entity: EntityRef) -> str:
        return entity if isinstance(entity, str) else (await self.find_entity(view, entity)).id

    async def search(
        self, view: View, query: str, **options: Unpack[search.SearchOptions]
    ) -> list[Hit]:
        return await search.search(self.graph, view, query, self.embedder, **options)

    async def messages(self, view: View, **options: Unpack[MessageOptions]) -> list[MessageHit]:
        """What was said: messages by words and meaning, in a window, by role or episode."""
        return await recall(self.graph, view, self.embedder, **options)

    async def export(self, view: View, export_format: ExportFormat) -> str:
        """The view as JSONL in the import format, or as a Markdown document to read."""
        return await exporting.export_space(self.graph, view, export_format)

    async def context(
        self, view: View, *, budget_bytes: int = DEFAULT_BUDGET, about: EntityRef | None = None
    ) -> ContextSnapshot:
        """The prompt snapshot under `budget_bytes`; with `about`, that entity's current facts."""
        subject = None
        if isinstance(about, str):
            subject = await resources.get_entity(self.graph, view, entity_id=about)
        elif about is not None:
            subject = await self.find_entity(view, about)
        return await snapshot.context_snapshot(
            self.graph, view, budget_bytes=budget_bytes, about=subject
        )

    async def predicate_rules(
        self, view: View, *, every: bool = False
    ) -> list[predicate_rules.PredicateRule]:
        """The defaults, and the rules the space declared for predicates the view has facts of
        (`every`: all of them, for a key with the rules grant)."""
        return await predicate_rules.predicate_rules(self.graph, view, every=every)
