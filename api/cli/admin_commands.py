"""The `engram` commands that administer: the local Neo4j, spaces, API keys."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from api.cli.console import Tier, err, out, with_memory
from graph.domain.actor import Actor

if TYPE_CHECKING:
    from graph.memory import Memory

neo4j_app = typer.Typer(help="The local Neo4j (used when NEO4J_URI is not set).")
spaces_app = typer.Typer(help="Memory spaces.")
keys_app = typer.Typer(help="API keys: read or write on named spaces up to a privacy tier.")


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j (or report the running one) and print its Bolt URI."""
    from graph.runtime import LocalNeo4j, get_settings

    server = LocalNeo4j(get_settings())
    running = server.start()
    verb = "started" if running.started_here else "already running"
    out.print(
        f"Neo4j {running.version} {verb}: {running.uri} (pid {running.pid}, "
        f"{running.startup_ms} ms to ready; password in {server.home / 'password'})"
    )


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j cleanly."""
    from graph.runtime import LocalNeo4j, get_settings

    stopped = LocalNeo4j(get_settings()).stop()
    out.print("Neo4j stopped" if stopped else "Neo4j was not running")


@neo4j_app.command("status")
def neo4j_status(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Say whether the local Neo4j runs; exit 3 when it does not."""
    from graph.runtime import LocalNeo4j, get_settings

    running = LocalNeo4j(get_settings()).status()
    if as_json:
        sys.stdout.write(json.dumps(running.state() if running else {"running": False}) + "\n")
    elif running:
        out.print(f"Neo4j {running.version} running: {running.uri} (pid {running.pid})")
    else:
        out.print("Neo4j is not running")
    if running is None:
        raise typer.Exit(3)


@spaces_app.command("create")
def spaces_create(
    name: str,
    description: Annotated[str, typer.Option(help="What this space remembers.")] = "",
) -> None:
    """Create a memory space."""
    space = with_memory(
        lambda memory: memory.writes.create_space(Actor.operator("cli"), name, description)
    )
    out.print(f"created space {space.name} ({space.id})")


@spaces_app.command("list")
def spaces_list() -> None:
    """List memory spaces."""
    for space in with_memory(lambda memory: memory.admin.all_spaces()):
        out.print(f"{space.name}\t{space.description}")


@keys_app.command("create")
def keys_create(
    space: Annotated[list[str], typer.Option(help="A space the key grants (repeatable).")],
    tier: Annotated[Tier, typer.Option(help="Highest privacy tier the key reads.")] = Tier.NORMAL,
    write: Annotated[bool, typer.Option(help="Also allow writes to these spaces.")] = False,
    legal: Annotated[
        bool, typer.Option(help="Also allow placing and releasing legal holds.")
    ] = False,
    rules: Annotated[
        bool, typer.Option(help="Also allow declaring predicate rules (and see them all).")
    ] = False,
    name: Annotated[str, typer.Option(help="Who or what the key is for.")] = "",
) -> None:
    """Issue an API key; its secret is printed once and only its hash is kept."""
    from graph.domain.actor import Grant
    from graph.domain.vocabulary import Privacy

    grants = [Grant(s, Privacy[tier.name], write=write, legal=legal, rules=rules) for s in space]

    async def issue(memory: Memory) -> Any:
        known = {s.name for s in await memory.admin.all_spaces()}
        unknown = [s for s in space if s not in known]
        if unknown:
            raise typer.BadParameter(
                f"no space named {', '.join(unknown)} (engram spaces create NAME)",
                param_hint="--space",
            )
        return await memory.admin.create_key(name, grants)

    issued = with_memory(issue)
    sys.stdout.write(issued.secret + "\n")
    err.print(
        f"key {issued.key_id}: {'read+write' if write else 'read'} on {', '.join(space)} "
        f"up to {tier.value}; store the secret now, it is not kept",
        markup=False,
    )


@keys_app.command("list")
def keys_list() -> None:
    """List keys (ids, names, grants; never secrets)."""
    keys = with_memory(lambda memory: memory.admin.list_keys())
    if not keys:
        err.print("no API keys yet (engram keys create --space S --tier T)", markup=False)
    for key in keys:
        state = "revoked" if key["revoked"] else "active"
        grants = ", ".join(
            f"{g['space']}:{g['tier']}{':write' if g['write'] else ''}"
            f"{':legal' if g.get('legal') else ''}{':rules' if g.get('rules') else ''}"
            for g in key["grants"]
        )
        # Verbatim: rich would read `alice:secret:` as an emoji code and colour the ids.
        sys.stdout.write(f"{key['keyId']}\t{state}\t{key['name']}\t{grants}\n")


@keys_app.command("revoke")
def keys_revoke(key_id: str) -> None:
    """Revoke a key by its id (the part after `egk_`)."""
    revoked = with_memory(lambda memory: memory.admin.revoke_key(key_id))
    out.print(f"revoked {key_id}" if revoked else f"no active key {key_id}")
    if not revoked:
        raise typer.Exit(1)
