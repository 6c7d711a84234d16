"""The `engram` commands a person at a terminal uses on a space's memory: `remember`, `search`
and `forget`.

    engram remember --space alice "Alice" WORKS_AT "Acme" --subject-kind person \
        --object-kind org --evidence "Alice: I started at Acme this week"
    engram search "where does alice work" --space alice
    engram forget --space alice --claim <claim id> --reason "she asked us to"

Plain functions; `api.cli.main` registers them under the names in `COMMANDS`. `search` reads as
a reader at `--tier` (default secret); `remember` and `forget` act as the operator at the
machine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from api.cli.console import AsOf, KnownAt, ReadTier, Tier, instant, out, reader_view, with_memory
from graph.domain.actor import Actor
from graph.domain.read_records import DEFAULT_SEARCH_FIRST, Hit
from graph.domain.vocabulary import EntityKind, MemoryType, Privacy, Role, SelectorKind
from graph.domain.wording import interval

if TYPE_CHECKING:
    from graph.memory import Memory


def remember_command(
    subject: Annotated[str, typer.Argument(help="The subject's name (or alias).")],
    predicate: Annotated[str, typer.Argument(help="UPPER_SNAKE_CASE, e.g. WORKS_AT.")],
    obj: Annotated[
        str | None, typer.Argument(metavar="[OBJECT]", help="The object's name (or --value).")
    ] = None,
    evidence: Annotated[
        str, typer.Option(help="What was said or read that shows it (recorded as evidence).")
    ] = "",
    space: Annotated[str, typer.Option(help="The memory space.")] = "",
    subject_kind: Annotated[
        EntityKind | None,
        typer.Option(case_sensitive=False, help="Create the subject as this kind if unknown."),
    ] = None,
    object_kind: Annotated[
        EntityKind | None,
        typer.Option(case_sensitive=False, help="Create the object as this kind if unknown."),
    ] = None,
    value: Annotated[
        str | None, typer.Option(help="A literal object instead (JSON, or plain text).")
    ] = None,
    role: Annotated[Role, typer.Option(case_sensitive=False, help="Who said it.")] = Role.USER,
    valid_from: Annotated[
        str | None,
        typer.Option(help="When it became true (ISO-8601, or YYYY-MM-DD / YYYY-MM; default now)."),
    ] = None,
    privacy: Annotated[
        Tier, typer.Option(case_sensitive=False, help="Who may read it.")
    ] = Tier.NORMAL,
) -> None:
    """Remember a fact by names, with the text that shows it as evidence, in one transaction:
    entities named with a kind are created when no entity has that name."""
    if not space or not evidence.strip():
        raise typer.BadParameter("--space and --evidence are needed")
    if (obj is None) == (value is None):
        raise typer.BadParameter("give an OBJECT name or --value, not both")
    item: dict[str, Any] = {
        "type": "fact",
        "subject": _named(subject, subject_kind),
        "predicate": predicate,
        "evidence": [{"text": evidence, "role": role}],
        "privacy": Privacy[privacy.name],
    }
    if obj is not None:
        item["object"] = _named(obj, object_kind)
    else:
        item["value"] = _literal(value or "")
    if valid_from is not None:
        item["valid_from"] = instant(valid_from, "--valid-from")
    [claim] = with_memory(
        lambda memory: memory.writes.remember(Actor.operator("cli:remember"), space, [item])
    )
    out.print(
        f"remembered {claim.key} (revision {claim.revision}, {claim.status.lower()}, "
        f"id {claim.id}): {claim.text}{interval(claim)}",
        markup=False,
    )


def _named(name: str, kind: EntityKind | None) -> dict[str, str]:
    return {"name": name} | ({"kind": kind.value} if kind is not None else {})


def _literal(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


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
        return await memory.reads.search(view, query, types=memory_type or None, first=first)

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
        str | None,
        typer.Option(help="A claim id (that told fact, every revision) or key (every told fact)."),
    ] = None,
    claim_key: Annotated[
        str | None, typer.Option(help="A claim key: every told fact of it, every revision.")
    ] = None,
    observation: Annotated[str | None, typer.Option(help="An observation id.")] = None,
    episode: Annotated[
        str | None, typer.Option(help="An episode id, with its observations.")
    ] = None,
    artifact: Annotated[str | None, typer.Option(help="An artifact id.")] = None,
    entity: Annotated[
        str | None,
        typer.Option(help="An entity's id, key (entity:…) or name, with what names it."),
    ] = None,
    whole_space: Annotated[
        bool, typer.Option(help="Everything in the space, and the space.")
    ] = False,
) -> None:
    """Erase what one selector selects, in every revision, and what existed only because of it;
    it never comes back (a tombstone records that it happened, never what it was)."""
    chosen: list[tuple[SelectorKind, str | None]] = [
        (kind, value)
        for kind, value in (
            (SelectorKind.CLAIM, claim),
            (SelectorKind.CLAIM, claim_key),
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
            "name exactly one of --claim, --claim-key, --observation, --episode, --artifact, "
            "--entity or --whole-space"
        )
    [(kind, selected)] = chosen
    selector: dict[str, Any] = {"kind": kind.value}
    if selected is not None:
        selector[_named_by(kind, selected, selected == claim_key)] = selected
    request = {"selector": selector, "reason": reason}
    receipt = with_memory(
        lambda memory: memory.forgetting.forget(Actor.operator("cli:forget"), space, request)
    )
    if receipt.whole_space:
        out.print(
            f"forgot space {space}: every claim, observation, episode, artifact and entity in "
            f"it, in every revision; tombstone {receipt.tombstone_id}",
            markup=False,
        )
        return
    erased = ", ".join(f"{count} {what}" for what, count in receipt.erased.items() if count)
    out.print(
        f"forgot ({erased or 'nothing left to erase'}); {receipt.made_inactive} claims left "
        f"without evidence became inactive; tombstone {receipt.tombstone_id}",
        markup=False,
    )


def _named_by(kind: SelectorKind, given: str, is_key: bool) -> str:
    """What `given` names a resource by: a claim's key has `:`, an entity's key starts with
    `entity:`, an entity named otherwise than by an id (a UUID) is named by its name."""
    if kind is SelectorKind.CLAIM:
        return "key" if is_key or ":" in given else "id"
    if kind is SelectorKind.ENTITY:
        if given.startswith("entity:"):
            return "key"
        return "id" if _UUID.fullmatch(given) else "name"
    return "id"


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


COMMANDS: dict[str, Callable[..., None]] = {
    "remember": remember_command,
    "search": search_command,
    "forget": forget_command,
}
