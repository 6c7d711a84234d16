"""The local Neo4j: started on demand, found when running, stopped cleanly, loud when it fails."""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
from pathlib import Path

import neo4j
import pytest
from pydantic import ValidationError

from graph.domain.errors import SetupError
from graph.runtime import NEO4J_VERSION, LocalNeo4j, Settings
from graph.store.local.class_archive import archive_options
from graph.store.local.launcher_class import launcher_arguments
from tests.support import SHORT_LIVED_NEO4J_JVM


@pytest.fixture
def own_settings(tmp_path: Path, test_settings: Settings) -> Settings:
    """A second, private data directory (the session's Neo4j keeps running meanwhile)."""
    return test_settings.model_copy(
        update={"data_dir": tmp_path / "data", "neo4j_jvm_options": SHORT_LIVED_NEO4J_JVM}
    )


def count_markers(uri: str, password: str) -> int:
    with neo4j.GraphDatabase.driver(uri, auth=("neo4j", password)) as driver:
        records, _, _ = driver.execute_query("MATCH (m:Marker) RETURN count(m) AS n")
        return int(records[0]["n"])


def jvm_options(pid: int, *prefixes: str) -> list[str]:
    """The running JVM's options that start with one of `prefixes`."""
    arguments = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    return [argument for argument in arguments if argument.startswith(prefixes)]


def mapped_archives(pid: int, folder: Path) -> list[str]:
    """The class-data archives under `folder` that the process has mapped."""
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return sorted(
        {line.split()[-1] for line in maps if line.endswith(".jsa")}
        & {str(archive) for archive in folder.glob("*.jsa")}
    )


