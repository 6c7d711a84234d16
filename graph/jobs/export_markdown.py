"""The Markdown memory view: what one reader's view of a space holds, as a document to read.

Sections, each left out when empty: Profile, Preferences, Facts, Goals (active), Open tasks,
Decisions, Events, Cases, Patterns, People and things (entities), Recent episodes. Every claim
shows its valid interval and the quotes of its visible evidence; facts are written with the
names their entities have as of the view. The same text for the same view, line for line.

    print(markdown(await gather_memory(graph, view)))
    # Memory of alice
    …
    ## Facts

    - Alice works at Acme Global — valid 2020-01-01 – 2023-06-30
      > “alice works at acme” — user_stated, 2020-01-01
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from graph.domain import memory_types as mt
from graph.domain.model import Claim
from graph.domain.vocabulary import ClaimStatus, EvidenceKind, MemoryType, Privacy
from graph.domain.wording import interval, quote, supported_first, when
from graph.jobs.gathering import GatheredMemory

OBSERVATIONS_PER_EPISODE = 3

_EVIDENCE_WORDS = {
    EvidenceKind.SUPPORTED_BY: "",
    EvidenceKind.CONTRADICTED_BY: "contradicted by ",
    EvidenceKind.CORRECTED_BY: "corrected by ",
}


def _marks(claim: Claim) -> str:
    marks = ""
    if claim.status is ClaimStatus.DISPUTED:
        marks += " (disputed)"
    if claim.privacy is not Privacy.NORMAL:
        marks += f" [{claim.privacy.name.lower()}]"
    return marks


def _summary(claim: Claim) -> str:
    value: Any = claim.value
    if claim.type is MemoryType.PREF and isinstance(value, dict):
        # Scope and name repeat the key.
        value = {k: v for k, v in value.items() if k not in ("scope", "name")}
        if list(value) == ["value"]:
            value = value["value"]
    return " ".join(mt.summarize(value).split())


class _Document:
    def __init__(self, memory: GatheredMemory) -> None:
        self.memory = memory
        self.lines: list[str] = []

    def section(self, title: str, items: list[str]) -> None:
        if items:
            self.lines += ["", f"## {title}", "", *items]

    def evidence(self, claim: Claim) -> list[str]:
        lines = []
        for link in supported_first(e.link for e in self.memory.evidence.get(claim.id, [])):
            words = _EVIDENCE_WORDS[link.kind]
            source = quote(link.text) if link.text is not None else f"<{link.locator or 'file'}>"
            seen = f", {when(link.observed_at)}" if link.observed_at else ""
            lines.append(f"  > {words}{source} — {link.authority.value}{seen}")
        return lines

    def claims(self, chosen: list[Claim], headline: Callable[[Claim], str]) -> list[str]:
        lines = []
        for claim in chosen:
            lines.append(f"- {headline(claim)}{_marks(claim)}{interval(claim)}")
            lines += self.evidence(claim)
        return lines

    def name(self, entity_id: str | None) -> str:
        entity = self.memory.entities.get(entity_id or "")
        return entity.name if entity is not None else "(unknown)"

    def fact(self, claim: Claim) -> str:
        return mt.claim_text(
            claim.type,
            claim.key,
            claim.value,
            subject=self.name(claim.subject_id),
            predicate=claim.predicate,
            obj=self.name(claim.object_id) if claim.object_id is not None else None,
        )


def _of_type(memory: GatheredMemory, memory_type: MemoryType) -> list[Claim]:
    return sorted(
        (c for c in memory.claims if c.type is memory_type and memory.nameable(c)),
        key=lambda c: (c.key, c.valid_from or datetime.min.replace(tzinfo=UTC), c.privacy),
    )


def _status(claim: Claim) -> str | None:
    return claim.value.get("status") if isinstance(claim.value, dict) else None


def markdown(memory: GatheredMemory) -> str:
    """The memory as a Markdown document a person reads."""
    view = memory.view
    doc = _Document(memory)
    doc.lines += [
        f"# Memory of {view.space}",
        "",
        f"As of {view.as_of.isoformat()}, as known at {view.known_at.isoformat()}; what a "
        f"reader at tier {view.max_privacy.name.lower()} sees.",
    ]

    def keyed(claim: Claim) -> str:
        return f"`{claim.key}`: {_summary(claim)}".rstrip()

    doc.section("Profile", doc.claims(_of_type(memory, MemoryType.PROFILE), keyed))
    doc.section("Preferences", doc.claims(_of_type(memory, MemoryType.PREF), keyed))
    facts = sorted(
        _of_type(memory, MemoryType.FACT),
        key=lambda c: (doc.fact(c), c.valid_from or datetime.min.replace(tzinfo=UTC), c.key),
    )
    doc.section("Facts", doc.claims(facts, doc.fact))
    goals = [c for c in _of_type(memory, MemoryType.GOAL) if _status(c) in (None, "active")]
    doc.section("Goals", doc.claims(goals, keyed))
    tasks = [c for c in _of_type(memory, MemoryType.TASK) if _status(c) in mt.OPEN_TASK_STATUSES]
    doc.section("Open tasks", doc.claims(tasks, keyed))
    for title, memory_type in (
        ("Decisions", MemoryType.DECISION),
        ("Events", MemoryType.EVENT),
        ("Cases", MemoryType.CASE),
        ("Patterns", MemoryType.PATTERN),
    ):
        doc.section(title, doc.claims(_of_type(memory, memory_type), keyed))

    def entity(claim: Claim) -> str:
        value = claim.value if isinstance(claim.value, dict) else {}
        kind = claim.key.split(":", 2)[1]
        aliases = [a for a in value.get("aliases", []) if isinstance(a, str)]
        also = f"; also known as {', '.join(aliases)}" if aliases else ""
        return f"{value.get('name') or claim.key.split(':', 2)[2]} ({kind}, `{claim.key}`){also}"

    entities = sorted(_of_type(memory, MemoryType.ENTITY), key=lambda c: (entity(c), c.key))
    doc.section("People and things", doc.claims(entities, entity))
    episodes = []
    for episode in memory.episodes:
        count = len(episode.observations)
        noun = "observation" if count == 1 else "observations"
        title = " ".join(episode.title.split()) or "(untitled)"
        episodes.append(
            f"- {when(episode.started_at)} — {title} ({episode.kind.value}, {count} {noun})"
        )
        for observation in episode.observations[-OBSERVATIONS_PER_EPISODE:]:
            episodes.append(
                f"  > {quote(observation.content)} — {observation.role.value}, "
                f"{when(observation.observed_at)}"
            )
    doc.section("Recent episodes", episodes)
    return "\n".join(doc.lines) + "\n"
