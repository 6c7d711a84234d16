"""The recorded-time clocks: one per space, strictly increasing, ticked in the writing transaction;
and one global clock for what spans spaces.

**A clock per space.** Every command writes in one space, and starts its Cypher with
`TICK_SPACE` (by name) or `TICK_SPACE_ID`: the space's `clockNow` advances to the statement time
truncated to the microsecond, or one microsecond after its previous tick if the wall clock has
not moved on (or went backwards), and binds `now`. `SET s.clockLocked` takes the space node's
write lock before `clockNow` is read (the Cypher manual's cure for lost updates) and holds it to
commit, so the writers of one space tick one after the other: recorded times are unique within
a space and ordered like the commits that hold them, and whatever a writer reads of its space
after its tick is the latest committed state (check-then-write stays safe). Writers of different
spaces take different locks and never wait for each other. After the lock the space is read
again, so a write that waited for a forget of its whole space sees it forgotten.

**What changes.** Recorded times are unique and ordered per space, not across spaces: two spaces
may record the same instant, and their order between spaces is the wall clock's only. Nothing
reads across spaces (a space is the unit of tenancy, evidence and entities never cross), so no
read can tell: every view is of one space, and its default `knownAt` is that space's clock.

**What stays global** — `(:Clock {name: 'recorded'})`, ticked by `TICK`:
* creating a space (its first tick; the space clock starts there), so creations and a backup's
  barrier are ordered;
* a backup's watermark (`BARRIER`): it takes the global clock and every space's clock, sets them
  all to one instant `W` ≥ every tick so far, and commits at once. Every write recorded by `W`
  has committed then, and every later write ticks after `W` in whichever space, so `W` is a
  consistent recovery point exactly as the one clock made it (writers wait only for the
  barrier's own commit, not for the backup);
* a restore sets every clock to the archive's watermark (`graph.jobs.restore`), so writes and
  ledger replays after it are recorded after everything restored;
* the embedding outbox stores vectors for claims of several spaces in one transaction: it takes
  those spaces' locks (`LOCK_SPACES`, in id order) before it checks the claims, so a forget that
  committed first wins, as with the one clock.
API keys and migrations never ticked a clock; tombstones, holds, retention and audit events are
written by commands in their space and take that space's time.

A space written before space clocks existed has no `clockNow`: its first tick starts from the
global clock, which is at or after everything recorded until then.

Microseconds, because that is what Python's `datetime` keeps; a finer clock would collapse on the
way out.

    >>> CREATE_THING = TICK_SPACE + "CREATE (:Thing {spaceId: id, recordedAt: now})"
"""

from __future__ import annotations

from typing import LiteralString

EPOCH: LiteralString = "datetime('1970-01-01T00:00:00Z')"
ONE_MICROSECOND: LiteralString = "duration({microseconds: 1})"
WALL: LiteralString = "datetime.truncate('microsecond', datetime.statement())"

_HOLD_GLOBAL_CLOCK: LiteralString = (
    """
MERGE (clock:Clock {name: 'recorded'})
  ON CREATE SET clock.now = """
    + EPOCH
    + """
SET clock.locked = true
"""
)
"""Hold the global clock (made at its epoch the first time) to commit: binds `clock`."""

TICK: LiteralString = (
    _HOLD_GLOBAL_CLOCK
    + """WITH clock, """
    + WALL
    + """ AS wall
SET clock.now = CASE
    WHEN wall > clock.now THEN wall
    ELSE clock.now + """
    + ONE_MICROSECOND
    + """
  END
WITH clock.now AS now
"""
)
"""The global tick (space creation): binds `now`."""

_TICK_FOUND_SPACE: LiteralString = (
    """
SET s.clockLocked = true
WITH s, """
    + WALL
    + """ AS wall
OPTIONAL MATCH (global:Clock {name: 'recorded'})
WITH s, wall, coalesce(s.clockNow, global.now, """
    + EPOCH
    + """) AS last
SET s.clockNow = CASE WHEN wall > last THEN wall ELSE last + """
    + ONE_MICROSECOND
    + """ END
WITH s.clockNow AS now, last AS before, s.id AS id, s.erasedAt IS NULL AS live,
     coalesce(s.onePredicates, []) AS onePredicates,
     coalesce(s.manyPredicates, []) AS manyPredicates
"""
)

TICK_SPACE: LiteralString = (
    """
OPTIONAL MATCH (s:Space {name: $space})
WHERE s.erasedAt IS NULL
WITH s ORDER BY s.recordedAt DESC LIMIT 1
"""
    + _TICK_FOUND_SPACE
)
"""Tick the clock of the live space named `$space`: binds `now`, `before` (the clock as the
last write left it), `id` and `live` (false when
the space was forgotten while this writer waited), and the space's declared predicate rules
(`onePredicates`, `manyPredicates`: the space is locked, so they hold until commit); no row when
there is no such space."""

TICK_SPACE_ID: LiteralString = (
    """
MATCH (s:Space {id: $spaceId})
"""
    + _TICK_FOUND_SPACE
)
"""Tick the clock of the space with id `$spaceId`, forgotten or not (ledger replays)."""

TICK_IN_SPACE: LiteralString = TICK_SPACE + "RETURN now, id, live, onePredicates, manyPredicates"

TICK_SPACE_BY_ID: LiteralString = TICK_SPACE_ID + "RETURN now"

LOCK_SPACES: LiteralString = """
UNWIND $spaceIds AS spaceId
WITH DISTINCT spaceId ORDER BY spaceId
MATCH (s:Space {id: spaceId})
SET s.clockLocked = true
RETURN count(s) AS locked
"""
"""Hold the clocks of the spaces `$spaceIds` (sorted, so two holders never deadlock) to commit."""

BARRIER: LiteralString = (
    _HOLD_GLOBAL_CLOCK
    + """WITH clock
OPTIONAL MATCH (s:Space)
WITH clock, s ORDER BY s.id
SET s.clockLocked = true
WITH clock, collect(s) AS spaces, max(s.clockNow) AS top
WITH clock, spaces, top, """
    + WALL
    + """ AS wall
WITH clock, spaces,
     reduce(w = clock.now + """
    + ONE_MICROSECOND
    + """, t IN [top, wall] | CASE WHEN t > w THEN t ELSE w END) AS watermark
SET clock.now = watermark
FOREACH (s IN spaces | SET s.clockNow = watermark)
RETURN watermark
"""
)
"""Set every clock to one instant at or after every tick so far and return it (see above)."""

READ_CLOCK: LiteralString = """
OPTIONAL MATCH (clock:Clock {name: 'recorded'})
OPTIONAL MATCH (s:Space)
WITH clock, max(s.clockNow) AS top
RETURN CASE WHEN top IS NULL OR clock.now >= top THEN clock.now ELSE top END AS now
"""
"""The latest tick of any clock (null before the first), read without taking a lock."""

SET_ALL_CLOCKS: LiteralString = """
MERGE (c:Clock {name: 'recorded'})
SET c.now = CASE WHEN c.now IS NULL OR c.now < $now THEN $now ELSE c.now END
WITH c
OPTIONAL MATCH (s:Space)
WITH s WHERE s IS NOT NULL
SET s.clockNow = CASE WHEN s.clockNow IS NULL OR s.clockNow < $now THEN $now ELSE s.clockNow END
"""
"""Every clock at least `$now` (a restore, at its archive's watermark)."""
