"""Valid-time intervals `[from, to)` where None is unbounded, and the sequenced update.

A change in the world from `T` on keeps what held before `T`: rows are never edited, so the part
of a superseded row that still holds is written again as a new row (a "piece").

    pieces_kept(Interval(t0, None), Interval(t1, None), keep_tail=True)
    [Interval(t0, t1)]
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Interval:
    start: datetime | None
    end: datetime | None

    def __post_init__(self) -> None:
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError("an interval ends after it starts")

    def overlaps(self, other: Interval) -> bool:
        starts_before_other_ends = self.start is None or other.end is None or self.start < other.end
        other_starts_before_self_ends = (
            other.start is None or self.end is None or other.start < self.end
        )
        return starts_before_other_ends and other_starts_before_self_ends

    def covers(self, other: Interval) -> bool:
        start_ok = self.start is None or (other.start is not None and self.start <= other.start)
        end_ok = self.end is None or (other.end is not None and other.end <= self.end)
        return start_ok and end_ok

    def contains(self, instant: datetime) -> bool:
        return (self.start is None or self.start <= instant) and (
            self.end is None or instant < self.end
        )


def pieces_kept(old: Interval, new: Interval, *, keep_tail: bool) -> list[Interval]:
    """The parts of `old` that `new` does not replace: before it, and (if `keep_tail`) after."""
    kept: list[Interval] = []
    if new.start is not None and (old.start is None or old.start < new.start):
        kept.append(Interval(old.start, new.start))
    if keep_tail and new.end is not None and (old.end is None or new.end < old.end):
        kept.append(Interval(new.end, old.end))
    return kept
