"""The local Neo4j: Neo4j Community embedded with Bolt, started on demand.

    server = LocalNeo4j(get_settings())
    info = server.start()          # finds a running one instead of starting a second
    info.uri, info.version
    ('bolt://127.0.0.1:40123', '5.26.30')
    server.stop()

Everything lives under the Neo4j home (`<data dir>/neo4j`): the store, `neo4j.conf` (rewritten on
every start from the settings), `password` (0600, generated once), `server.json` (the running
process), `bolt-port` (the port last used, taken again on the next start while it is free, so a
restarted Neo4j is found again at the same URI by the drivers already connected to it) and
`logs/` (`launcher.log` is the JVM's stdout, `debug.log` Neo4j's own log).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import neo4j
from neo4j.exceptions import Neo4jError, ServiceUnavailable
from tenacity import retry, retry_if_exception_type, stop_after_delay, wait_fixed

from graph.domain.errors import SetupError
from graph.store.local._maven import file_lock, neo4j_browser, neo4j_classpath
from graph.store.local.browser_settings import (
    allowed_guide_hosts,
    guide_origin,
    post_connect_commands,
)
from graph.store.local.class_archive import archive_options
from graph.store.local.launcher_class import launcher_arguments
from graph.store.local.processes import (
    alive,
    is_our_launcher,
    port_free,
    port_of,
    port_open,
    terminate,
)
from graph.store.settings import NEO4J_BROWSER_VERSION, NEO4J_VERSION, Settings

# The JVM flags Neo4j's own neo4j.conf passes (server.jvm.additional), minus AlwaysPreTouch,
# which would commit the whole heap up front on a small machine. Without the java.nio open,
# vector index population has been reported to stall.
JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
)

SUPPORTED_JAVA = (17, 21)
"""Java feature releases Neo4j 5.26 runs on."""

_READY = re.compile(r"^ENGRAM-NEO4J READY (?P<uri>bolt://\S+) (?P<version>\S+) (?P<millis>\d+)$")
_FAILED = re.compile(r"^ENGRAM-NEO4J FAILED (?P<reason>.*)$")


@dataclass(frozen=True)
class RunningNeo4j:
    """A local Neo4j that answers on `uri`."""

    pid: int
    uri: str
    version: str
    user: str
    password: str
    home: str
    startup_ms: int
    started_here: bool = False
    """True when this call started the process, False when it found one running."""

    def state(self) -> dict[str, object]:
        data = asdict(self)
        del data["password"], data["started_here"]
        return data


class LocalNeo4j:
    """Starts, finds and stops the local Neo4j for one data directory."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.home = settings.neo4j_home
        self.launcher_log = self.home / "logs" / "launcher.log"
        self._state_file = self.home / "server.json"
        self._password_file = self.home / "password"
        self._port_file = self.home / "bolt-port"

    # -- public face -------------------------------------------------------------------------

    def status(self) -> RunningNeo4j | None:
        """The running server of this data directory, or None."""
        if not self._state_file.exists():
            return None
        try:
            state = json.loads(self._state_file.read_text())
            pid = int(state["pid"])
            uri = str(state["uri"])
        except (ValueError, KeyError, OSError):
            return None
        if not is_our_launcher(pid, self.home) or not port_open(uri):
            return None
        return RunningNeo4j(
            pid=pid,
            uri=uri,
            version=str(state["version"]),
            user="neo4j",
            password=self.password(),
            home=str(self.home),
            startup_ms=int(state.get("startup_ms", 0)),
        )

    def start(self) -> RunningNeo4j:
        """Start Neo4j and wait until Bolt accepts the password, or return the running one."""
        self.home.mkdir(parents=True, exist_ok=True)
        with file_lock(self.home / "start.lock"):
            running = self.status()
            if running is not None:
                return running
            java = self._java()
            classpath = neo4j_classpath(NEO4J_VERSION, self.settings.cache_dir)
            password = self.password()
            port = self._bolt_port()
            self._write_config(port)
            try:
                started = self._launch(java, classpath)
            except SetupError:
                if port == self.settings.neo4j_port:
                    raise
                # The remembered port was taken between our probe and Neo4j's bind: any port.
                self._write_config(self.settings.neo4j_port)
                started = self._launch(java, classpath)
            try:
                self._wait_for_bolt(started.uri, password, started.pid)
            except BaseException:
                terminate(started.pid, 30)
                raise
            self._state_file.write_text(json.dumps(started.state(), indent=2))
            self._port_file.write_text(f"{port_of(started.uri)}\n")
            return started

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop the running server cleanly; True if one was running."""
        running = self.status()
        if running is None:
            self._state_file.unlink(missing_ok=True)
            return False
        terminate(running.pid, timeout)
        self._state_file.unlink(missing_ok=True)
        return True

    def password(self) -> str:
        """The password of user `neo4j`, generated on first use and kept 0600."""
        self.home.mkdir(parents=True, exist_ok=True)
        if not self._password_file.exists():
            fd = os.open(self._password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(24) + "\n")
        return self._password_file.read_text().strip()

    def browser_dir(self) -> Path:
        """Neo4j Browser's static files (fetched from Maven Central on first use)."""
        return neo4j_browser(NEO4J_BROWSER_VERSION, self.settings.cache_dir)

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the launcher's output and of Neo4j's debug.log."""
        parts = []
        for log in (self.launcher_log, self.home / "logs" / "debug.log"):
            if log.exists():
                text = log.read_text(errors="replace").splitlines()[-lines:]
                parts.append(f"--- {log} ---\n" + "\n".join(text))
        return "\n".join(parts) or "(no log written)"

    # -- steps -------------------------------------------------------------------------------

    def _java(self) -> str:
        java = self.settings.java or (
            str(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
            if os.environ.get("JAVA_HOME")
            else (shutil.which("java") or "")
        )
        if not java or (not Path(java).exists() and shutil.which(java) is None):
            raise SetupError(
                "Java 17 or 21 is needed for the local Neo4j; install it, set ENGRAM_JAVA, "
                "or set NEO4J_URI to use an existing Neo4j"
            )
        done = subprocess.run(
            [java, "-XshowSettings:properties", "-version"],
            capture_output=True,
            text=True,
            check=False,
        )
        match = re.search(r"java\.specification\.version = (\d+)", done.stderr)
        feature = int(match.group(1)) if match else 0
        if feature not in SUPPORTED_JAVA:
            raise SetupError(
                f"{java} is Java {feature or 'of unknown version'}; Neo4j {NEO4J_VERSION} runs on "
                f"Java {' or '.join(map(str, SUPPORTED_JAVA))}. Set ENGRAM_JAVA to such a java."
            )
        return java

    def _bolt_port(self) -> int:
        """ENGRAM_NEO4J_PORT if set, else the port of the last start while it is free, else 0
        (any free port)."""
        if self.settings.neo4j_port:
            return self.settings.neo4j_port
        try:
            remembered = int(self._port_file.read_text())
        except (OSError, ValueError):
            return 0
        return remembered if port_free(remembered) else 0

    def _write_config(self, port: int) -> None:
        config = {
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": f"127.0.0.1:{port}",
            "server.bolt.tls_level": "DISABLED",
            "dbms.security.auth_enabled": "true",
            "server.memory.pagecache.size": self.settings.neo4j_pagecache,
            "db.tx_log.preallocate": "false",
            # Once the databases are stopped, Bolt's event loops wait a quiet period of 5 s each
            # (two of them) before they end: a stop took 10.4 s, 0.4 s without it.
            "internal.dbms.bolt.netty_server_shutdown_quiet_period": "0",
            "db.tx_log.rotation.retention_policy": "256M size",
            "dbms.usage_report.enabled": "false",
            # Browser may fetch Engram's guide and style; on connect it applies the style and
            # plays the guide (unless the URL it was opened with already plays it).
            "browser.remote_content_hostname_whitelist": allowed_guide_hosts(self.settings.host),
            "browser.post_connect_cmd": post_connect_commands(
                guide_origin(self.settings.host, self.settings.port)
            ),
            # Browser's product-usage reports go to Neo4j's servers: not from an audit tool.
            "client.allow_telemetry": "false",
        }
        extra = dict(pair.split("=", 1) for pair in self.settings.neo4j_config.split())
        if taken := sorted(set(extra) & set(config)):
            raise SetupError(
                f"ENGRAM_NEO4J_CONFIG may not set {', '.join(taken)}: Engram sets it itself"
            )
        config.update(extra)
        text = "# Written by Engram on every start; edit ENGRAM_* settings instead.\n"
        text += "".join(f"{key}={value}\n" for key, value in config.items())
        (self.home / "neo4j.conf").write_text(text)

    def _launch(self, java: str, classpath: str) -> RunningNeo4j:
        self.launcher_log.parent.mkdir(parents=True, exist_ok=True)
        program = launcher_arguments(java, classpath, self.settings.cache_dir)
        _, program_classpath, *_ = program  # -cp, the class path with the launcher, the program
        command = [
            java,
            *JVM_FLAGS,
            "-Xms256m",
            f"-Xmx{self.settings.neo4j_heap}",
            *self.settings.neo4j_jvm_options.split(),
            *archive_options(
                java, program_classpath, self.settings.cache_dir, self.settings.neo4j_jvm_options
            ),
            *program,
            str(self.home),
        ]
        self.launcher_log.write_bytes(b"")
        # Detach through sh so the server outlives this process without being its child:
        # `engram neo4j start` returns while Neo4j runs on, reparented to init.
        spawned = subprocess.run(
            ["sh", "-c", '"$@" >>"$0" 2>&1 </dev/null & echo $!', self.launcher_log, *command],
            cwd=self.home,
            capture_output=True,
            text=True,
            check=True,
            start_new_session=True,
        )
        pid = int(spawned.stdout.strip())
        try:
            return self._ready(pid)
        except BaseException:
            # Whatever ends the wait — a failure, a timeout, Ctrl-C or SIGTERM of the command
            # that started it — stops the Neo4j this launch started: nothing is left booting.
            terminate(pid, 30)
            raise

    def _ready(self, pid: int) -> RunningNeo4j:
        """The launched Neo4j once its log says it is ready."""
        deadline = time.monotonic() + self.settings.neo4j_start_timeout
        while time.monotonic() < deadline:
            for line in self.launcher_log.read_text(errors="replace").splitlines():
                if ready := _READY.match(line):
                    return RunningNeo4j(
                        pid=pid,
                        uri=ready["uri"],
                        version=ready["version"],
                        user="neo4j",
                        password=self.password(),
                        home=str(self.home),
                        startup_ms=int(ready["millis"]),
                        started_here=True,
                    )
                if failed := _FAILED.match(line):
                    raise SetupError(
                        f"local Neo4j failed to start: {failed['reason']}\n{self.log_tail()}"
                    )
            if not alive(pid):
                raise SetupError(f"local Neo4j exited before it was ready\n{self.log_tail()}")
            time.sleep(0.1)
        raise SetupError(
            f"local Neo4j was not ready within {self.settings.neo4j_start_timeout:.0f} s "
            f"(ENGRAM_NEO4J_START_TIMEOUT)\n{self.log_tail()}"
        )

    def _wait_for_bolt(self, uri: str, password: str, pid: int) -> None:
        @retry(
            retry=retry_if_exception_type(ServiceUnavailable),
            stop=stop_after_delay(30),
            wait=wait_fixed(0.2),
            reraise=True,
        )
        def verify() -> None:
            with neo4j.GraphDatabase.driver(uri, auth=("neo4j", password)) as driver:
                driver.verify_connectivity()

        try:
            verify()
        except (Neo4jError, ServiceUnavailable) as failure:
            terminate(pid, 30)
            raise SetupError(
                f"local Neo4j printed ready but Bolt at {uri} refused us: {failure}\n"
                f"{self.log_tail()}"
            ) from failure
