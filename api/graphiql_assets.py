"""GraphiQL's scripts and stylesheet, fetched once as WebJars from Maven Central.

WebJars repackage npm releases as jars (`org.webjars.npm:<name>`), so GraphiQL arrives by the
same Maven that fetches Neo4j and Neo4j Browser, into the same `~/.m2`, and dev mode serves it
from Engram's own origin instead of a CDN a machine offline cannot reach.

    assets = graphiql_assets(settings.cache_dir)
    assets.scripts
    ('react/18.2.0/umd/react.production.min.js', 'react-dom/18.2.0/umd/react-dom.production.min.js',
     'graphiql/2.4.7/graphiql.min.js')
"""

from __future__ import annotations

import shutil
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from graph.domain.errors import SetupError
from graph.runtime import fetch_from_maven, maven_cache_lock


@dataclass(frozen=True)
class WebJar:
    """One `org.webjars.npm` artifact and the files Engram takes from it."""

    name: str
    version: str
    files: tuple[str, ...]

    @property
    def jar(self) -> str:
        return f"{self.name}-{self.version}.jar"

    def member(self, file: str) -> str:
        return f"META-INF/resources/webjars/{self.name}/{self.version}/{file}"

    def path(self, file: str) -> str:
        """Where `file` lies in the assets directory (and below the URL it is served at)."""
        return f"{self.name}/{self.version}/{file}"


GRAPHIQL_WEBJARS = (
    WebJar("react", "18.2.0", ("umd/react.production.min.js",)),
    WebJar("react-dom", "18.2.0", ("umd/react-dom.production.min.js",)),
    # 2.4.7 is the newest GraphiQL published as a WebJar; its UMD bundle runs on React 18 and
    # its stylesheet carries its fonts inline, so nothing else is loaded.
    WebJar("graphiql", "2.4.7", ("graphiql.min.js", "graphiql.min.css")),
)
"""In load order: GraphiQL's bundle expects the globals `React` and `ReactDOM`."""


@dataclass(frozen=True)
class GraphiQLAssets:
    """GraphiQL's files on disk: `directory` holds each path of `scripts` and `stylesheets`."""

    directory: Path
    scripts: tuple[str, ...]
    stylesheets: tuple[str, ...]


def _assets(directory: Path) -> GraphiQLAssets:
    paths = [jar.path(file) for jar in GRAPHIQL_WEBJARS for file in jar.files]
    return GraphiQLAssets(
        directory=directory,
        scripts=tuple(path for path in paths if path.endswith(".js")),
        stylesheets=tuple(path for path in paths if path.endswith(".css")),
    )


def graphiql_assets(cache_dir: Path) -> GraphiQLAssets:
    """GraphiQL's scripts and stylesheet, fetched from Maven Central and unpacked on first use."""
    fingerprint = "-".join(f"{jar.name}-{jar.version}" for jar in GRAPHIQL_WEBJARS)
    target = cache_dir / f"graphiql-{fingerprint}"
    assets = _assets(target)
    with maven_cache_lock(cache_dir):
        if all((target / path).is_file() for path in (*assets.scripts, *assets.stylesheets)):
            return assets
        if shutil.which("mvn") is None:
            raise SetupError(
                "Maven (`mvn`) is needed once to fetch GraphiQL from Maven Central; install "
                "Maven (the GraphQL API itself needs no GraphiQL)"
            )
        print(
            "engram: fetching GraphiQL and React from Maven Central into ~/.m2 "
            "(first run only, about 4 MB)…",
            file=sys.stderr,
            flush=True,
        )
        jar_dir = cache_dir / "jars"
        for jar in GRAPHIQL_WEBJARS:
            fetch_from_maven(
                f"org.webjars.npm:{jar.name}:{jar.version}", jar_dir, f"{jar.name} {jar.version}"
            )
        staging = cache_dir / f".graphiql-{fingerprint}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        for jar in GRAPHIQL_WEBJARS:
            with zipfile.ZipFile(jar_dir / jar.jar) as archive:
                for file in jar.files:
                    destination = staging / jar.path(file)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    destination.write_bytes(archive.read(jar.member(file)))
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
        return assets
