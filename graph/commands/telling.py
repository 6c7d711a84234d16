"""What telling a fact of a one-value key does to the facts told before it (ENGRAM.md §2).

Told facts of a key stand side by side; a view chooses between them at read time
(`graph.domain.timeline`), so a new fact ends none of them. Only the fact told before at the same
`validFrom`, in the writer's own tier line, meets the new one:

* the same value and the same end: the new telling **corroborates** it (its evidence is added to
  that row; no new revision);
* another value or another end: the new telling **replaces** it (that row is superseded and the
  new row revises it — how an agent says "left Acme in 2022": Acme `[2020, 2022)` after Acme
  `[2020, …)`);
* no fact at that `validFrom`: a new told fact.

Pure planning over the rows a transaction read; no Neo4j.

    told_at_same_start(line, ClaimContent(alice, "WORKS_AT", acme, None), Interval(t, None))
    Replaces(rows=[])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from graph.commands.claim_rows import ClaimContent, ClaimRow
from graph.domain.intervals import Interval
from graph.domain.vocabulary import ClaimStatus


@dataclass(frozen=True)
class Telling:
    """How a row of a batch was told."""

    seq: int
    """Its place in the batch (of two facts told at once at the same start, the later wins)."""
    by_naming: bool = False
    """An entity claim the batch writes because a fact named a new entity."""


@dataclass(frozen=True)
class Corroborates:
    """The new telling says what `row` says, over the same time."""

    row: ClaimRow


@dataclass(frozen=True)
class Replaces:
    """The new telling is a new row replacing `rows` (none: a new told fact)."""

    rows: list[ClaimRow] = field(default_factory=list)


def told_at_same_start(
    line: Sequence[ClaimRow], content: ClaimContent, interval: Interval
) -> Corroborates | Replaces:
    """What a new telling of `content` over `interval` does to the current rows of its tier
    line (`KeyState.line`)."""
    same_start = [row for row in line if row.valid_from == interval.start]
    for row in same_start:
        if (
            content.matches(row)
            and row.valid_to == interval.end
            and row.status is not ClaimStatus.RETRACTED
        ):
            return Corroborates(row)
    return Replaces(same_start)
