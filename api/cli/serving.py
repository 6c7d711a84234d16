"""How `engram serve` serves, once its Neo4j is found or started (`api.cli.main.serve`): apply
the migrations, say where everything is, then serve — the app in this process, or, with
`--workers N` (`ENGRAM_WORKERS`), in N worker processes on one port, the command watching them.

Each worker process listens on a socket of its own, all bound to the same port with
`SO_REUSEPORT`, so the kernel spreads new connections over them evenly. (uvicorn's own workers
share one listening socket: the process that wakes first accepts every connection waiting, and
a crowd that connects at once lands on one process while the others idle.) Each builds its own
app (`worker_app`) with its own driver, from the environment the command wrote its options
into; the command applied the migrations before starting them, and the background work (the
embedding worker, the start-up drain of the forget outbox) runs in the one that holds the lock
named by `WORKER_LOCK` (`api.app.background_turn`). The command starts a worker again that
exits while serving, stops when one cannot start (its log says why), and on SIGTERM or SIGINT
stops them all, each finishing what it serves, before it stops a Neo4j it started.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from api.cli.console import err, out
from graph.domain.errors import SetupError

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from starlette.applications import Starlette

    from api.graphiql_assets import GraphiQLAssets
    from graph.runtime import LocalNeo4j, Migration, Neo4jTarget, Settings

WORKER_LOCK = "ENGRAM_SERVE_WORKER_LOCK"
"""The environment variable `serve` sets for its workers: the file whose lock says which of
them runs the background work. Not a setting: only `serve` writes it."""

STARTUP_FAILURE = 3
"""The exit status of a uvicorn process whose app could not start (uvicorn's own)."""

STOP_SECONDS = 30.0
"""How long a worker may take to finish what it serves after SIGTERM before it is killed."""

log = logging.getLogger("engram")


def serve(settings: Settings, target: Neo4jTarget, local: LocalNeo4j) -> None:
    """Migrate, print where GraphQL, Browser and Neo4j are, and serve until a signal stops it."""
    import uvicorn

    from api.app import create_app

    # Connect and migrate before uvicorn starts, so a bad NEO4J_* setting or a refused migration
    # ends here with one clear message (inside the lifespan it would be uvicorn's traceback).
    for migration in asyncio.run(_connect_and_migrate(settings, target)):
        out.print(f"applied {migration.name}")
    browser_dir = local.browser_dir() if settings.browser else None
    graphiql = graphiql_for(settings)
    _say_where(settings, target, local, browser_dir is not None, graphiql is not None)
    log_to_stderr(settings)
    if settings.workers == 1:
        app = create_app(settings, target, browser_dir=browser_dir, graphiql=graphiql)
        # Engram's access log says who asked; uvicorn's would repeat it without the principal.
        level = settings.log_level.lower()
        uvicorn.run(app, host=settings.host, port=settings.port, log_level=level, access_log=False)
        return
    lock_dir = Path(tempfile.mkdtemp(prefix="engram-serve-"))
    try:
        serve_in_workers(settings, lock_dir / "background.lock")
    finally:
        shutil.rmtree(lock_dir, ignore_errors=True)


def serve_in_workers(settings: Settings, lock: Path) -> None:
    """Run `settings.workers` worker processes on `settings.host` and `port` until this process
    is stopped (by an exception, such as the one a signal raises)."""
    spawn = multiprocessing.get_context("spawn")
    with closing(_socket(settings.host)) as reserved:
        # Bound, never listening: holds the port (a free one when 0) for the workers' sockets.
        reserved.bind((settings.host, settings.port))
        port: int = reserved.getsockname()[1]
        os.environ.update(
            {
                "ENGRAM_HOST": settings.host,
                "ENGRAM_PORT": str(port),
                "ENGRAM_DEV": str(settings.dev).lower(),
                "ENGRAM_WORKERS": str(settings.workers),
                WORKER_LOCK: str(lock),
            }
        )
        level = settings.log_level.lower()

        def start() -> BaseProcess:
            process = spawn.Process(target=_worker, args=(settings.host, port, level))
            process.start()
            return process

        workers = [start() for _ in range(settings.workers)]
        try:
            while True:
                time.sleep(0.5)
                for place, process in enumerate(workers):
                    if process.is_alive():
                        continue
                    if process.exitcode == STARTUP_FAILURE:
                        raise SetupError("a worker process could not start (its log says why)")
                    log.warning(
                        "worker process %s exited (%s); starting another",
                        process.pid,
                        process.exitcode,
                    )
                    workers[place] = start()
        finally:
            _stop(workers)


def worker_app() -> Starlette:
    """The app of one worker process: the settings from the environment `serve` wrote its
    options into, the Neo4j it found or started (never one of its own), no migrations (`serve`
    applied them)."""
    from api.app import create_app
    from graph.runtime import LocalNeo4j, get_settings, resolve_target

    settings = get_settings()
    log_to_stderr(settings)
    target = resolve_target(settings, start_local=False)
    return create_app(
        settings,
        target,
        browser_dir=LocalNeo4j(settings).browser_dir() if settings.browser else None,
        graphiql=graphiql_for(settings, quiet=True),
        migrate_on_start=False,
        background_lock=Path(os.environ[WORKER_LOCK]),
    )


def graphiql_for(settings: Settings, *, quiet: bool = False) -> GraphiQLAssets | None:
    """GraphiQL's assets in dev mode (fetched on first use); without Maven (as in the Docker
    image) dev mode goes on without GraphiQL and says why (unless `quiet`: a worker process,
    whose command said it already)."""
    from api.graphiql_assets import graphiql_assets

    if not settings.dev:
        return None
    try:
        return graphiql_assets(settings.cache_dir)
    except SetupError as failure:
        if not quiet:
            err.print(f"[yellow]GraphiQL is off[/]: {failure}")
        return None


def log_to_stderr(settings: Settings) -> None:
    """Engram's own logs (the JSON access log among them) to stderr, one line each, at
    `ENGRAM_LOG_LEVEL` (WARNING drops the access lines)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    engram_log = logging.getLogger("engram")
    engram_log.addHandler(handler)
    engram_log.setLevel(settings.log_level)


async def _connect_and_migrate(settings: Settings, target: Neo4jTarget) -> list[Migration]:
    from graph.memory import Memory

    async with await Memory.open(settings, target) as memory:
        return await memory.admin.migrate()


def _say_where(
    settings: Settings, target: Neo4jTarget, local: LocalNeo4j, browser: bool, graphiql: bool
) -> None:
    from api.app import browser_url
    from graph.runtime import guide_origin

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
    if browser:
        origin = guide_origin(settings.host, settings.port)
        out.print(f"Browser  {browser_url(target, origin)}")
    if settings.workers > 1:
        out.print(f"served by {settings.workers} worker processes")
    out.print(
        "[bold yellow]dev mode[/]: "
        + ("GraphiQL and introspection are on" if graphiql else "introspection is on")
        + "; no API key is asked — every request acts on every space (only on your own machine)"
        if settings.dev
        else "production mode: GraphiQL and introspection are off (use --dev locally)"
    )


def _worker(host: str, port: int, log_level: str) -> None:
    """One worker process: its own listening socket on the shared port, its app, uvicorn."""
    import uvicorn

    listening = _socket(host)
    listening.bind((host, port))
    listening.listen(2048)
    config = uvicorn.Config(
        f"{__name__}:worker_app", factory=True, log_level=log_level, access_log=False
    )
    uvicorn.Server(config).run(sockets=[listening])


def _socket(host: str) -> socket.socket:
    made = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    made.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    made.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    return made


def _stop(workers: list[BaseProcess]) -> None:
    """SIGTERM to every worker still running, then wait for each; kill any that outlasts
    `STOP_SECONDS`. A second Ctrl-C or SIGTERM must not cut this short and orphan them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for process in workers:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for process in workers:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()
