"""The Java program that runs the local Neo4j (`Launcher.java`), compiled once per Java and
source into a jar in the cache, so a start does not compile it again (a jar, not a folder of
classes: the JVM's class-data archive takes only jars on the class path).

Java can run a source file directly, but it then loads its compiler and compiles the file on
every start: measured here, 2 s of CPU and 7–8 s on a busy machine, against 0.05 s for the
compiled class. Without a `javac` next to the `java` the source file is run as before.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from importlib import resources
from pathlib import Path

from graph.domain.errors import SetupError
from graph.store.local._maven import file_lock

MAIN_CLASS = "Launcher"
SOURCE = "Launcher.java"


def launcher_arguments(java: str, classpath: str, cache_dir: Path) -> list[str]:
    """What follows the JVM options on the command line: the class path and the program."""
    source = resources.files("graph.store.local") / SOURCE
    text = source.read_bytes()
    javac = Path(java).resolve().parent / "javac"
    if not javac.exists():
        with resources.as_file(source) as path:
            return ["-cp", classpath, str(path)]
    digest = hashlib.sha256(text + str(javac).encode()).hexdigest()[:16]
    built = cache_dir / "launcher" / f"{digest}.jar"
    if not built.exists():
        with file_lock(cache_dir / "launcher" / f"{digest}.lock"):
            if not built.exists():
                _compile(javac, text, classpath, built)
    return ["-cp", f"{built}{os.pathsep}{classpath}", MAIN_CLASS]


def is_launcher_command(cmdline: list[bytes]) -> bool:
    """Whether a process's arguments run the launcher (compiled or as a source file)."""
    return any(part == MAIN_CLASS.encode() or part.endswith(SOURCE.encode()) for part in cmdline)


def _compile(javac: Path, text: bytes, classpath: str, built: Path) -> None:
    built.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=built.parent))
    try:
        (work / SOURCE).write_bytes(text)
        done = subprocess.run(
            [str(javac), "-cp", classpath, "-d", str(work / "classes"), str(work / SOURCE)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SetupError(f"could not compile the Neo4j launcher with {javac}:\n{done.stderr}")
        with zipfile.ZipFile(work / "launcher.jar", "w") as jar:
            for compiled in sorted((work / "classes").glob("*.class")):
                jar.write(compiled, compiled.name)
        (work / "launcher.jar").replace(built)
    finally:
        shutil.rmtree(work, ignore_errors=True)