def test_start_reuse_persist_and_stop_of_a_local_neo4j_on_its_last_port_or_any_free_one(
    own_settings: Settings, tmp_path: Path
) -> None:
    # A cache of its own (the resolved class path copied in): the launcher and the class-data
    # archive are made here from nothing.
    cache = tmp_path / "cache"
    cache.mkdir()
    listing = f"neo4j-{NEO4J_VERSION}.classpath"
    shutil.copy(own_settings.cache_dir / listing, cache / listing)
    own_settings = own_settings.model_copy(update={"cache_dir": cache})
    archives = cache / "class-archive"
    server = LocalNeo4j(own_settings)
    assert server.status() is None

    first = server.start()
    assert first.started_here is True
    assert first.version == NEO4J_VERSION
    assert first.uri.startswith("bolt://127.0.0.1:")
    assert (server.home / "logs" / "launcher.log").read_text().count("ENGRAM-NEO4J READY") == 1
    launched = Path(f"/proc/{first.pid}/cmdline").read_bytes().split(b"\0")
    assert own_settings.neo4j_jvm_options.encode() in launched, "the extra JVM options are passed"
    assert launched[-3:-1] == [b"Launcher", str(server.home).encode()], "the compiled launcher"
    assert [jar.suffix for jar in (cache / "launcher").glob("*.jar")] == [".jar"]
    [recording] = jvm_options(first.pid, "-XX:ArchiveClassesAtExit=", "-XX:SharedArchiveFile=")
    record = Path(recording.partition("=")[2])
    assert (record.parent, record.suffix) == (archives, ".part"), "the first start records"
    written = (server.home / "neo4j.conf").read_text().splitlines()
    assert set(own_settings.neo4j_config.split()) <= set(written), "the extra settings are set"

    second = server.start()
    assert second.started_here is False
    assert (second.pid, second.uri) == (first.pid, first.uri)

    with neo4j.GraphDatabase.driver(first.uri, auth=("neo4j", first.password)) as driver:
        driver.execute_query("CREATE (:Marker {at: datetime()})")
    assert server.stop() is True
    assert server.status() is None
    assert server.stop() is False
    assert record.stat().st_size > 10_000_000, "written as the JVM stopped"
    # Beside it, checked first: a record of a JVM killed while it wrote (mapped, it crashes the
    # JVM).
    name = record.name.partition("-")[0]
    damaged = archives / f"{name}-0.part"
    damaged.write_bytes(record.read_bytes()[: record.stat().st_size // 2])
    crash_reports = set(Path.cwd().glob("hs_err_pid*.log"))

    again = server.start()
    try:
        assert again.started_here is True
        assert again.pid != first.pid
        assert again.uri == first.uri, "the same Bolt port while it is free"
        assert count_markers(again.uri, again.password) == 1, "data survives a restart"
        kept = archives / f"{name}.jsa"
        assert [*archives.glob("*.part"), *archives.glob("*.jsa")] == [kept]
        assert jvm_options(again.pid, "-XX:ArchiveClassesAtExit=", "-XX:SharedArchiveFile=") == [
            f"-XX:SharedArchiveFile={kept}"
        ], "the damaged record dropped, the sound one kept and used"
        assert mapped_archives(again.pid, archives) == [str(kept)], "and the JVM maps it"
        assert set(Path.cwd().glob("hs_err_pid*.log")) == crash_reports, "no crash report left"
    finally:
        server.stop()

    with socket.socket() as blocker:
        # The stopped server's closed connections may hold the port in TIME_WAIT a while:
        # SO_REUSEADDR lets the blocker bind anyway, and while it listens nothing else can.
        blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        blocker.bind(("127.0.0.1", int(first.uri.rpartition(":")[2])))
        blocker.listen()
        moved = server.start()
    try:
        assert moved.uri != first.uri, "another free port when the last one is taken"
        assert count_markers(moved.uri, moved.password) == 1
        assert mapped_archives(moved.pid, archives) == [str(kept)], "every later start maps it"
    finally:
        server.stop()
    assert (server.home / "bolt-port").read_text().strip() == moved.uri.rpartition(":")[2]


def test_password_is_generated_once_and_kept_private(own_settings: Settings) -> None:
    server = LocalNeo4j(own_settings)
    password = server.password()
    mode = stat.S_IMODE(os.stat(server.home / "password").st_mode)
    assert mode == 0o600
    assert len(password) >= 32
    assert server.password() == password


def test_a_taken_port_fails_with_the_reason_and_the_log_tail(own_settings: Settings) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        settings = own_settings.model_copy(update={"neo4j_port": port})
        with pytest.raises(SetupError) as failure:
            LocalNeo4j(settings).start()
    message = str(failure.value)
    assert "local Neo4j" in message
    assert f"127.0.0.1:{port}" in message
    assert "--- " in message and "launcher.log" in message
    assert LocalNeo4j(settings).status() is None


def test_an_unsupported_java_is_refused_before_anything_starts(
    own_settings: Settings, tmp_path: Path
) -> None:
    fake_java = tmp_path / "java"
    fake_java.write_text(
        "#!/bin/sh\necho '    java.specification.version = 11' >&2\necho 'openjdk 11' >&2\n"
    )
    fake_java.chmod(0o755)
    settings = own_settings.model_copy(update={"java": str(fake_java)})
    with pytest.raises(SetupError, match=r"is Java 11; Neo4j 5\.26\.\d+ runs on Java 17 or 21"):
        LocalNeo4j(settings).start()
    assert not (settings.neo4j_home / "logs" / "launcher.log").exists()


@pytest.mark.fast
def test_extra_jvm_options_must_each_be_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_NEO4J_JVM_OPTIONS", "-XX:TieredStopAtLevel=1  -Xss2m")
    assert Settings().neo4j_jvm_options.split() == ["-XX:TieredStopAtLevel=1", "-Xss2m"]
    monkeypatch.setenv("ENGRAM_NEO4J_JVM_OPTIONS", "-Xss2m rm")
    expected = "JVM options, each starting with '-'; got 'rm'"
    with pytest.raises(ValidationError, match=f"ENGRAM_NEO4J_JVM_OPTIONS\n.*{expected}"):
        Settings()


@pytest.mark.fast
def test_relative_directories_are_read_from_where_the_command_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ENGRAM_DATA_DIR", "here")
    monkeypatch.setenv("ENGRAM_CACHE_DIR", "~/cache")
    monkeypatch.setenv("ENGRAM_BLOB_ROOT", "files")
    settings = Settings()
    assert (settings.data_dir, settings.cache_dir, settings.blob_root) == (
        tmp_path / "here",
        Path.home() / "cache",
        tmp_path / "files",
    )


def test_extra_neo4j_settings_are_key_value_pairs_and_leave_engrams_own_alone(
    monkeypatch: pytest.MonkeyPatch, own_settings: Settings
) -> None:
    monkeypatch.setenv("ENGRAM_NEO4J_CONFIG", "db.logs.query.enabled=OFF  dbms.cypher.planner=COST")
    assert Settings().neo4j_config.split() == [
        "db.logs.query.enabled=OFF",
        "dbms.cypher.planner=COST",
    ]
    for wrong in ("db.logs.query.enabled", "Db.Thing=1", "db.thing="):
        monkeypatch.setenv("ENGRAM_NEO4J_CONFIG", wrong)
        expected = f"neo4j.conf settings as key=value; got '{wrong}'"
        with pytest.raises(ValidationError, match=f"ENGRAM_NEO4J_CONFIG\n.*{re.escape(expected)}"):
            Settings()
    taken = own_settings.model_copy(
        update={"neo4j_config": "server.bolt.listen_address=0.0.0.0:7687"}
    )
    with pytest.raises(SetupError, match="may not set server.bolt.listen_address: Engram sets it"):
        LocalNeo4j(taken).start()
    assert LocalNeo4j(taken).status() is None


def test_without_a_javac_the_launcher_runs_as_a_source_file(tmp_path: Path) -> None:
    java = tmp_path / "jre" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("")
    arguments = launcher_arguments(str(java), "a.jar:b.jar", tmp_path / "cache")
    assert arguments[:2] == ["-cp", "a.jar:b.jar"]
    assert arguments[2].endswith("graph/store/local/Launcher.java")
    assert not (tmp_path / "cache").exists(), "nothing is compiled"


@pytest.mark.fast
@pytest.mark.parametrize("own", ["-Xshare:off", "-XX:SharedArchiveFile=/mine.jsa"])
def test_the_users_own_sharing_options_leave_the_class_data_archive_alone(
    tmp_path: Path, own: str
) -> None:
    assert archive_options("/no/such/java", "a.jar", tmp_path, f"-Xmx1g {own}") == []
    assert list(tmp_path.iterdir()) == [], "nothing looked at or made in the cache"
