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

import signal
import sys
from importlib import metadata
from pathlib import Path
from typing import Annotated

import typer

from api.cli._stopping import stopped_by_signals
from api.cli.admin_commands import keys_app, neo4j_app, spaces_app
from api.cli.console import err, out, with_memory
from api.cli.data_commands import COMMANDS as DATA_COMMANDS
from api.cli.export_commands import COMMANDS as READING_COMMANDS
from api.cli.mcp_command import COMMANDS as MCP_COMMANDS
from api.cli.memory_commands import COMMANDS as MEMORY_COMMANDS
from graph.domain.errors import EngramError, SetupError

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


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface (ENGRAM_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="HTTP port (ENGRAM_PORT).")] = None,
    dev: Annotated[
        bool | None, typer.Option("--dev/--no-dev", help="GraphiQL and introspection (ENGRAM_DEV).")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(min=1, max=32, help="Processes serving requests (ENGRAM_WORKERS)."),
    ] = None,
    keep_neo4j: Annotated[
        bool, typer.Option(help="Leave a local Neo4j this command started running at exit.")
    ] = False,
) -> None:
    """Start Neo4j if needed, migrate, and serve /graphql, /browser, /healthz, /readyz.

    Stopped by SIGTERM or SIGINT, it stops the local Neo4j it started (unless --keep-neo4j).
    """
    from api.cli import serving
    from graph.runtime import LocalNeo4j, get_settings, resolve_target

    settings = get_settings()
    overrides = {
        key: value
        for key, value in {"host": host, "port": port, "dev": dev, "workers": workers}.items()
        if value is not None
    }
    settings = settings.model_copy(update=overrides)
    local = LocalNeo4j(settings)
    target = None
    try:
        with stopped_by_signals():
            # A signal while the local Neo4j boots ends the boot, which stops that Neo4j.
            target = resolve_target(settings)
            serving.serve(settings, target, local)
    finally:
        started_here = target is not None and target.local is not None and target.local.started_here
        if started_here and not keep_neo4j:
            # A second Ctrl-C must not cut the clean shutdown of the store short.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            local.stop()
            out.print("Neo4j stopped (it was started by this command; --keep-neo4j keeps it)")


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
