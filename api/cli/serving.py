"""How `engram serve` serves, once its Neo4j is found or started (`api.cli.main.serve`): apply
the migrations, say where everything is, then serve — in this process alone, or, with
`--workers N` (`ENGRAM_WORKERS`), in this one and N - 1 sibling processes on the same port.

Each worker process listens on a socket of its own, all bound to the same port with
`SO_REUSEPORT`, so the kernel deals new connections out over them evenly. (uvicorn's own workers
share one listening socket: the process that wakes first accepts every connection waiting, and
a crowd that connects at once lands on one process while the others idle; and its supervising
process would hold a whole app's imports, ~130 MB, only to watch.) Each sibling builds its own
app with its own driver from what the command passes it (`Sibling`: its settings, the Neo4j it
found or started — sent down the start-up pipe, never in an environment); the command applied
the migrations before starting them, and the background work (the embedding worker, the
start-up drain of the forget outbox) runs in the one process that holds their shared lock
(`api.app.background_turn`). A sibling needs no Neo4j to start, so one replaced while Neo4j is
down serves 503s like the others until it is back. The command listens only once
every sibling listens (its `/readyz` then speaks for all of them); a thread of it starts a
sibling again that exits while serving, and stops the server when one cannot load its app (its
log says why); on SIGTERM or SIGINT the command finishes what it serves, then stops the
siblings the same way, before it stops a Neo4j it started.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import shutil
import signal
import socket
import tempfile
import threading
import time
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from api.cli.console import err, out
from graph.domain.errors import SetupError

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess
    from multiprocessing.synchronize import Event as EventType

    import uvicorn
    from starlette.applications import Starlette
    from uvicorn import Server

    from api.graphiql_assets import GraphiQLAssets
    from graph.runtime import LocalNeo4j, Migration, Neo4jTarget, Settings

BACKLOG = 2048
"""Connections a listening socket holds before they are accepted (uvicorn's default)."""

START_SECONDS = 120.0
"""How long a sibling may take to load its app and listen when the command starts."""

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
    _serve_with_siblings(settings, target, browser_dir, graphiql)


def _serve_with_siblings(
    settings: Settings,
    target: Neo4jTarget,
    browser_dir: Path | None,
    graphiql: GraphiQLAssets | None,
) -> None:
    """Serve in this process and `settings.workers - 1` siblings, each on its own socket of the
    port; the siblings stop after this process's server does."""
    import uvicorn

    lock_dir = Path(tempfile.mkdtemp(prefix="engram-serve-"))
    lock = lock_dir / "background.lock"
    try:
        with closing(_socket(settings.host)) as listening:
            # Bound now, listening once the siblings listen: no connection waits on a process
            # still loading. The port is held meanwhile (the free one chosen when it is 0).
            listening.bind((settings.host, settings.port))
            port: int = listening.getsockname()[1]
            if port != settings.port:  # uvicorn says which port it took only when it binds
                out.print(f"listening on port {port} (a free one: --port 0)")
            settings = settings.model_copy(update={"port": port})
            this_one = Sibling(settings, target, browser_dir, graphiql, lock)
            server = uvicorn.Server(_config(this_one.app(), settings))
            # What a sibling needs travels to it in its start-up pipe, never in its environment.
            sibling = replace(this_one, target=_without_local(target))
            siblings = Siblings(settings.workers - 1, sibling)
            try:
                siblings.start(server)
                listening.listen(BACKLOG)
                server.run(sockets=[listening])
            finally:
                siblings.stop()
            if siblings.failed:
                raise SetupError("a worker process could not start (its log says why)")
    finally:
        shutil.rmtree(lock_dir, ignore_errors=True)


@dataclass(frozen=True)
class Sibling:
    """What a sibling worker process is started with: the command's settings (its options
    applied, the port chosen), the Neo4j it found or started, where Browser and GraphiQL are,
    and the lock of the background work. The command, a worker itself, builds its own app from
    one too (its target keeping the local Neo4j it started)."""

    settings: Settings
    target: Neo4jTarget
    browser_dir: Path | None
    graphiql: GraphiQLAssets | None
    lock: Path

    def app(self) -> Starlette:
        """Its app: no migrations (the command applied them)."""
        from api.app import create_app

        return create_app(
            self.settings,
            self.target,
            browser_dir=self.browser_dir,
            graphiql=self.graphiql,
            migrate_on_start=False,
            background_lock=self.lock,
        )


class Siblings:
    """The worker processes serving beside this one, and the thread that starts one again when
    it exits; one that cannot load its app stops the server (and sets `failed`)."""

    def __init__(self, count: int, sibling: Sibling) -> None:
        self.spawn = multiprocessing.get_context("spawn")
        self.count = count
        self.sibling = sibling
        self.failed = False
        self.processes: list[tuple[BaseProcess, EventType]] = []
        """Each sibling beside the event it sets once it listens (kept: the child reads it)."""
        self.stopping = threading.Event()
        self.watcher = threading.Thread(target=self._watch, name="engram-workers", daemon=True)
        self.server: Server | None = None

    def start(self, server: Server) -> None:
        """Start them all and wait until each listens (`SetupError` when one cannot start or
        takes over `START_SECONDS`); then watch them, stopping `server` if one cannot start."""
        started = [self._start() for _ in range(self.count)]
        deadline = time.monotonic() + START_SECONDS
        for process, listening in started:
            while not listening.wait(0.2):
                if not process.is_alive():
                    raise SetupError("a worker process could not start (its log says why)")
                if time.monotonic() > deadline:
                    raise SetupError(
                        f"a worker process was not serving after {START_SECONDS:.0f} s"
                    )
        self.server = server
        self.watcher.start()

    def stop(self) -> None:
        """SIGTERM to every sibling still running, then wait for each; kill any that outlasts
        `STOP_SECONDS`. A second Ctrl-C or SIGTERM must not cut this short and orphan them."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        self.stopping.set()
        if self.watcher.is_alive():  # not started when a sibling failed to start
            self.watcher.join()
        for process, _ in self.processes:
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + STOP_SECONDS
        for process, _ in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()

    def _start(self) -> tuple[BaseProcess, EventType]:
        listening = self.spawn.Event()
        process = self.spawn.Process(target=_worker, args=(self.sibling, listening))
        process.start()
        self.processes.append((process, listening))
        return process, listening

    def _watch(self) -> None:
        assert self.server is not None
        while not self.stopping.wait(0.5):
            for started in list(self.processes):
                process, listening = started
                if process.is_alive():
                    continue
                if not listening.is_set():
                    # It could not even load its app (it would fail the same way again); one
                    # that stopped later — Neo4j unreachable as it started, killed — is replaced.
                    self.failed = True
                    self.server.should_exit = True
                    return
                log.warning(
                    "worker process %s exited (%s); starting another", process.pid, process.exitcode
                )
                self.processes.remove(started)
                self._start()


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


def _worker(sibling: Sibling, listening: EventType) -> None:
    """A sibling worker process: its app built (the slow part: imports, the driver's pool), then
    its own listening socket on the shared port (`listening` set), then uvicorn."""
    import uvicorn

    settings = sibling.settings
    log_to_stderr(settings)
    config = _config(sibling.app(), settings)
    made = _socket(settings.host)
    made.bind((settings.host, settings.port))
    made.listen(BACKLOG)
    listening.set()
    uvicorn.Server(config).run(sockets=[made])


def _config(app: Starlette, settings: Settings) -> uvicorn.Config:
    """As `serve` runs the app alone: no uvicorn access log (Engram's says who asked)."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        access_log=False,
    )


def _without_local(target: Neo4jTarget) -> Neo4jTarget:
    """`target` without its local server's handle: a sibling only connects to it."""
    return replace(target, local=None)


def _socket(host: str) -> socket.socket:
    made = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    made.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    made.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    return made
