"""The `engram` commands a person reads: `export` (a space's memory to take away), `explain`
(why two entities are connected, as a tree with the evidence of every hop) and `changes` (what
changed between two instants, in valid or recorded time).

    engram export --space alice --format markdown --out alice.md
    engram explain alice "Acme Global" --space alice --as-of 2022-06-01T00:00:00Z
    engram changes --space alice --from 2023-01-01 --to 2024-01-01 --axis valid --about Mara

Plain functions; `api.cli.main` registers them under the names in `COMMANDS`. Both read as an
operator at `--tier` (default secret: everything the space holds).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from api.cli.console import AsOf, KnownAt, ReadTier, Tier, instant, out, reader_view, with_memory
from graph.domain.model import Entity
from graph.domain.read_records import Change, Changes, Explanation, Step
from graph.domain.vocabulary import Axis, EvidenceKind, ExportFormat
from graph.domain.wording import interval, quote, supported_first, when

if TYPE_CHECKING:
    from graph.memory import Memory, View


def export_command(
    space: Annotated[str, typer.Option(help="The memory space to export.")],
    as_of: AsOf = None,
    known_at: KnownAt = None,
    export_format: Annotated[
        ExportFormat, typer.Option("--format", help="jsonl (the import format) or markdown.")
    ] = ExportFormat.JSONL,
    out_file: Annotated[
        Path | None, typer.Option("--out", dir_okay=False, help="Write here, not to stdout.")
    ] = None,
    tier: ReadTier = Tier.SECRET,
) -> None:
    """Export a space's current memory: JSONL that `engram import` reads back, or Markdown."""

    async def work(memory: Memory) -> str:
        view = await reader_view(memory, space, as_of, known_at, tier)
        return await memory.reads.export(view, export_format)

    text = with_memory(work)
    if out_file is None:
        sys.stdout.write(text)
        return
    out_file.write_text(text, encoding="utf-8")
    lines = text.count("\n")
    out.print(f"exported {space} ({export_format}, {lines} lines) to {out_file}", markup=False)


def _label(entities: dict[str, Entity], entity_id: str) -> str:
    entity = entities.get(entity_id)
    return f"{entity.name} ({entity.key})" if entity is not None else f"({entity_id})"


def _hop(step: Step, entities: dict[str, Entity]) -> tuple[str, list[str]]:
    """One hop's line and the lines of its claim and evidence."""
    relation = step.relation
    arrow = f"{relation.type}→" if step.forward else f"←{relation.type}─"
    if relation.valid_to is not None:
        start = when(relation.valid_from) if relation.valid_from else "…"
        valid = f", valid {start} – {when(relation.valid_to)}"
    else:
        valid = f", valid from {when(relation.valid_from)}" if relation.valid_from else ""
    details = []
    if step.claim is not None:
        claim = step.claim
        details.append(
            f"claim {claim.key} (revision {claim.revision}, {claim.status}, "
            f"confidence {claim.confidence:g})"
        )
    else:
        details.append("a merge of two entities (no claim)")
    for link in supported_first(step.evidence):
        words = "" if link.kind is EvidenceKind.SUPPORTED_BY else f"{link.kind.lower()} "
        words = words.replace("_", " ")
        source = quote(link.text) if link.text is not None else f"<{link.locator or 'file'}>"
        seen = f", {when(link.observed_at)}" if link.observed_at else ""
        details.append(f"{words}{source} — {link.authority}{seen}")
    return f"└─{arrow} {_label(entities, step.to_id)}{valid}", details


def explanation_tree(explanation: Explanation, entities: dict[str, Entity]) -> list[str]:
    """Every path as a tree: each hop nested under the entity it starts from."""
    lines: list[str] = []
    for number, steps in enumerate(explanation.paths, start=1):
        hops = "hop" if len(steps) == 1 else "hops"
        lines += ["", f"path {number} of {len(explanation.paths)} ({len(steps)} {hops})"]
        lines.append(_label(entities, steps[0].from_id))
        indent = ""
        for index, step in enumerate(steps):
            line, details = _hop(step, entities)
            lines.append(indent + line)
            indent += "   "
            bar = "│ " if index < len(steps) - 1 else "  "
            lines += [indent + bar + detail for detail in details]
    return lines


