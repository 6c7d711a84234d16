"""The `engram` commands a person at a terminal uses on a space's memory: `search` and `forget`.

    engram search "where does alice work" --space alice
    engram forget --space alice --claim <claim id> --reason "she asked us to"

Plain functions; `api.cli.main` registers them under the names in `COMMANDS`. `search` reads as
a reader at `--tier` (default secret); `forget` acts as the operator at the machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from api.cli.console import AsOf, KnownAt, ReadTier, Tier, out, reader_view, with_memory
from graph.domain.actor import Actor
from graph.domain.model import MemoryType, SelectorKind
from graph.domain.read_records import DEFAULT_SEARCH_FIRST, Hit
from graph.memory import Memory


def search_command(
    query: Annotated[str, typer.Argument(help="Words, a question, or a name.")],
    space: Annotated[
        str | None, typer.Option(help="The memory space (default: the only one).")
    ] = None,
    memory_type: Annotated[
        list[MemoryType] | None,
        typer.Option("--type", case_sensitive=False, help="Only claims of this type (repeatable)."),
    ] = None,
    first: Annotated[int, typer.Option(min=1, max=50, help="At most this many hits.")] = (
        DEFAULT_SEARCH_FIRST
    ),
    as_of: AsOf = None,
    known_at: KnownAt = None,
    tier: ReadTier = Tier.SECRET,
) -> None:
    """Search a space's visible claims by text and meaning: one line per hit, best first, with
    its score, key, status and text."""

    async def work(memory: Memory) -> list[Hit]:
        view = await reader_view(memory, space, as_of, known_at, tier)
        return await memory.search(view, query, types=memory_type or None, first=first)

    hits = with_memory(work)
    if not hits:
        out.print("no visible claim matches", markup=False)
    for hit in hits:
        claim = hit.claim
        text = " ".join(claim.text.split())
        out.print(
            f"{hit.score:.4f}  {claim.key} (revision {claim.revision}, {claim.status.lower()})"
            f"  {text}  [{', '.join(hit.sources)}]",
            markup=False,
        )


def forget_command(
    reason: Annotated[str, typer.Option(help="Why (kept on the tombstone; never the content).")],
    space: Annotated[str, typer.Option(help="The memory space.")],
    claim: Annotated[
        str | None, typer.Option(help="A claim id: every revision of its key.")
    ] = None,
    observation: Annotated[str | None, typer.Option(help="An observation id.")] = None,
    episode: Annotated[
        str | None, typer.Option(help="An episode id, with its observations.")
    ] = None,
    artifact: Annotated[str | None, typer.Option(help="An artifact id.")] = None,
    entity: Annotated[str | None, typer.Option(help="An entity id, with what names it.")] = None,
    whole_space: Annotated[
        bool, typer.Option(help="Everything in the space, and the space.")
    ] = False,
) -> None:
    """Erase what one selector selects, in every revision; it never comes back (a tombstone
    records that it happened, never what it was)."""
    chosen: list[tuple[SelectorKind, str | None]] = [
        (kind, value)
        for kind, value in (
            (SelectorKind.CLAIM, claim),
            (SelectorKind.OBSERVATION, observation),
            (SelectorKind.EPISODE, episode),
            (SelectorKind.ARTIFACT, artifact),
            (SelectorKind.ENTITY, entity),
        )
        if value is not None
    ]
    if whole_space:
        chosen.append((SelectorKind.SPACE, None))
    if len(chosen) != 1:
        raise typer.BadParameter(
            "name exactly one of --claim, --observation, --episode, --artifact, --entity or "
            "--whole-space"
        )
    [(kind, selected)] = chosen
    selector: dict[str, Any] = {"kind": kind.value}
    if selected is not None:
        selector["id"] = selected
    request = {"selector": selector, "reason": reason}
    receipt = with_memory(
        lambda memory: memory.forget(Actor.operator("cli:forget"), space, request)
    )
    erased = ", ".join(f"{count} {what}" for what, count in receipt.erased.items() if count)
    out.print(
        f"forgot ({erased or 'nothing left to erase'}); {receipt.made_inactive} claims left "
        f"without evidence became inactive; tombstone {receipt.tombstone_id}",
        markup=False,
    )


COMMANDS: dict[str, Callable[..., None]] = {
    "search": search_command,
    "forget": forget_command,
}
