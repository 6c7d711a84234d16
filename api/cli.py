"""The `engram` command.

    engram serve                 # local Neo4j (unless NEO4J_URI), migrate, serve GraphQL + Browser
    engram migrate               # apply pending migrations
    engram neo4j start|stop|status
    engram spaces create NAME [--description TEXT] | engram spaces list
    engram schema [--write]      # print (or write) schema.graphql

Setup failures (Neo4j unreachable, wrong password, edited migration) print one clear message and
exit with status 1.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from api._stopping import stopped_by_signals
from graph.actor import Actor
from graph.db import Graph, Neo4jTarget, connect, resolve_target
from graph.errors import EngramError, SetupError
from graph.local.server import LocalNeo4j
from graph.migrate import Migration
from graph.migrate import migrate as apply_migrations
from graph.neomodel_bridge import release_driver, share_driver
from graph.settings import Settings, get_settings

T = TypeVar("T")

app = typer.Typer(
    help="Engram: auditable long-term memory for AI agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
neo4j_app = typer.Typer(help="The local Neo4j (used when NEO4J_URI is not set).")
spaces_app = typer.Typer(help="Memory spaces.")
keys_app = typer.Typer(help="API keys: read or write on named spaces up to a privacy tier.")


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

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def _with_graph(work: Callable[[Graph], Awaitable[T]]) -> T:
    """Connect (starting the local Neo4j if needed), run `work`, close."""

    async def main() -> T:
        graph = await connect(resolve_target(get_settings()))
        try:
            await share_driver(graph)
            return await work(graph)
        finally:
            await release_driver()
            await graph.close()

    return asyncio.run(main())


async def _connect_and_migrate(target: Neo4jTarget) -> list[Migration]:
    graph = await connect(target)
    try:
        return await apply_migrations(graph)
    finally:
        await graph.close()


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
    settings = get_settings()
    overrides = {
        key: value
        for key, value in {"host": host, "port": port, "dev": dev}.items()
        if value is not None
    }
    settings = settings.model_copy(update=overrides)
    target = resolve_target(settings)
    started_here = target.local is not None and target.local.started_here
    local = LocalNeo4j(settings)
    try:
        with stopped_by_signals():
            _serve(settings, target, local)
    finally:
        if started_here and not keep_neo4j:
            # A second Ctrl-C must not cut the clean shutdown of the store short.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            local.stop()
            out.print("Neo4j stopped (it was started by this command; --keep-neo4j keeps it)")


def _serve(settings: Settings, target: Neo4jTarget, local: LocalNeo4j) -> None:
    import uvicorn

    from api.app import browser_url, create_app

    # Connect and migrate before uvicorn starts, so a bad NEO4J_* setting or a refused migration
    # ends here with one clear message (inside the lifespan it would be uvicorn's traceback).
    for migration in asyncio.run(_connect_and_migrate(target)):
        out.print(f"applied {migration.name}")
    browser_dir = local.browser_dir() if settings.browser else None
    base = f"http://{settings.host}:{settings.port}"
    if target.local is not None:
        how = "started" if target.local.started_here else "found running"
        out.print(
            f"Neo4j {target.local.version} {how} at {target.uri} "
            f"(user neo4j, password in {local.home / 'password'})"
        )
    else:
        out.print(f"Neo4j at {target.uri} (database {target.database})")
    out.print(f"GraphQL  {base}/graphql" + ("  (GraphiQL on)" if settings.dev else ""))
    if browser_dir is not None:
        out.print(f"Browser  {browser_url(target, base)}")
    out.print(
        "[bold yellow]dev mode[/]: GraphiQL and introspection are on"
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
        create_app(settings, target, browser_dir=browser_dir),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        access_log=False,
    )


@app.command()
def migrate() -> None:
    """Apply pending migrations (each in its own transaction); a no-op when up to date."""
    applied = _with_graph(apply_migrations)
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
    from api.schema import sdl

    if write:
        path.write_text(sdl())
        out.print(f"wrote {path}")
    else:
        sys.stdout.write(sdl())


@contextmanager
def _bar() -> Iterator[Any]:
    """A rich progress bar with a count and the time left, on stderr."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
    ) as bar:
        yield bar