def explain_command(
    from_: Annotated[str, typer.Argument(metavar="FROM", help="An entity key or current name.")],
    to: Annotated[str, typer.Argument(metavar="TO", help="An entity key or current name.")],
    space: Annotated[
        str | None, typer.Option(help="The memory space (default: the only one).")
    ] = None,
    as_of: AsOf = None,
    known_at: KnownAt = None,
    max_hops: Annotated[int, typer.Option(min=1, max=4, help="Longest path.")] = 3,
    first: Annotated[int, typer.Option(min=1, max=10, help="At most this many paths.")] = 5,
    tier: ReadTier = Tier.SECRET,
) -> None:
    """Explain why two entities are connected: the shortest visible paths, hop by hop, with
    each relation's valid interval and the evidence quotes behind it. Exit 1 when none."""

    async def work(memory: Memory) -> tuple[View, list[Entity], Explanation, dict[str, Entity]]:
        view = await reader_view(memory, space, as_of, known_at, tier)
        ends = []
        for ref in (from_, to):
            by = {"key": ref} if ref.startswith("entity:") else {"name": ref}
            ends.append(await memory.reads.find_entity(view, by))
        found = await memory.reads.explain_relation(
            view, ends[0].id, ends[1].id, max_hops=max_hops, first=first
        )
        # The explanation names the entities on its paths; the ends are named already.
        return view, ends, found, {e.id: e for e in (*ends, *found.entities)}

    view, ends, found, entities = with_memory(work)
    moment = f"as of {when(view.as_of) if as_of else 'now'}"
    moment += f", known at {when(view.known_at) if known_at else 'now'}"
    source, target = (_label(entities, end.id) for end in ends)
    count = len(found.paths)
    header = f"{source} → {target} in {view.space}, {moment}: "
    header += f"{count} path{'s' if count != 1 else ''}" if count else (found.reason or "no path")
    out.print("\n".join([header, *explanation_tree(found, entities)]), markup=False)
    if not found.paths:
        raise typer.Exit(1)


def _change_line(change: Change) -> str:
    at = when(change.at)
    if change.forgetting is not None:
        counts = ", ".join(f"{n} {what}" for what, n in sorted(change.forgetting.counts.items()))
        return (
            f"{at}  FORGOTTEN  a {change.forgetting.selector_kind} selector: {counts or 'nothing'}"
        )
    assert change.claim is not None
    claim = change.claim
    line = f"{at}  {change.kind.value:<9}  {claim.text}{interval(claim)}"
    line += f"  ({claim.key}, revision {claim.revision}, {claim.status})"
    if change.previous is not None:
        line += (
            f"\n{' ' * len(at)}  {'replaced':<9}  {change.previous.text}{interval(change.previous)}"
        )
    return line


def changes_command(
    from_: Annotated[str, typer.Option("--from", help="Start, inclusive (ISO-8601 or date).")],
    to: Annotated[str, typer.Option("--to", help="End, exclusive (ISO-8601 or date).")],
    space: Annotated[
        str | None, typer.Option(help="The memory space (default: the only one).")
    ] = None,
    axis: Annotated[
        Axis,
        typer.Option(
            case_sensitive=False,
            help="VALID: what began or ended being so in the world; RECORDED: what was "
            "learned, corrected or forgotten.",
        ),
    ] = Axis.RECORDED,
    about: Annotated[
        str | None, typer.Option(help="Only changes about this entity (key or name).")
    ] = None,
    known_at: KnownAt = None,
    first: Annotated[int, typer.Option(min=1, max=500, help="At most this many.")] = 100,
    tier: ReadTier = Tier.SECRET,
) -> None:
    """What changed between two instants, in valid time or recorded time, oldest first."""
    start, end = instant(from_, "--from"), instant(to, "--to")
    assert start is not None and end is not None

    async def work(memory: Memory) -> tuple[View, Changes]:
        view = await reader_view(memory, space, None, known_at, tier)
        subject = None if about is None else _ref(about)
        return view, await memory.reads.changes(
            view, start, end, axis=axis, about=subject, first=first
        )

    view, found = with_memory(work)
    axis_words = "valid time" if axis is Axis.VALID else "recorded time"
    count = len(found.changes)
    header = f"{count} change{'s' if count != 1 else ''} in {view.space}, {when(start)} – "
    header += f"{when(end)} ({axis_words}, known at {when(view.known_at) if known_at else 'now'})"
    if found.truncated:
        header += f"; the first {first} shown"
    out.print("\n".join([header, *(_change_line(c) for c in found.changes)]), markup=False)


def _ref(text: str) -> dict[str, str]:
    return {"key": text} if text.startswith("entity:") else {"name": text}


COMMANDS: dict[str, Callable[..., None]] = {
    "export": export_command,
    "explain": explain_command,
    "changes": changes_command,
}
