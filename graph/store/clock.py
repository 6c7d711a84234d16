"""The recorded-time clock: one per database, strictly increasing, read in the writing transaction.

Every command that writes starts its Cypher with `TICK`, which advances the single
`(:Clock {name: 'recorded'})` node and binds `now`: the statement time truncated to the
microsecond, or one microsecond after the previous tick if the wall clock has not moved on (or
went backwards). `SET clock.locked` takes the node's write lock before `clock.now` is read (the
Cypher manual's cure for lost updates); the lock is held to commit, so concurrent writers tick one
after the other and recorded times are unique and ordered like the commits that hold them.
Microseconds, because that is what Python's `datetime` keeps; a finer clock would collapse on the
way out.

    >>> CREATE_THING = TICK + "CREATE (:Thing {recordedAt: now})"
"""

from __future__ import annotations

from typing import LiteralString

TICK: LiteralString = """
MERGE (clock:Clock {name: 'recorded'})
  ON CREATE SET clock.now = datetime('1970-01-01T00:00:00Z')
SET clock.locked = true
WITH clock, datetime.truncate('microsecond', datetime.statement()) AS wall
SET clock.now = CASE
    WHEN wall > clock.now THEN wall
    ELSE clock.now + duration({microseconds: 1})
  END
WITH clock.now AS now
"""

READ_CLOCK: LiteralString = """
OPTIONAL MATCH (clock:Clock {name: 'recorded'})
RETURN clock.now AS now
"""