@app.command("import")
def import_file(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="JSONL memory items.")],
    space: Annotated[str, typer.Option(help="The memory space to import into.")],
    batch_size: Annotated[int, typer.Option(min=1, max=5000, help="Items per transaction.")] = 200,
    report: Annotated[
        Path | None, typer.Option(help="Also write the report as JSON to this file.")
    ] = None,
    strict: Annotated[bool, typer.Option(help="Exit 2 if any line was refused.")] = False,
) -> None:
    """Import memory items (one JSON object per line); idempotent, with a report of refusals."""
    from graph.importer import import_items

    lines = file.read_text(encoding="utf-8").splitlines()
    with _bar() as bar:
        task = bar.add_task(f"importing {file.name}", total=len(lines))

        def progress(done: int) -> None:
            bar.update(task, completed=done)

        result = _with_graph(
            lambda graph: import_items(
                graph,
                space,
                lines,
                source=file.name,
                actor=Actor.operator("cli:import"),
                batch_size=batch_size,
                progress=progress,
            )
        )
        bar.update(task, completed=len(lines))
    out.print(
        f"{result.lines} lines: {result.remembered} remembered ({result.retracted} then "
        f"retracted), {result.already_known} already known, {len(result.skipped)} skipped, "
        f"{len(result.refused)} refused"
    )
    for refusal in [*result.skipped, *result.refused]:
        out.print(f"  line {refusal.line}: {refusal.code}: {refusal.message}", markup=False)
    if report is not None:
        report.write_text(json.dumps(result.as_dict(), indent=2) + "\n")
    if strict and result.refused:
        raise typer.Exit(2)


@app.command("embed")
def embed_command() -> None:
    """Compute the meaning vectors of every claim waiting for one (what `engram serve` does in
    the background), e.g. after an import or a restore."""
    from graph.embeddings import Embedder, count_pending, embed_pending

    with _bar() as bar:

        async def work(graph: Graph) -> int:
            task = bar.add_task("embedding claims", total=await count_pending(graph))
            return await embed_pending(
                graph, Embedder(threads=2), progress=lambda done: bar.update(task, completed=done)
            )

        stored = _with_graph(work)
    out.print(f"embedded {stored} claims")


@contextmanager
def _phases() -> Iterator[Callable[[str, int, int], None]]:
    """A progress bar per phase (`progress(phase, done, total)`), on stderr."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress

    with Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), console=err
    ) as bar:
        tasks: dict[str, Any] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=max(total, done))

        yield progress


@app.command("backup")
def backup_command(
    file: Annotated[Path, typer.Argument(dir_okay=False, help="Where to write the archive.")],
) -> None:
    """Write a portable, checksummed backup (data, tombstone ledger, blobs) to FILE."""
    from graph.backup import backup

    settings = get_settings()
    with _phases() as progress:
        report = _with_graph(
            lambda graph: backup(graph, file, blob_root=settings.blobs, progress=progress)
        )
    out.print(
        f"backup {file}: {report.bytes} bytes, {report.nodes} nodes, {report.relationships} "
        f"relationships, {report.blobs} blobs, {report.tombstones} tombstones; covers recorded "
        f"time up to {report.watermark.isoformat()} (RPO); took {report.seconds:.1f} s",
        markup=False,
    )


@app.command("restore")
def restore_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A backup archive.")],
    into: Annotated[
        Path, typer.Option(help="An empty or new directory: a new local Neo4j is restored there.")
    ],
    ledger: Annotated[
        bool,
        typer.Option(help="Replay the live Engram's tombstone ledger (the configured Neo4j)."),
    ] = True,
    keep_running: Annotated[bool, typer.Option(help="Leave the restored Neo4j running.")] = False,
) -> None:
    """Restore FILE into an isolated new Neo4j under --into, replay tombstones, verify.

    A damaged archive is refused before anything is started or created.
    """
    from graph.restore import check_archive, restore

    check_archive(file)
    settings = get_settings()
    if into.exists() and any(into.iterdir()):
        raise SetupError(f"{into} is not empty; restore into a new or empty directory")
    target_settings = settings.model_copy(update={"data_dir": into, "neo4j_uri": None})
    target_server = LocalNeo4j(target_settings)

    async def main() -> Any:
        target = await connect(resolve_target(target_settings))
        live = await connect(resolve_target(settings)) if ledger else None
        try:
            with _phases() as progress:
                return await restore(
                    target, file, blob_root=target_settings.blobs, ledger=live, progress=progress
                )
        finally:
            await target.close()
            if live is not None:
                await live.close()

    try:
        report = asyncio.run(main())
    finally:
        if not keep_running:
            target_server.stop()
    out.print(
        f"restored {file} into {into}: {report.nodes} nodes, {report.relationships} "
        f"relationships, {report.blobs} blobs; replayed {report.replayed_tombstones} tombstones; "
        f"archive {report.archive_bytes} bytes; RPO {report.watermark.isoformat()}; "
        f"RTO {report.seconds:.1f} s",
        markup=False,
    )
    for check, outcome in report.checks.items():
        out.print(f"  {check}: {outcome}", markup=False)
    out.print(f"serve it with: ENGRAM_DATA_DIR={into} engram serve", markup=False)


@app.command("retention")
def retention_command(
    action: Annotated[str, typer.Argument(help="run")],
    dry_run: Annotated[bool, typer.Option(help="List what would happen; change nothing.")] = False,
    policy: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help='JSON policies, e.g. {"event": {"archive_after_days": 180, '
            '"purge_after_days": 730}}',
        ),
    ] = None,
    space: Annotated[list[str] | None, typer.Option(help="Only these spaces (repeatable).")] = None,
) -> None:
    """Archive and purge per the retention policies (never pinned, open, committed or held)."""
    from graph.retention import parse_policies, run_retention_everywhere
    from graph.spaces import list_spaces

    if action != "run":
        raise typer.BadParameter("the only action is `run`")
    settings = get_settings()
    policies = parse_policies(policy.read_text()) if policy else None

    async def work(graph: Graph) -> Any:
        names = space or [s.name for s in await list_spaces(graph)]
        return await run_retention_everywhere(
            graph,
            names,
            blob_root=settings.blobs,
            policies=policies,
            dry_run=dry_run,
            actor=Actor.operator("cli:retention"),
        )

    for report in _with_graph(work):
        verb = "would" if dry_run else "did"
        out.print(
            f"{report.space}: {verb} archive {len(report.archived)}, {verb} purge "
            f"{len(report.purged)}, skip {len(report.skipped)}",
            markup=False,
        )
        for key in report.archived:
            out.print(f"  archive {key}", markup=False)
        for key in report.purged:
            out.print(f"  purge   {key}", markup=False)
        for key, why in report.skipped:
            out.print(f"  keep    {key} ({why})", markup=False)


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j (or report the running one) and print its Bolt URI."""
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
    stopped = LocalNeo4j(get_settings()).stop()
    out.print("Neo4j stopped" if stopped else "Neo4j was not running")


