"""The `export` query: a space's current memory, as the key's tier sees it, to take away.

    { export(space: "alice", format: MARKDOWN) }   # or JSONL: lines `engram import` reads back

A key with read on the space gets exactly what its tier sees at `asOf`/`knownAt` (nothing
forgotten, nothing above the tier); a key without it gets `FORBIDDEN`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.graphql.types import EngramInfo
from graph.memory import ExportFormat


async def export_memory(
    info: EngramInfo,
    space: str,
    format_: Annotated[ExportFormat, strawberry.argument(name="format")] = ExportFormat.JSONL,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
) -> str | None:
    view = await info.context.view(space, as_of, known_at)
    return await info.context.memory.reads.export(view, format_)


export_field = strawberry.field(
    resolver=export_memory,
    description="The current memory of a space as this key's tier sees it: JSONL in the import "
    "format, or a Markdown document.",
)
