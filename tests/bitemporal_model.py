"""An independent in-memory model of Engram's bi-temporal claims, for the property tests.

Deliberately simple and written from the design brief, not from graph/: rows with a value, a
status, a valid interval `[vf, vt)` and a recorded interval `[rec, sup)`; None is unbounded.
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
    sup: datetime | None = NEVER

    def shown(self) -> tuple[str, str, datetime | None, datetime | None]:
        return (self.value, self.status, self.vf, self.vt)


def _before(a: datetime | None, b: datetime | None) -> bool:
    """a < b where a None is -∞ (a start) and b None is +∞ (an end)."""
    return a is None or b is None or a < b


class BitemporalModel:
    """Claims by key; `overwrite` keys keep one row per time slice, others keep every row."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

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
        """Apply a remember; False when it only corroborates a current row (nothing recorded)."""
        if overwrite:
            for row in self.current(key):
                covers = (row.vf is None or row.vf <= vf) and (
                    row.vt is None or (vt is not None and vt <= row.vt)
                )
                if row.value == value and row.status != "retracted" and covers:
                    return False
        assert at is not None
        if overwrite:
            for row in self.current(key):
                overlaps = _before(row.vf, vt) and _before(vf, row.vt)
                if not overlaps:
                    continue
                row.sup = at
                if row.vf is None or row.vf < vf:
                    self.rows.append(Row(key, row.value, row.status, row.vf, vf, at))
                if vt is not None and (row.vt is None or vt < row.vt):
                    self.rows.append(Row(key, row.value, row.status, vt, row.vt, at))
        self.rows.append(Row(key, value, "active", vf, vt, at))
        return True

    def supersede(self, row: Row, value: str, vf: datetime | None, at: datetime) -> None:
        """A correction of `row`: from `vf` on (default: its whole time) it holds `value`."""
        row.sup = at
        start = vf if vf is not None else row.vf
        if start is not None and (row.vf is None or row.vf < start):
            self.rows.append(Row(row.key, row.value, row.status, row.vf, start, at))
        self.rows.append(Row(row.key, value, "active", start, row.vt, at))

    def restate(self, row: Row, status: str, at: datetime) -> None:
        """RETRACT or DISPUTE: the same claim over the same time, with a new status."""
        row.sup = at
        self.rows.append(Row(row.key, row.value, status, row.vf, row.vt, at))

    def visible(self, key: str, as_of: datetime, known_at: datetime) -> list[tuple[object, ...]]:
        shown = [
            r.shown()
            for r in self.rows
            if r.key == key
            and r.rec <= known_at
            and (r.sup is None or known_at < r.sup)
            and (r.vf is None or r.vf <= as_of)
            and (r.vt is None or as_of < r.vt)
        ]
        return sorted(shown, key=repr)
