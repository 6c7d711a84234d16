"""An independent model of one key's timeline, written from ENGRAM.md §2 — not from graph/ — for
the property tests of told facts (tests/test_told_fact_rules.py, tests/test_told_facts_api.py).

The rule, as the brief states it: each told fact states a value on `[start, end)` (None: open).
At a valid instant `v`, a reader sees the value of the fact with the latest start among the facts
it may read (its tier or below, recorded by `knownAt` and not yet replaced or retracted then)
whose interval contains `v`. A later telling at the same start in the same tier corroborates a
fact with the same value and end, and otherwise replaces it; of two facts a reader may read with
the same start, the one told later wins; in one batch, later items win. A retraction removes the
fact it names. Nothing here depends on the order facts arrive in except through those rules.

Instants are plain integers (days, recorded ticks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st


@dataclass(frozen=True)
class Telling:
    """One fact as told: a value on [start, end) at a tier."""

    value: str
    start: int | None
    end: int | None
    tier: int

    def contains(self, day: float) -> bool:
        return (self.start is None or self.start <= day) and (self.end is None or day < self.end)


@dataclass
class Held:
    """A telling as the model holds it: believed from `since` until `until` (None: still)."""

    telling: Telling
    order: int
    """When it was told, counting every telling (later items of a batch count later)."""
    since: int
    until: int | None = None

    def believed_at(self, known: int) -> bool:
        return self.since <= known and (self.until is None or known < self.until)


@dataclass
class KeyModel:
    """Every telling of one key, with when each was believed."""

    held: list[Held] = field(default_factory=list)
    told: int = 0

    def tell(self, telling: Telling, at: int) -> None:
        """Tell a fact, recorded at tick `at` (the tellings of one batch share their tick)."""
        self.told += 1
        for earlier in self.held:
            same = earlier.telling
            if earlier.until is None and same.tier == telling.tier and same.start == telling.start:
                if same.value == telling.value and same.end == telling.end:
                    return  # corroborates
                earlier.until = at
        self.held.append(Held(telling, self.told, at))

    def retract(self, telling: Telling, at: int) -> None:
        """Remove the believed fact `telling` (its value no longer holds anywhere)."""
        for earlier in self.held:
            if earlier.until is None and earlier.telling == telling:
                earlier.until = at

    def believed(self, tier: int, known: int) -> list[Held]:
        return [h for h in self.held if h.telling.tier <= tier and h.believed_at(known)]

    def value(self, day: float, *, tier: int, known: int) -> str | None:
        """What a reader at `tier` sees at valid instant `day`, as known at tick `known`."""
        containing = [h for h in self.believed(tier, known) if h.telling.contains(day)]
        if not containing:
            return None
        start = max(-1e18 if h.telling.start is None else h.telling.start for h in containing)
        latest = [
            h
            for h in containing
            if (-1e18 if h.telling.start is None else h.telling.start) == start
        ]
        return max(latest, key=lambda h: h.order).telling.value


TIERS = (1, 3)
"""The tiers histories tell facts at and read them at: normal and secret."""

VALUES = ("Acme", "Globex", "Initech", "Umbrella")


@st.composite
def histories(draw: st.DrawFn) -> list[Telling]:
    """2–8 facts of one key with distinct starts (one may be open), open or closed, at two
    tiers."""
    count = draw(st.integers(min_value=2, max_value=8))
    days = st.integers(min_value=0, max_value=60)
    starts: list[int | None] = list(
        draw(st.lists(days, min_size=count, max_size=count, unique=True))
    )
    if draw(st.booleans()):
        starts[0] = None
    facts = []
    for start in starts:
        lasts = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=40)))
        end = None if lasts is None else (start or 0) + lasts
        value, tier = draw(st.sampled_from(VALUES)), draw(st.sampled_from(TIERS))
        facts.append(Telling(value, start, end, tier))
    return facts


def probes(facts: list[Telling]) -> list[float]:
    """Instants around every start and end."""
    edges = sorted({e for f in facts for e in (f.start, f.end) if e is not None} | {0})
    return [-5.0, *(e + d for e in edges for d in (-0.5, 0.0)), 200.0]


def batching(count: int, draw: st.DrawFn) -> list[int]:
    """Sizes of the batches `count` tellings arrive in (one `rememberMany` each)."""
    sizes: list[int] = []
    while sum(sizes) < count:
        sizes.append(draw(st.integers(min_value=1, max_value=count - sum(sizes))))
    return sizes
