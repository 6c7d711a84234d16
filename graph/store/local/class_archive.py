"""The local Neo4j's class-data archive: the classes a start loads, parsed and verified once and
then mapped from one file by every later start (the JVM's class-data sharing, CDS).

Measured here on two cores, from launch to ready: 8.4–11.9 s without it, 5.4–7.5 s with it
(11–20 s against 8–10 s while the test suite kept both cores busy). Java 17 writes such an archive
when a JVM started with `-XX:ArchiveClassesAtExit` exits normally, so the first start without one
records it (about 110 MB, written as that Neo4j stops) and the starts after it map it. A record is
kept only after a JVM has proved it usable (`-Xshare:on`): a truncated one, left by a JVM killed
while writing it, would crash every JVM that maps it. The archive is named after the Java and the
class path it was made with; the JVM checks both again and starts without it when they differ.
Options of the user's own about sharing (`-Xshare…`, `-XX:SharedArchiveFile…`) turn all of this
off.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

from graph.store.local._maven import file_lock
from graph.store.local.processes import running_command_lines

FOLDER = "class-archive"
QUIET = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")
"""The JVM reports each class it cannot archive (signed jars, old class files) on stdout."""
_RECORDING = "-XX:ArchiveClassesAtExit="
_OWN_OPTIONS = ("-Xshare", "-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit")


def archive_options(java: str, classpath: str, cache_dir: Path, user_options: str) -> list[str]:
    """The JVM options that map this Java and class path's archive, or record it when there is
    none yet and no other JVM is recording it; none when the user's options speak of sharing."""
    if any(option.startswith(_OWN_OPTIONS) for option in user_options.split()):
        return []
    folder = cache_dir / FOLDER
    name = _archive_name(java, classpath)
    kept = folder / f"{name}.jsa"
    with file_lock(folder / "archive.lock"):
        records = sorted(folder.glob("*.part"))
        # Reading every process's arguments only when there is a record to settle or to make.
        settled = kept.exists() and not records
        recording = set() if settled else _recorded_by_running_jvms(folder)
        for record in records:
            if record in recording:
                continue
            mine = record.name.startswith(f"{name}-")
            if mine and not kept.exists() and _usable(java, classpath, record):
                record.replace(kept)
            else:
                record.unlink(missing_ok=True)
        if kept.exists():
            _drop_other_archives(folder, kept)
            return [f"-XX:SharedArchiveFile={kept}", *QUIET]
        if any(record.name.startswith(f"{name}-") for record in recording):
            return []
        if not _base_archive_loads(java):
            return []
        record = folder / f"{name}-{secrets.token_hex(4)}.part"
        return [f"{_RECORDING}{record}", *QUIET]


def _archive_name(java: str, classpath: str) -> str:
    binary = Path(shutil.which(java) or java).resolve()
    stat = binary.stat()
    identity = f"{binary}\0{stat.st_size}\0{stat.st_mtime_ns}\0{classpath}"
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def _recorded_by_running_jvms(folder: Path) -> set[Path]:
    """The records that running JVMs will write when they exit."""
    prefix = f"{_RECORDING}{folder}{os.sep}".encode()
    return {
        Path(argument.removeprefix(_RECORDING.encode()).decode(errors="replace"))
        for arguments in running_command_lines()
        for argument in arguments
        if argument.startswith(prefix)
    }


def _usable(java: str, classpath: str, record: Path) -> bool:
    """Whether a JVM maps the record without falling back (`-Xshare:on` fails instead)."""
    return _runs(java, "-Xshare:on", f"-XX:SharedArchiveFile={record}", "-cp", classpath)


def _base_archive_loads(java: str) -> bool:
    """A record extends the JDK's own archive; without that one the JVM refuses to record."""
    return _runs(java, "-Xshare:on")


def _runs(java: str, *options: str) -> bool:
    """Whether `java` with `options` starts and answers `-version`. It runs in a folder of its
    own: a JVM that crashes writes its report (`hs_err_pid….log`) where it runs."""
    with tempfile.TemporaryDirectory(prefix="engram-jvm-check-") as scratch:
        try:
            done = subprocess.run(
                [java, *options, "-version"],
                capture_output=True,
                check=False,
                timeout=120,
                cwd=scratch,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    return done.returncode == 0


def _drop_other_archives(folder: Path, kept: Path) -> None:
    """Archives of another Java or class path (a JVM still mapping one keeps its copy open)."""
    for archive in folder.glob("*.jsa"):
        if archive != kept:
            archive.unlink(missing_ok=True)
