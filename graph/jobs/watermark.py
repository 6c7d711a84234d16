"""What the graph held at one recorded instant (a backup's watermark), read while writes go on.

Recorded time makes a consistent backup possible without stopping writers: a backup's barrier
(`graph.store.clock.BARRIER`) sets every clock to one instant `W` while it holds them all, so
once it commits every write recorded at or before `W` has committed and every later one, in any
space, is recorded after `W`. Rows
are never edited except by stamping a later recorded instant on them, so each row read later
can be put back as it was at `W`:

* a node or relationship recorded after `W` is left out (and so is a relationship whose end is);
* `supersededAt`, `archivedAt`, a hold's `releasedAt`, a merge's undo, an episode's seal (and
  its being superseded by a newer episode's seal) stamped after `W` are taken off again, and an
  episode's `observationCount` counts only observations recorded by `W`;
* erasure is the exception: what was forgotten after `W` stays erased (its content is gone) and
  its tombstone goes into the archive's ledger, so forgetting never comes back through a backup.
  API keys are kept as they are now (a key revoked after `W` stays revoked).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, LiteralString

from neo4j.time import DateTime

from graph.domain.timeutil import to_native

RECORDED_BY_WATERMARK: LiteralString = (
    "coalesce(n.recordedAt, n.at) IS NULL OR coalesce(n.recordedAt, n.at) <= $watermark"
)
"""Cypher for node `n`: recorded (an audit event: happened) at or before `$watermark`."""


def _after(value: Any, watermark: datetime) -> bool:
    if isinstance(value, DateTime):
        return to_native(value) > watermark
    return isinstance(value, datetime) and value > watermark


def node_at(
    labels: list[str],
    props: dict[str, Any],
    watermark: datetime,
    *,
    observations_after: int = 0,
    numbered_by_then: list[list[int]] | None = None,
    superseded_by_then: bool = True,
) -> dict[str, Any]:
    """`props` of a node recorded by `watermark`, as they were at `watermark`.

    `observations_after`: an episode's observations recorded after it; `numbered_by_then`: the
    `[privacy, seq]` of those recorded by it; `superseded_by_then`:
    whether the newer episode that superseded this one was sealed by `watermark`.
    """
    props = dict(props)
    if "Clock" in labels:
        props["now"] = watermark
    if "Space" in labels and _after(props.get("clockNow"), watermark):
        props["clockNow"] = watermark
    for stamp, companions in (
        ("supersededAt", ()),
        ("archivedAt", ()),
        ("releasedAt", ("releaseReason",)),
    ):
        if _after(props.get(stamp), watermark):
            for name in (stamp, *companions):
                props.pop(name, None)
    if "Episode" in labels:
        if props.get("status") == "superseded" and not superseded_by_then:
            props["status"] = "sealed"
            props.pop("supersededByEpisodeId", None)
        if _after(props.get("sealedAt"), watermark):
            props["status"] = "open"
            props.pop("sealedAt", None)
            props.pop("endedAt", None)
        if observations_after and "observationCounts" in props:
            # Numbered per tier: each tier's count is the highest number it had given by then.
            counts = [0] * len(props["observationCounts"])
            for privacy, seq in numbered_by_then or []:
                counts[int(privacy)] = max(counts[int(privacy)], int(seq))
            props["observationCounts"] = counts
        elif observations_after:
            props["observationCount"] = int(props.get("observationCount") or 0) - observations_after
    return props


def relationship_at(kind: str, props: dict[str, Any], watermark: datetime) -> dict[str, Any]:
    """`props` of a relationship recorded by `watermark`, as they were at `watermark`."""
    props = dict(props)
    if _after(props.get("supersededAt"), watermark):
        props.pop("supersededAt", None)
        if "current" in props:
            props["current"] = True
        if kind == "MERGED_INTO":
            props.pop("undoReason", None)
    return props
