"""An independent in-memory model of Engram's bi-temporal claims, for the property tests.

Deliberately simple and written from the design brief (ENGRAM.md §2–3), not from graph/: rows
with a value, a status, a valid interval `[vf, vt)` and a recorded interval `[rec, sup)`; None is
unbounded. A row is a revision of a told fact. For an overwrite key a view shows, at each valid
instant, one told fact: of the rows believed then whose interval holds the instant, the one
asserting before retracted, then with the latest start, then told last; its interval there is
the part of its own on which it is shown. A versioned key shows every believed row that holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

NEVER = None


@dataclass
class Row:
    key: str
    value: str
    status: str
    vf: datetime | None
    vt: datetime | None
    rec: datetime
    told: int
    """When it was told, counting every row made (a later row of one write counts later)."""
    sup: datetime | None = NEVER

    def shown(self) -> tuple[str, str, datetime | None, datetime | None]:
        return (self.value, self.status, self.vf, self.vt)

    def holds(self, at: datetime) -> bool:
        return (self.vf is None or self.vf <= at) and (self.vt is None or at < self.vt)

    def believed(self, known: datetime) -> bool:
        return self.rec <= known and (self.sup is None or known < self.sup)

    def rank(self) -> tuple[bool, bool, datetime | None, int]:
        start = self.vf
        return (self.status != "retracted", start is not None, start, self.told)


def _above(a: Row, b: Row) -> bool:
    """`a` is shown over `b` where both hold."""
    ra, rb = a.rank(), b.rank()
    if ra[0] != rb[0]:
        return ra[0]
    if ra[1] != rb[1]:
        return ra[1]
    if ra[2] != rb[2]:
        return ra[2] is not None and rb[2] is not None and ra[2] > rb[2]
    return ra[3] > rb[3]


class BitemporalModel:
    """Claims by key; `overwrite` keys show one told fact per instant, others every row."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.made = 0

    def _new(
        self,
        key: str,
        value: str,
        status: str,
        vf: datetime | None,
        vt: datetime | None,
        at: datetime,
    ) -> Row:
        self.made += 1
        row = Row(key, value, status, vf, vt, at, self.made)
        self.rows.append(row)
        return row

    def current(self, key: str) -> list[Row]:
        return [r for r in self.rows if r.key == key and r.sup is NEVER]

    def remember(
        self,
        key: str,
        value: str,
        vf: datetime,
        vt: datetime | None,
        at: datetime | None,
        *,
        overwrite: bool,
    ) -> bool:
        """Tell a fact; False when it corroborates the fact told at the same start with the
        same value and end (nothing recorded). Another value or end at that start replaces it."""
        if overwrite:
            for row in self.current(key):
                same = row.vf == vf and row.value == value and row.vt == vt
                if same and row.status != "retracted":
                    return False
        assert at is not None
        if overwrite:
            for row in self.current(key):
                if row.vf == vf:
                    row.sup = at
        self._new(key, value, "active", vf, vt, at)
        return True

    def supersede(self, row: Row, value: str, vf: datetime | None, at: datetime) -> None:
        """A correction of `row`: from `vf` on (default: its whole time) it holds `value`; the
        time before stays told as it was."""
        row.sup = at
        start = vf if vf is not None else row.vf
        if start is not None and (row.vf is None or row.vf < start):
            self._new(row.key, row.value, row.status, row.vf, start, at)
        for other in self.current(row.key):
            if other.vf == start and start != row.vf:
                other.sup = at
        self._new(row.key, value, "active", start, row.vt, at)

    def restate(self, row: Row, status: str, at: datetime) -> None:
        """RETRACT or DISPUTE: the same claim over the same time, with a new status."""
        row.sup = at
        self._new(row.key, row.value, status, row.vf, row.vt, at)

    def visible(
        self, key: str, as_of: datetime, known_at: datetime, *, overwrite: bool
    ) -> list[tuple[object, ...]]:
        believed = [r for r in self.rows if r.key == key and r.believed(known_at)]
        holding = [r for r in believed if r.holds(as_of)]
        if not overwrite:
            return sorted((r.shown() for r in holding), key=repr)
        shown = [r for r in holding if not any(_above(o, r) for o in holding if o is not r)]
        answers = []
        for row in shown:
            above = [o for o in believed if o is not row and _above(o, row)]
            ends = [o.vt for o in above if o.vt is not None and o.vt <= as_of]
            starts = [o.vf for o in above if o.vf is not None and o.vf > as_of]
            vf = max([e for e in [row.vf, *ends] if e is not None], default=None)
            vt = min([e for e in [row.vt, *starts] if e is not None], default=None)
            answers.append((row.value, row.status, vf, vt))
        return sorted(answers, key=repr)
