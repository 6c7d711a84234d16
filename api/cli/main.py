"""The `engram` command.

    engram serve                 # local Neo4j (unless NEO4J_URI), migrate, serve GraphQL + Browser
    engram migrate               # apply pending migrations
    engram neo4j start|stop|status
    engram spaces create NAME [--description TEXT] | engram spaces list
    engram schema [--write]      # print (or write) schema.graphql
    engram mcp [--api-key KEY]   # MCP over stdio (api.cli.mcp_command)

The data commands (import, embed, backup, restore, retention) live in `api.cli.data_commands`, the
reading ones (export, explain, changes) in `api.cli.export_commands`, `search` and `forget` in
`api.cli.memory_commands`, the administrative ones (neo4j, spaces, keys) in
`api.cli.admin_commands`. Setup failures (Neo4j
unreachable, wrong password, edited migration) print one clear message and exit with status 1.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from api.cli._stopping import stopped_by_signals
from api.cli.admin_commands import keys_app, neo4j_app, spaces_app
from api.cli.console import err, out, with_memory
from api.cli.data_commands import COMMANDS as DATA_COMMANDS
from api.cli.export_commands import COMMANDS as READING_COMMANDS
from api.cli.mcp_command import COMMANDS as MCP_COMMANDS
from api.cli.memory_commands import COMMANDS as MEMORY_COMMANDS
from graph.domain.errors import EngramError, SetupError

if TYPE_CHECKING:  # imported when a command runs: `--help` and `--version` stay quick
    from api.graphiql_assets import GraphiQLAssets
    from graph.runtime import LocalNeo4j, Migration, Neo4jTarget, Settings

T = TypeVar("T")

app = typer.Typer(
    help="Engram: auditable long-term memory for AI agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _version(wanted: bool) -> None:
    if wanted:
        sys.stdout.write(f"engram {metadata.version('engramdb')}\n")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Engram: auditable long-term memory for AI agents."""


app.add_typer(neo4j_app, name="neo4j")
app.add_typer(spaces_app, name="spaces")
app.add_typer(keys_app, name="keys")


async def _connect_and_migrate(settings: Settings, target: Neo4jTarget) -> list[Migration]:
    from graph.memory import Memory

    async with await Memory.open(settings, target) as memory:
        return await memory.admin.migrate()


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface (ENGRAM_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="HTTP port (ENGRAM_PORT).")] = None,
    dev: Annotated[
        bool | None, typer.Option("--dev/--no-dev", help="GraphiQL and introspection (ENGRAM_DEV).")
    ] = None,
    keep_neo4j: Annotated[
        bool, typer.Option(help="Leave a local Neo4j this command started running at exit.")
    ] = False,
) -> None:
    """Start Neo4j if needed, migrate, and serve /graphql, /browser, /healthz, /readyz.

    Stopped by SIGTERM or SIGINT, it stops the local Neo4j it started (unless --keep-neo4j).
    """
    from graph.runtime import LocalNeo4j, get_settings, resolve_target

    settings = get_settings()
    overrides = {
        key: value
        for key, value in {"host": host, "port": port, "dev": dev}.items()
        if value is not None
    }
    settings = settings.model_copy(update=overrides)
    local = LocalNeo4j(settings)
    target = None
    try:
        with stopped_by_signals():
            # A signal while the local Neo4j boots ends the boot, which stops that Neo4j.
            target = resolve_target(settings)
            _serve(settings, target, local)
    finally:
        started_here = target is not None and target.local is not None and target.local.started_here
        if started_here and not keep_neo4j:
            # A second Ctrl-C must not cut the clean shutdown of the store short.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            local.stop()
            out.print("Neo4j stopped (it was started by this command; --keep-neo4j keeps it)")


def _serve(settings: Settings, target: Neo4jTarget, local: LocalNeo4j) -> None:
    import uvicorn

    from api.app import browser_url, create_app
    from graph.runtime import guide_origin

    # Connect and migrate before uvicorn starts, so a bad NEO4J_* setting or a refused migration
    # ends here with one clear message (inside the lifespan it would be uvicorn's traceback).
    for migration in asyncio.run(_connect_and_migrate(settings, target)):
        out.print(f"applied {migration.name}")
    browser_dir = local.browser_dir() if settings.browser else None
    graphiql = _graphiql(settings)
    base = f"http://{settings.host}:{settings.port}"
    if target.local is not None:
        how = "started" if target.local.started_here else "found running"
        out.print(
            f"Neo4j {target.local.version} {how} at {target.uri} "
            f"(user neo4j, password in {local.home / 'password'})"
        )
    else:
        out.print(f"Neo4j at {target.uri} (database {target.database})")
    out.print(f"GraphQL  {base}/graphql" + ("  (GraphiQL on)" if graphiql else ""))
    if browser_dir is not None:
        origin = guide_origin(settings.host, settings.port)
        out.print(f"Browser  {browser_url(target, origin)}")
    out.print(
        "[bold yellow]dev mode[/]: "
        + ("GraphiQL and introspection are on" if graphiql else "introspection is on")
        + "; no API key is asked — every request acts on every space (only on your own machine)"
        if settings.dev
        else "production mode: GraphiQL and introspection are off (use --dev locally)"
    )
    # Engram's own logs (the JSON access log among them) go to stderr, one line each;
    # uvicorn's access log would repeat it without the principal.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    engram_log = logging.getLogger("engram")
    engram_log.addHandler(handler)
    engram_log.setLevel(settings.log_level)  # ENGRAM_LOG_LEVEL; WARNING drops access lines
    uvicorn.run(
        create_app(settings, target, browser_dir=browser_dir, graphiql=graphiql),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        access_log=False,
    )


def _graphiql(settings: Settings) -> GraphiQLAssets | None:
    """GraphiQL's assets in dev mode (fetched on first use); without Maven (as in the Docker
    image) dev mode goes on without GraphiQL and says why."""
    from api.graphiql_assets import graphiql_assets

    if not settings.dev:
        return None
    try:
        return graphiql_assets(settings.cache_dir)
    except SetupError as failure:
        err.print(f"[yellow]GraphiQL is off[/]: {failure}")
        return None


@app.command()
def migrate() -> None:
    """Apply pending migrations (each in its own transaction); a no-op when up to date."""
    applied = with_memory(lambda memory: memory.admin.migrate())
    if not applied:
        out.print("migrations: up to date")
    for migration in applied:
        out.print(f"applied {migration.name}")


@app.command()
def schema(
    write: Annotated[bool, typer.Option(help="Write schema.graphql instead of printing.")] = False,
    path: Annotated[Path, typer.Option(help="Where --write puts it.")] = Path("schema.graphql"),
) -> None:
    """Print the GraphQL schema (SDL) exported from the code."""
    from api.graphql.schema import sdl

    if write:
        path.write_text(sdl())
        out.print(f"wrote {path}")
    else:
        sys.stdout.write(sdl())


# The data commands (import, embed, backup, restore, retention) after serve, migrate, schema;
# then the reading ones (export, explain, search, forget), then `mcp` (stdio).
for _name, _command in {
    **DATA_COMMANDS,
    **READING_COMMANDS,
    **MEMORY_COMMANDS,
    **MCP_COMMANDS,
}.items():
    app.command(_name)(_command)


def main() -> None:
    """Console entry point: typed failures become one message and a non-zero exit."""
    try:
        app()
    except SetupError as failure:
        err.print(f"engram: {failure}", style="bold red", highlight=False, markup=False)
        sys.exit(1)
    except EngramError as failure:
        err.print(f"engram: {failure.code}: {failure.message}", highlight=False, markup=False)
        sys.exit(1)
