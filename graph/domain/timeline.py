"""A key's timeline in valid time: which told fact a reader sees at each instant (ENGRAM.md §2).

Every `remember` of a key with one current value (a `ONE` predicate, an overwrite-policy type)
tells a fact: a value on `[start, end)`. Told facts are kept side by side; none ends another.
At a valid instant `v` a reader sees, among the told facts it may read whose interval contains
`v`, the one that ranks highest: asserting before retracted, then the latest `start` (an open
start is the earliest), then the later told (recorded time, then place in its batch). So the
answer is a function of the facts told, not of the order they were told in: "Globex from
2024-03" and "Acme from 2020" give Acme on [2020, 2024-03) and Globex after, told in either
order, and a closed stint inside an open value interrupts it, the open value resuming after.

    acme = Told("acme", day(0), None, recorded_at=t2)
    globex = Told("globex", day(60), None, recorded_at=t1)
    shown([acme, globex], day(30)).id, held(acme, [acme, globex], day(30))
    ('acme', Interval(day(0), day(60)))

The same rule is written once in Cypher for the reads (`graph.reads.visibility.holds`); this
module is what pure code (the `changes` read, the planner's tests) computes it with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from itertools import pairwise

from graph.domain.intervals import Interval

_DAWN = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Told:
    """A told fact as the choice between facts sees it."""

    id: str
    start: datetime | None
    end: datetime | None
    recorded_at: datetime
    seq: int = 0
    """Its place in the batch it was told in (later items win)."""
    asserting: bool = True
    """Active or disputed; a retracted fact is shown only where no asserting fact holds."""

    def contains(self, at: datetime) -> bool:
        return (self.start is None or self.start <= at) and (self.end is None or at < self.end)

    @cached_property
    def ranked(self) -> str:
        """What decides between two told facts containing the same instant: higher wins."""
        return told_rank(self.asserting, self.start, self.recorded_at, self.seq)

    def rank(self) -> str:
        return self.ranked


OPEN_START = "0" * 20
"""An open start in a rank: earlier than any instant."""


def rank_instant(instant: datetime) -> str:
    """An instant as 20 digits that sort as the instants do: `YYYYMMDDhhmmssffffff`, UTC."""
    u = instant.astimezone(UTC)
    return (
        f"{u.year:04d}{u.month:02d}{u.day:02d}{u.hour:02d}{u.minute:02d}{u.second:02d}"
        f"{u.microsecond:06d}"
    )


def told_rank(asserting: bool, start: datetime | None, recorded_at: datetime, seq: int) -> str:
    """A told fact's rank as one string that compares as the choice does: asserting before
    retracted, then the later start (an open start the earliest), then the later told —
    recorded time, then place in its batch. Stored on every claim row and relation as
    `toldRank`, so a read compares one property (`graph.reads.visibility.holds`)."""
    opening = OPEN_START if start is None else rank_instant(start)
    return f"{int(asserting)}{opening}{rank_instant(recorded_at)}{seq:06d}"


def shown(told: Sequence[Told], at: datetime) -> Told | None:
    """The told fact a reader of `told` sees at `at` (None: no fact holds then)."""
    containing = [fact for fact in told if fact.contains(at)]
    return max(containing, key=Told.rank, default=None)


def held(fact: Told, told: Sequence[Told], at: datetime) -> Interval:
    """The part of `fact`'s interval around `at` on which it is shown, where it is shown at
    `at`: from where the last higher-ranked fact before `at` ended, to where the next one
    begins."""
    above = [other for other in told if other.rank() > fact.rank()]
    ends = [o.end for o in above if o.end is not None and o.end <= at]
    starts = [o.start for o in above if o.start is not None and o.start > at]
    start = max([fact.start, *ends], key=lambda s: s or _DAWN) if ends else fact.start
    end = min([fact.end, *starts], key=lambda e: e or datetime.max.replace(tzinfo=UTC))
    return Interval(start, end)


@dataclass(frozen=True)
class Segment:
    """A stretch of valid time on which one told fact is shown."""

    start: datetime | None
    end: datetime | None
    fact: Told


def segments(told: Sequence[Told]) -> list[Segment]:
    """The whole timeline of `told`, earliest first: where each fact is shown (stretches of
    one fact side by side are one segment; where no fact holds there is none)."""
    instants = sorted({i for f in told for i in (f.start, f.end) if i is not None})
    bounds: list[datetime | None] = [None, *instants, None]
    timeline: list[Segment] = []
    for start, end in pairwise(bounds):
        probe = start if start is not None else _probe_before(end)
        fact = shown(told, probe) if probe is not None else None
        if fact is None:
            continue
        if timeline and timeline[-1].fact.id == fact.id and timeline[-1].end == start:
            timeline[-1] = Segment(timeline[-1].start, end, fact)
        else:
            timeline.append(Segment(start, end, fact))
    return timeline


def _probe_before(end: datetime | None) -> datetime | None:
    """An instant of `(-∞, end)`: what the open beginning of time is probed at."""
    return _DAWN if end is None or end > _DAWN else None