@neo4j_app.command("status")
def neo4j_status(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Say whether the local Neo4j runs; exit 3 when it does not."""
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
    from graph.spaces import create_space

    space = _with_graph(
        lambda graph: create_space(graph, name, description, actor=Actor.operator("cli"))
    )
    out.print(f"created space {space.name} ({space.id})")


@spaces_app.command("list")
def spaces_list() -> None:
    """List memory spaces."""
    from graph.spaces import list_spaces

    for space in _with_graph(list_spaces):
        out.print(f"{space.name}\t{space.description}")


class Tier(StrEnum):
    PUBLIC = "public"
    NORMAL = "normal"
    PRIVATE = "private"
    SECRET = "secret"


@keys_app.command("create")
def keys_create(
    space: Annotated[list[str], typer.Option(help="A space the key grants (repeatable).")],
    tier: Annotated[Tier, typer.Option(help="Highest privacy tier the key reads.")] = Tier.NORMAL,
    write: Annotated[bool, typer.Option(help="Also allow writes to these spaces.")] = False,
    legal: Annotated[
        bool, typer.Option(help="Also allow placing and releasing legal holds.")
    ] = False,
    name: Annotated[str, typer.Option(help="Who or what the key is for.")] = "",
) -> None:
    """Issue an API key; its secret is printed once and only its hash is kept."""
    from graph.actor import Grant
    from graph.apikeys import create_key
    from graph.model import Privacy

    grants = [Grant(s, Privacy[tier.name], write=write, legal=legal) for s in space]
    issued = _with_graph(lambda graph: create_key(name, grants))
    sys.stdout.write(issued.secret + "\n")
    err.print(
        f"key {issued.key_id}: {'read+write' if write else 'read'} on {', '.join(space)} "
        f"up to {tier.value}; store the secret now, it is not kept",
        markup=False,
    )


@keys_app.command("list")
def keys_list() -> None:
    """List keys (ids, names, grants; never secrets)."""
    from graph.apikeys import list_keys

    keys = _with_graph(lambda graph: list_keys())
    if not keys:
        err.print("no API keys yet (engram keys create --space S --tier T)", markup=False)
    for key in keys:
        state = "revoked" if key["revoked"] else "active"
        grants = ", ".join(
            f"{g['space']}:{g['tier']}{':write' if g['write'] else ''}"
            f"{':legal' if g.get('legal') else ''}"
            for g in key["grants"]
        )
        # Verbatim: rich would read `alice:secret:` as an emoji code and colour the ids.
        sys.stdout.write(f"{key['keyId']}\t{state}\t{key['name']}\t{grants}\n")


@keys_app.command("revoke")
def keys_revoke(key_id: str) -> None:
    """Revoke a key by its id (the part after `egk_`)."""
    from graph.apikeys import revoke_key

    revoked = _with_graph(lambda graph: revoke_key(key_id))
    out.print(f"revoked {key_id}" if revoked else f"no active key {key_id}")
    if not revoked:
        raise typer.Exit(1)


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
