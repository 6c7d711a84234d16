"""Import JSONL memory items (the memory-types spec's shape) idempotently, with a report.

One line per item:

    {"type": "preferences", "key": "pref:writing:tone", "value_json": {"value": "exacting"},
     "confidence": 0.9, "status": "active", "updated_at": "2026-02-20T10:00:00Z",
     "source_message_id": "m-17", "authority": "user_stated"}

`type` may be the spec's name (`preferences`, `goals`, …) or Engram's (`pref`, `goal`, …);
`value_json` an object or a JSON string; facts add `subject`, `predicate` and `object` (entity
keys). Each line becomes an observation (its own text, the provenance) in one `import` episode
and a claim citing it; `status: retracted` is imported and then retracted; `superseded` lines are
history Engram cannot date, so they are reported and skipped. Re-importing writes nothing new:
every write carries an idempotency key derived from the line's content.

An import killed midway is finished by running it again: the lines it wrote are known, and its
episode (whose idempotency key is derived from the source's name and its items) is found open
again, takes the rest and is sealed — the same result as one uninterrupted import.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction

from graph.commands.audit import key_digest
from graph.commands.correct import CorrectInput, correct_in
from graph.commands.episodes import (
    ObservationInput,
    OpenEpisodeInput,
    SealEpisodeInput,
    open_episode_in,
    record_observations_in,
    seal_episode,
)
from graph.commands.references import EvidenceRef
from graph.commands.remember import RememberInput, remember_in, validate
from graph.commands.writing import WriteContext, begin_write
from graph.domain.actor import Actor
from graph.domain.errors import EngramError, ValidationFailed
from graph.domain.inputs import parse
from graph.domain.model import canonical_json
from graph.domain.vocabulary import (
    Authority,
    CorrectionKind,
    EpisodeKind,
    EpisodeStatus,
    ErrorCode,
    ObservationKind,
    Privacy,
    Role,
)
from graph.erasure.engine import content_fingerprint
from graph.store.db import Graph

SPEC_TYPES = {
    "profile": "profile",
    "preferences": "pref",
    "preference": "pref",
    "goals": "goal",
    "tasks": "task",
    "decisions": "decision",
    "entities": "entity",
    "events": "event",
    "cases": "case",
    "patterns": "pattern",
}

FORGOTTEN_TEXTS: LiteralString = """
MATCH (s:Space {name: $space})
WHERE s.erasedAt IS NULL
OPTIONAL MATCH (t:Tombstone {spaceId: s.id})
RETURN s.forgetSalt AS salt, collect(t.contentFingerprints) AS prints
"""

KNOWN_KEYS: LiteralString = """
MATCH (s:Space {name: $space})
WHERE s.erasedAt IS NULL
UNWIND $keys AS key
OPTIONAL MATCH (a:AuditEvent {spaceId: s.id, idempotencyKey: key.digest})
RETURN key.key AS key, a IS NOT NULL AS known
"""


@dataclass(frozen=True)
class Refusal:
    line: int
    code: str
    message: str


@dataclass
class ImportReport:
    lines: int = 0
    remembered: int = 0
    already_known: int = 0
    retracted: int = 0
    skipped: list[Refusal] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    episode_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "remembered": self.remembered,
            "alreadyKnown": self.already_known,
            "retracted": self.retracted,
            "skipped": [r.__dict__ for r in self.skipped],
            "refused": [r.__dict__ for r in self.refused],
            "episodeId": self.episode_id,
        }


@dataclass(frozen=True)
class _Item:
    line: int
    raw: str
    digest: str
    fields: dict[str, Any]
    observed_at: datetime | None
    role: Role
    retract: bool


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_line(number: int, raw: str) -> _Item | Refusal | None:
    """One JSONL line as an item to import, a refusal, or None for a blank line."""
    text = raw.strip()
    if not text:
        return None
    if not _is_unicode(text):  # bytes that are no UTF-8, read as surrogate escapes
        return Refusal(number, ErrorCode.VALIDATION.value, "not UTF-8 text")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as failure:
        return Refusal(number, ErrorCode.VALIDATION.value, f"not JSON: {failure.msg}")
    if not isinstance(data, dict):
        return Refusal(number, ErrorCode.VALIDATION.value, "a line is a JSON object")
    # One spelling per item, so a re-serialised copy of a line is recognised as the same item.
    text = canonical_json(data)
    if not _is_unicode(text):  # a `\ud800` escape: a lone surrogate is no Unicode text
        return Refusal(
            number, ErrorCode.VALIDATION.value, "a string holds a lone surrogate (not Unicode text)"
        )
    status = data.get("status", "active")
    if status == "superseded":
        return Refusal(number, "SKIPPED", "superseded history is not imported (no recorded time)")
    if status not in ("active", "retracted"):
        return Refusal(number, ErrorCode.VALIDATION.value, f"unknown status {status!r}")
    value: Any = data.get("value_json", data.get("value"))
    if isinstance(value, str):
        with suppress(json.JSONDecodeError):  # else a literal string value (facts)
            value = json.loads(value)
    kind = data.get("type")
    fields: dict[str, Any] = {
        "type": SPEC_TYPES.get(kind, kind) if isinstance(kind, str) else kind,
        "key": data.get("key"),
        "value": value,
        "confidence": data.get("confidence", 0.9),
        "importance": data.get("importance", 0.5),
        "privacy": data.get("privacy", 1),
        "idempotency_key": f"import:claim:{_digest(text)}",
    }
    for name in ("subject", "object"):
        if data.get(name) is not None:
            fields[name] = {"key": data[name]}
    if data.get("predicate") is not None:
        fields["predicate"] = data["predicate"]
    for name in ("valid_from", "valid_to"):
        if data.get(name) is not None:
            fields[name] = data[name]
    authority = data.get("authority", Authority.IMPORTED.value)
    role = Role.USER if authority == Authority.USER_STATED.value else Role.DOCUMENT
    when = data.get("observed_at") or data.get("updated_at")
    try:
        observed_at = datetime.fromisoformat(when) if isinstance(when, str) else None
        if observed_at is not None and observed_at.tzinfo is None:
            raise ValueError("no UTC offset")
        draft = parse(
            RememberInput,
            {**fields, "evidence": [{"observation_id": "pending", "authority": authority}]},
        )
        validate(draft)
    except ValueError as failure:
        return Refusal(number, ErrorCode.VALIDATION.value, f"updated_at: {failure}")
    except EngramError as failure:
        return Refusal(number, failure.code.value, failure.message)
    fields["authority"] = authority
    return _Item(number, text, _digest(text), fields, observed_at, role, status == "retracted")


async def import_items(
    graph: Graph,
    space: str,
    lines: Sequence[str],
    *,
    source: str,
    actor: Actor,
    batch_size: int = 200,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Import JSONL `lines` into `space`; refused lines are reported, never half-written."""
    report = ImportReport(lines=len(lines))
    items: list[_Item] = []
    for number, raw in enumerate(lines, start=1):
        parsed = parse_line(number, raw)
        if isinstance(parsed, Refusal):
            (report.skipped if parsed.code == "SKIPPED" else report.refused).append(parsed)
        elif parsed is not None:
            items.append(parsed)
    episode = _LazyEpisode(source, _import_key(source, items))
    items = await _unforgotten(graph, space, items, report)
    done = 0
    for start in range(0, len(items), batch_size):
        batch = items[start : start + batch_size]
        known = await _known(
            graph, space, [f"import:claim:{i.digest}" for i in batch], actor.tier_in(space)
        )
        report.already_known += sum(known)
        fresh = [item for item, was_known in zip(batch, known, strict=True) if not was_known]
        if fresh:
            await _import_batch(graph, space, fresh, episode, actor, report)
        done += len(batch)
        if progress is not None:
            progress(done)
    if episode.id is not None:
        await seal_episode(graph, space, SealEpisodeInput(episode_id=episode.id), actor=actor)
    report.episode_id = episode.id
    report.refused.sort(key=lambda refusal: refusal.line)
    return report


