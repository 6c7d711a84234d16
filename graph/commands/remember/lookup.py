"""Looking a `remember` batch up: everything it refers to, read in one statement once the
space's clock is held — the tick's own (`Lookup.reading`, once this process has ticked the
space), or the first after it (`GATHER`).

One statement asks at once what the batch's steps would otherwise ask one after the other:
the earlier results of its idempotency keys (`audit.FIND_IDEMPOTENT`), every entity its
references may mean and the session episodes its evidence texts may go to
(`entity_refs.ENTITIES_AND_SESSIONS_FOUND`), the observations and artifacts it cites
(`evidence.FIND_OBSERVATIONS`, `FIND_ARTIFACTS`), and the state of every key it names before
its entities are resolved (`revisions.LOAD_KEY_STATES`): the keys it gives, the keys of the
entities it names by kind and name, and the fact keys those make. A key only known once its
entities are resolved (a subject given by id, or by a name without a kind that an entity of
another key bears) is read when the batch is planned. A single write's round trips were most
of its time: five became two (the tick with the lookup, then the write), and the commit.

    lookup = Lookup(items, types)
    await run_command(graph, space, actor, work, reading=lookup.reading)   # in `work`:
    found = await lookup.found(ctx)
    found.replays, found.candidates, found.key_states
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from graph.commands.audit import FIND_IDEMPOTENT, Replay, replay_keys, replays_of, request_hash
from graph.commands.entity_refs import ENTITIES_AND_SESSIONS_FOUND, EntityLookup
from graph.commands.evidence import FIND_ARTIFACTS, FIND_OBSERVATIONS, cited_ids
from graph.commands.inline_evidence import session_keys_of
from graph.commands.predicate_rules import PredicateRules, declared_rules
from graph.commands.references import EntityRef
from graph.commands.remember.input import RememberInput, fact_key
from graph.commands.revisions import LOAD_KEY_STATES, KeyState, key_state
from graph.commands.writing import ReadWithTick, WriteContext
from graph.domain.errors import EngramError
from graph.domain.vocabulary import MemoryType


def _collected(query: LiteralString, columns: LiteralString, name: LiteralString) -> LiteralString:
    """`query`'s rows as one list `name` of maps of its `columns` (one row even when it finds
    nothing, so the parts of a statement never cancel each other). After a tick (`ticked`: the
    space id it found), the part runs only in the space it guessed (`$spaceId`), and only once
    the tick holds it: taking `ticked` in makes the part depend on the tick, so no plan can
    read before it."""
    return (
        "CALL (ticked) {\n  WITH ticked WHERE ticked = $spaceId\n  CALL () {"
        + query
        + "}\n  RETURN collect({"
        + columns
        + "}) AS "
        + name
        + "\n}\n"
    )


PARTS: LiteralString = (
    _collected(
        FIND_IDEMPOTENT,
        "key: key, action: action, requestHash: requestHash, resultJson: resultJson",
        "replays",
    )
    + _collected(
        ENTITIES_AND_SESSIONS_FOUND,
        "by: by, ref: ref, id: id, key: key, canonical: canonical, name: name, "
        "privacy: privacy, episode: episode",
        "entities",
    )
    + _collected(
        FIND_OBSERVATIONS,
        "id: id, role: role, observedAt: observedAt, erasedAt: erasedAt, episodeId: episodeId, "
        "text: text, locator: locator, privacy: privacy",
        "observations",
    )
    + _collected(
        FIND_ARTIFACTS,
        "id: id, observedAt: observedAt, erasedAt: erasedAt, episodeId: episodeId, text: text, "
        "locator: locator, privacy: privacy",
        "artifacts",
    )
    + _collected(
        LOAD_KEY_STATES,
        "key: key, heads: heads, current: current, entityId: entityId, "
        "entityPrivacy: entityPrivacy",
        "keyStates",
    )
)
"""What a batch refers to, each part binding one list (see the module's docstring)."""

COLUMNS: LiteralString = (
    "$sessionKeys AS sessionKeys, replays, entities, observations, artifacts, keyStates"
)

GATHER: LiteralString = "WITH $spaceId AS ticked\n" + PARTS + "RETURN " + COLUMNS + "\n"
"""Everything a batch refers to, in one row of lists."""


@dataclass
class Found:
    """What `GATHER` found for a batch."""

    hashes: dict[str, tuple[str, str]]
    """Each idempotency key's action and request hash."""
    replays: dict[str, Replay]
    candidates: dict[EntityRef, dict[str, dict[str, Any]]]
    """Every visible entity each reference may mean, by key."""
    sessions: dict[str, dict[str, Any] | None]
    """The open session episode of each session key the evidence texts need (None: none)."""
    observations: list[dict[str, Any]]
    artifacts: list[dict[str, Any]]
    key_states: dict[str, KeyState]
    """The state of each key the batch names before its entities are resolved."""


def guessed_keys(
    items: list[RememberInput], types: list[MemoryType], rules: PredicateRules | None
) -> set[str]:
    """The keys `items` name before their entities are resolved: their own, the keys of the
    entities they name by kind and name (the entity such a name makes, or whose names an alias
    joins), and the fact keys of subjects and objects given by key or by kind and name."""
    keys: set[str] = set()
    for item, memory_type in zip(items, types, strict=True):
        refs = [r for r in (item.subject, item.object) if r is not None]
        keys |= {k for r in refs if (k := r.derived_key()) is not None}
        if memory_type is not MemoryType.FACT:
            keys.add(item.key or "")
            continue
        subject = _ref_key(item.subject)
        obj = _ref_key(item.object)
        if rules is None or subject is None or (item.object is not None and obj is None):
            continue
        try:
            keys.add(fact_key(item, subject, obj, rules))
        except EngramError:
            continue  # planning the item says why
    keys.discard("")
    return keys


def _ref_key(ref: EntityRef | None) -> str | None:
    return None if ref is None else ref.key or ref.derived_key()


class Lookup:
    """What a batch's items ask to look up, and reading it: with the tick (`reading`), or on its
    own (`found`, when the tick did not run it)."""

    def __init__(self, items: list[RememberInput], types: list[MemoryType]) -> None:
        self.items = items
        self.types = types
        self.hashes = {
            item.idempotency_key: (
                "remember",
                request_hash("remember", item.model_dump(mode="json")),
            )
            for item in items
            if item.idempotency_key is not None
        }
        refs = [r for item in items for r in (item.subject, item.object) if r is not None]
        self.entities = EntityLookup.of(refs)
        self.texts = [(ref, int(item.privacy), "") for item in items for ref in item.evidence]
        cited = [(ref, "") for item in items for ref in item.evidence]
        self.observation_ids, self.artifact_ids = cited_ids(cited)
        self.reading = ReadWithTick(PARTS, COLUMNS, self.params)
        """The lookup run in the tick's statement, on a guessed context."""

    def params(self, ctx: WriteContext) -> dict[str, Any]:
        """`GATHER`'s parameters in `ctx`."""
        has_facts = any(memory_type is MemoryType.FACT for memory_type in self.types)
        rules = declared_rules(ctx) if has_facts else None
        return {
            **self.entities.params(ctx, session_keys_of(ctx, self.texts)),
            "keys": replay_keys(ctx, self.hashes),
            "observationIds": self.observation_ids,
            "artifactIds": self.artifact_ids,
            "claimKeys": sorted(guessed_keys(self.items, self.types, rules)),
        }

    async def found(self, ctx: WriteContext) -> Found:
        """What the items refer to: as the tick read it, else read now (one round trip)."""
        session_keys = session_keys_of(ctx, self.texts)
        read = ctx.read_with_tick
        row = read[1] if read is not None and read[0] is self.reading else None
        # A guess made on the other side of midnight asked for another day's session episode.
        if row is None or row["sessionKeys"] != sorted(set(session_keys)):
            [row] = await ctx.run(GATHER, **self.params(ctx))
        candidates, sessions = self.entities.found(row["entities"], session_keys)
        return Found(
            hashes=self.hashes,
            replays=replays_of(row["replays"], self.hashes),
            candidates=candidates,
            sessions=sessions,
            observations=row["observations"],
            artifacts=row["artifacts"],
            key_states={state["key"]: key_state(state) for state in row["keyStates"]},
        )
