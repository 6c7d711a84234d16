"""Fetching the local Neo4j's jars and Neo4j Browser from Maven Central, once.

Maven keeps what it downloads in its local repository (`~/.m2`), so only the first run on a
machine downloads; later runs resolve the classpath offline from that cache.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from graph.domain.errors import SetupError

_POM = "pom.xml"


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on `path` (created if missing) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _mvn() -> str:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise SetupError(
            "Maven (`mvn`) is needed once to fetch Neo4j from Maven Central; install Maven or "
            "set NEO4J_URI to use an existing Neo4j"
        )
    return mvn


def run_maven(args: list[str], what: str) -> None:
    with resources.as_file(resources.files("graph.store.local") / _POM) as pom:
        command = [_mvn(), "-B", "-q", "-f", str(pom), *args]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        raise SetupError(f"Maven could not fetch {what} (exit {done.returncode}):\n{tail}")


def neo4j_classpath(version: str, cache_dir: Path) -> str:
    """The classpath of Neo4j Community `version`, fetching its jars on first use."""
    listing = cache_dir / f"neo4j-{version}.classpath"
    with file_lock(cache_dir / "maven.lock"):
        if listing.exists():
            classpath = listing.read_text().strip()
            if classpath and all(Path(jar).is_file() for jar in classpath.split(":")):
                return classpath
        print(
            f"engram: fetching Neo4j Community {version} from Maven Central into ~/.m2 "
            "(first run only, about 125 MB)…",
            file=sys.stderr,
            flush=True,
        )
        run_maven(
            [
                "dependency:build-classpath",
                f"-Dneo4j.version={version}",
                "-DincludeScope=runtime",
                f"-Dmdep.outputFile={listing}",
            ],
            f"Neo4j {version}",
        )
        return listing.read_text().strip()


def neo4j_browser(version: str, cache_dir: Path) -> Path:
    """The directory of Neo4j Browser's static files, fetched and unpacked on first use."""
    target = cache_dir / f"neo4j-browser-{version}"
    index = target / "browser" / "index.html"
    with file_lock(cache_dir / "maven.lock"):
        if index.is_file():
            return target / "browser"
        jar_dir = cache_dir / "jars"
        run_maven(
            [
                "dependency:copy",
                f"-Dartifact=org.neo4j.client:neo4j-browser:{version}",
                f"-DoutputDirectory={jar_dir}",
            ],
            f"Neo4j Browser {version}",
        )
        jar = jar_dir / f"neo4j-browser-{version}.jar"
        staging = cache_dir / f".neo4j-browser-{version}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        with zipfile.ZipFile(jar) as archive:
            members = [name for name in archive.namelist() if name.startswith("browser/")]
            archive.extractall(staging, members)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
        return target / "browser"