def _import_key(source: str, items: list[_Item]) -> str:
    """The idempotency key of the episode of importing these items from `source`."""
    return "import:episode:" + _digest("\n".join([source, *(item.digest for item in items)]))


@dataclass
class _LazyEpisode:
    """The import's episode, opened by the first transaction that writes something (so an
    import that only meets refusals and known lines leaves nothing behind). An earlier run of
    the same import that was killed before it sealed its episode left it open: it is reused."""

    source: str
    idempotency_key: str
    id: str | None = None

    async def ensure(self, ctx: WriteContext) -> str:
        if self.id is not None:
            return self.id
        opening = OpenEpisodeInput(
            title=f"import of {self.source}"[:500],
            kind=EpisodeKind.IMPORT,
            extractor_version="engram-import/1",
            idempotency_key=self.idempotency_key,
        )
        opened = await open_episode_in(ctx, opening)
        if opened.status is not EpisodeStatus.OPEN:
            # That import finished; what is new to it now (say, a line whose entity exists
            # since) goes into an episode of its own.
            opened = await open_episode_in(
                ctx, opening.model_copy(update={"idempotency_key": None})
            )
        return opened.id


async def _unforgotten(
    graph: Graph, space: str, items: list[_Item], report: ImportReport
) -> list[_Item]:
    """Items whose text a forget erased in this space are refused, never imported again."""
    rows = await graph.read(FORGOTTEN_TEXTS, space=space)
    if not rows or rows[0]["salt"] is None:
        return items
    forgotten = {f for prints in rows[0]["prints"] for f in prints or []}
    kept = []
    for item in items:
        if content_fingerprint(rows[0]["salt"], item.raw) in forgotten:
            report.refused.append(
                Refusal(item.line, ErrorCode.FORGOTTEN.value, "this item was forgotten here")
            )
        else:
            kept.append(item)
    return kept


