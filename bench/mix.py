"""The claim mix of Engram's benchmarks: people, orgs and projects, the relations between them
and the typed memories an assistant keeps, drawn deterministically from one seed.

Why one module: the generator and the write benchmark must write the same kind of claims, or
their numbers would not be comparable.

    >>> mix = ClaimMix(random.Random(7), entity_counts(1000))
    >>> spec = mix.entity("person", 0, START)
    >>> spec.fields["key"]
    'entity:person:p0'
    >>> spec.remember_input(observation_id)["key"]
    'entity:person:p0'

Claims are plain data, as a caller of `Memory.remember` sends them (validated there).

The shares: ~10 % entity claims, ~50 % relation facts (WORKS_AT, KNOWS, MEMBER_OF,
CONTRIBUTES_TO, valid over intervals between 2019 and 2026), ~40 % typed memories (pref, goal,
task, decision, event). Every memory key is used once; relation triples are new unless the
entities run out of them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.domain.memory_types import GOAL_STATUSES, PREF_SCOPES, TASK_STATUSES

START = datetime(2019, 1, 1, tzinfo=UTC)
END = datetime(2026, 12, 31, tzinfo=UTC)

ENTITY_SHARE = 0.10
RELATION_SHARE = 0.50
"""The rest (~40 %) are typed memories."""
CORRECTION_SHARE = 0.02

ENTITY_KINDS: tuple[tuple[str, str, float], ...] = (
    ("person", "p", 0.6),
    ("org", "o", 0.2),
    ("project", "j", 0.2),
)
"""(kind, canonical prefix, share of entities): keys look like `entity:person:p12`."""

RELATIONS: tuple[tuple[str, str, str, float], ...] = (
    ("WORKS_AT", "person", "org", 0.3),
    ("KNOWS", "person", "person", 0.3),
    ("MEMBER_OF", "person", "project", 0.2),
    ("CONTRIBUTES_TO", "org", "project", 0.2),
)
"""(predicate, subject kind, object kind, share of relations)."""

MEMORY_TYPES: tuple[tuple[str, float], ...] = (
    ("pref", 0.15),
    ("goal", 0.15),
    ("task", 0.35),
    ("decision", 0.15),
    ("event", 0.20),
)

FIRST = ("Ada", "Ben", "Chen", "Dara", "Emil", "Fatma", "Goran", "Hana", "Ivo", "Jun", "Kofi")
LAST = ("Novak", "Okafor", "Silva", "Tanaka", "Weber", "Haddad", "Kowalski", "Laine", "Moreau")
ORG_WORDS = ("Acme", "Northwind", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark")
ORG_SUFFIX = ("Labs", "Systems", "GmbH", "Group", "Analytics", "Cloud")
TOPICS = ("storage", "auth", "billing", "search", "ci", "onboarding", "latency", "pricing")
VERBS = ("migrate", "document", "profile", "refactor", "review", "ship", "benchmark", "retire")


@dataclass(frozen=True)
class ClaimSpec:
    """One claim to remember before it cites evidence, and the sentence its observation says."""

    fields: dict[str, Any]
    sentence: str
    kind: str
    """`entity`, `relation` or `memory`."""
    observed_at: datetime
    """When the user said it: observations are spread evenly over 2019–2026 in write order."""

    def remember_input(self, observation_id: str) -> dict[str, Any]:
        """The claim as `Memory.remember` takes it, citing the observation."""
        return {**self.fields, "evidence": [{"observation_id": observation_id}]}


def entity_counts(entities: int) -> dict[str, int]:
    """How many entities of each kind; at least two people and one org and project, so every
    relation type has candidates."""
    counts = {kind: max(1, round(entities * share)) for kind, _, share in ENTITY_KINDS}
    counts["person"] = max(2, counts["person"])
    return counts


class ClaimMix:
    """Draws claims of the benchmark's mix, deterministically for one `random.Random`.

    Relations refer to entities by key, so the entities must be remembered (in an earlier
    transaction: `remember` resolves references before it writes) before relations cite them.
    """

    def __init__(self, rng: random.Random, counts: dict[str, int]) -> None:
        self.rng = rng
        self.counts = counts
        self.prefixes = {kind: prefix for kind, prefix, _ in ENTITY_KINDS}
        self.relation_weights = [share for *_, share in RELATIONS]
        self.memory_weights = [share for _, share in MEMORY_TYPES]
        self.used_triples: set[tuple[str, str, str]] = set()
        self.memory_serial = 0
        self.names: dict[str, str] = {}
        """Entity key → name, for the sentences observations say."""
        self.new_entities = dict(counts)
        """Next index of an entity `draw` adds beyond the ones relations refer to."""

    def entity_key(self, kind: str, index: int) -> str:
        return f"entity:{kind}:{self.prefixes[kind]}{index}"

    def entity_keys(self) -> dict[str, tuple[str, ...]]:
        return {
            kind: tuple(self.entity_key(kind, i) for i in range(count))
            for kind, count in self.counts.items()
        }

    def entities(self) -> Iterator[tuple[str, int]]:
        """(kind, index) of every entity, kinds interleaved."""
        for index in range(max(self.counts.values())):
            for kind, count in self.counts.items():
                if index < count:
                    yield kind, index

    def draw(self, observed_at: datetime) -> ClaimSpec:
        """One claim of the whole mix: a new entity (never referred to by the relations drawn,
        which pick among the first `counts`), a relation or a memory, by their shares."""
        roll = self.rng.random()
        if roll < ENTITY_SHARE:
            kind = self.rng.choices(ENTITY_KINDS, weights=[s for *_, s in ENTITY_KINDS])[0][0]
            self.new_entities[kind] += 1
            return self.entity(kind, self.new_entities[kind] - 1, observed_at)
        if roll < ENTITY_SHARE + RELATION_SHARE:
            return self.relation(observed_at)
        return self.memory(observed_at)

    def entity(self, kind: str, index: int, observed_at: datetime) -> ClaimSpec:
        rng = self.rng
        if kind == "person":
            name = f"{rng.choice(FIRST)} {rng.choice(LAST)} {index}"
            attrs: dict[str, Any] = {"city": rng.choice(("Berlin", "Lagos", "Osaka", "Lima"))}
        elif kind == "org":
            name = f"{rng.choice(ORG_WORDS)} {rng.choice(ORG_SUFFIX)} {index}"
            attrs = {"employees": rng.randrange(5, 50_000)}
        else:
            name = f"Project {rng.choice(TOPICS).title()} {index}"
            attrs = {"language": rng.choice(("python", "go", "rust", "typescript"))}
        key = self.entity_key(kind, index)
        self.names[key] = name
        return ClaimSpec(
            {"key": key, "value": {"name": name, "attrs": attrs}, "valid_from": START},
            f"{name} is a {kind} we work with.",
            "entity",
            observed_at,
        )

    def relation(self, observed_at: datetime) -> ClaimSpec:
        """A new subject–predicate–object triple, true for an interval that starts before
        `observed_at` (people tell what already happened) and may have ended."""
        rng = self.rng
        for _ in range(50):
            predicate, subject_kind, object_kind, _ = rng.choices(
                RELATIONS, weights=self.relation_weights
            )[0]
            subject = self.entity_key(subject_kind, rng.randrange(self.counts[subject_kind]))
            obj = self.entity_key(object_kind, rng.randrange(self.counts[object_kind]))
            if subject != obj and (subject, predicate, obj) not in self.used_triples:
                break
        # A tiny graph runs out of new triples; a repeat is then a second revision of the fact.
        self.used_triples.add((subject, predicate, obj))
        valid_from = max(START, observed_at - timedelta(days=rng.uniform(0, 3 * 365)))
        valid_to: datetime | None = None
        if rng.random() < 0.65:
            valid_to = min(END, valid_from + timedelta(days=rng.uniform(60, 4 * 365)))
            valid_to = max(valid_to, valid_from + timedelta(days=1))
        until = f" until {valid_to:%B %Y}" if valid_to else ""
        return ClaimSpec(
            {
                "type": "fact",
                "subject": {"key": subject},
                "predicate": predicate,
                "object": {"key": obj},
                "valid_from": valid_from,
                "valid_to": valid_to,
                "confidence": round(rng.uniform(0.6, 1.0), 2),
            },
            f"{self.names.get(subject, subject)} {predicate.lower().replace('_', ' ')} "
            f"{self.names.get(obj, obj)} since "
            f"{valid_from:%B %Y}{until}.",
            "relation",
            observed_at,
        )

    def memory(self, observed_at: datetime) -> ClaimSpec:
        """A typed memory under a key used once (so it is revision 1 and can be corrected)."""
        rng = self.rng
        self.memory_serial += 1
        n = self.memory_serial
        project = f"j{rng.randrange(self.counts['project'])}"
        topic, verb = rng.choice(TOPICS), rng.choice(VERBS)
        memory_type = rng.choices(MEMORY_TYPES, weights=self.memory_weights)[0][0]
        value: dict[str, Any]
        if memory_type == "pref":
            scope = rng.choice(PREF_SCOPES)
            key, value = f"pref:{scope}:{topic}-{n}", {"value": rng.choice(("on", "off", "auto"))}
            sentence = f"For {topic} ({scope}) I prefer {value['value']}."
        elif memory_type == "goal":
            key = f"goal:{project}:{verb}-{topic}-{n}"
            value = {"title": f"{verb} {topic}", "status": rng.choice(GOAL_STATUSES)}
            sentence = f"Our goal in {project} is to {verb} {topic}."
        elif memory_type == "task":
            key = f"task:{project}:t{n}"
            value = {"task_id": f"t{n}", "status": rng.choice(TASK_STATUSES), "title": verb}
            sentence = f"Task t{n} in {project}: {verb} the {topic} module."
        elif memory_type == "decision":
            key = f"decision:{project}:{topic}-{n}"
            value = {"decision": f"{verb} {topic} before the next release"}
            sentence = f"We decided in {project} to {value['decision']}."
        else:
            day = observed_at.date().isoformat()
            key = f"event:{project}:{day}:{verb}-{topic}-{n}"
            value = {"title": f"{verb} {topic} meeting", "date": day}
            sentence = f"On {day} we held the {value['title']} for {project}."
        return ClaimSpec({"key": key, "value": value}, sentence, "memory", observed_at)