async def _known(graph: Graph, space: str, keys: list[str], tier: Privacy) -> list[bool]:
    digests = [{"key": key, "digest": key_digest(key, tier)} for key in keys]
    rows = await graph.read(KNOWN_KEYS, space=space, keys=digests)
    if not rows:
        raise ValidationFailed(f"no space named {space!r}", field="space")
    known = {row["key"]: row["known"] for row in rows}
    return [bool(known.get(key)) for key in keys]


async def _import_batch(
    graph: Graph,
    space: str,
    batch: list[_Item],
    episode: _LazyEpisode,
    actor: Actor,
    report: ImportReport,
) -> None:
    """Each line's observation and claim (and retraction) are written together or not at all:
    the whole batch in one transaction, or, when something in it is refused, line by line."""
    try:
        episode.id = await graph.write_tx(_writer(space, batch, episode, actor))
        report.remembered += len(batch)
        report.retracted += sum(item.retract for item in batch)
        return
    except EngramError:
        pass
    for item in batch:
        try:
            episode.id = await graph.write_tx(_writer(space, [item], episode, actor))
        except EngramError as failure:
            report.refused.append(Refusal(item.line, failure.code.value, failure.message))
            continue
        report.remembered += 1
        report.retracted += item.retract


def _writer(
    space: str, items: list[_Item], episode: _LazyEpisode, actor: Actor
) -> Callable[[AsyncManagedTransaction], Awaitable[str]]:
    async def work(tx: AsyncManagedTransaction) -> str:
        ctx = await begin_write(tx, space, actor)
        episode_id = await episode.ensure(ctx)
        observations = await record_observations_in(
            ctx,
            [
                ObservationInput(
                    episode_id=episode_id,
                    content=item.raw,
                    kind=ObservationKind.DOCUMENT_EXCERPT,
                    role=item.role,
                    observed_at=item.observed_at,
                    # The line is the claim's evidence: exactly as private as the claim.
                    privacy=Privacy(int(item.fields["privacy"])),
                    idempotency_key=f"import:observation:{item.digest}",
                )
                for item in items
            ],
        )
        inputs = []
        for item, observation in zip(items, observations, strict=True):
            fields = {k: v for k, v in item.fields.items() if k != "authority"}
            evidence = [{"observation_id": observation.id, "authority": item.fields["authority"]}]
            inputs.append(parse(RememberInput, {**fields, "evidence": evidence}))
        claims = await remember_in(ctx, inputs)
        for item, claim, observation in zip(items, claims, observations, strict=True):
            if item.retract:
                await correct_in(
                    ctx,
                    CorrectInput(
                        claim_id=claim.id,
                        kind=CorrectionKind.RETRACT,
                        reason="imported with status retracted",
                        evidence=[EvidenceRef(observation_id=observation.id)],
                        idempotency_key=f"import:retract:{item.digest}",
                    ),
                )
        return episode_id

    return work
