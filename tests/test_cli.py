"""The `engram` command end to end: serve over real HTTP, migrate, and loud bad configuration."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from graph.runtime import Neo4jTarget, Settings
from tests.support import ENGRAM, engram_env, free_port, run_engram, serving


@pytest.fixture
def served(test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path) -> Iterator[str]:
    """`engram serve` as a real process on a free port; yields its base URL."""
    log = tmp_path / "serve.log"
    with serving(engram_env(test_settings, neo4j_target), log, "--dev") as served:
        yield served.base
    base, port = served.base, served.base.rpartition(":")[2]
    printed = log.read_text()
    access = [json.loads(line) for line in printed.splitlines() if line.startswith('{"method"')]
    assert {"method": "GET", "path": "/readyz", "status": 200} in [
        {k: entry[k] for k in ("method", "path", "status")} for entry in access
    ], "a structured access log line per request"
    assert all(isinstance(entry["ms"], float | int) for entry in access)
    assert f"GraphQL  {base}/graphql" in printed
    # Browser fetches the guide it plays only from `localhost` until it has connected.
    assert f"Browser  http://localhost:{port}/browser/?dbms=" in printed
    assert "dev mode" in printed


def test_engram_serve_answers_graphql_and_serves_the_browser(served: str) -> None:
    created = httpx.post(
        f"{served}/graphql",
        json={"query": 'mutation { createSpace(name: "ops") { space { name } errors { code } } }'},
    ).json()
    assert created["data"] == {"createSpace": {"space": {"name": "ops"}, "errors": []}}
    listed = httpx.post(f"{served}/graphql", json={"query": "{ spaces { name } }"}).json()
    assert listed == {"data": {"spaces": [{"name": "ops"}]}, "extensions": {"queries": 1}}
    browser = httpx.get(f"{served}/browser/")
    assert browser.status_code == 200 and "Neo4j Browser" in browser.text
    assert httpx.get(f"{served}/healthz").json() == {"status": "ok"}


def test_engram_migrate_reports_up_to_date(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    done = run_engram(engram_env(test_settings, neo4j_target), "migrate")
    assert (done.returncode, done.stdout.strip()) == (0, "migrations: up to date")


def test_a_wrong_password_fails_loudly_with_a_non_zero_exit(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    env = engram_env(test_settings, neo4j_target, NEO4J_PASSWORD="not-the-password")
    done = run_engram(env, "migrate")
    assert done.returncode == 1
    assert f"Neo4j at {neo4j_target.uri} refused user 'neo4j'" in done.stderr
    assert "wrong NEO4J_USER/NEO4J_PASSWORD" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unreachable_uri_fails_loudly_with_a_non_zero_exit(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    env = engram_env(test_settings, neo4j_target, NEO4J_URI=f"bolt://127.0.0.1:{free_port()}")
    done = run_engram(env, "serve", "--port", str(free_port()))
    assert done.returncode == 1
    assert "is unreachable" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_database_fails_loudly(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    env = engram_env(test_settings, neo4j_target, NEO4J_DATABASE="nosuchdb")
    done = run_engram(env, "migrate")
    assert done.returncode == 1
    assert "has no database 'nosuchdb' (NEO4J_DATABASE)" in done.stderr


def test_a_malformed_uri_is_refused_by_the_settings(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    env = engram_env(test_settings, neo4j_target, NEO4J_URI="http://localhost:7474")
    done = run_engram(env, "migrate")
    assert done.returncode == 1
    assert "NEO4J_URI must start with one of bolt://" in done.stderr
    assert "Traceback" not in done.stderr


def test_neo4j_status_exits_3_when_the_local_server_is_not_running(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "ENGRAM_"))}
    env["ENGRAM_DATA_DIR"] = str(tmp_path)
    done = run_engram(env, "neo4j", "status")
    assert (done.returncode, done.stdout.strip()) == (3, "Neo4j is not running")


def test_version_prints_the_package_version() -> None:
    done = subprocess.run([*ENGRAM, "--version"], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, "engram 0.1.0\n")


def test_keys_list_prints_grants_verbatim_and_says_when_there_are_none(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    env = engram_env(test_settings, neo4j_target)
    empty = run_engram(env, "keys", "list")
    assert (empty.returncode, empty.stdout) == (0, "")
    assert "no API keys yet" in empty.stderr
    unknown = run_engram(env, "keys", "create", "--space", "alice", "--name", "a7")
    assert unknown.returncode == 2
    assert "no space named alice" in unknown.stderr
    assert run_engram(env, "spaces", "create", "alice").returncode == 0
    created = run_engram(
        env, "keys", "create", "--space", "alice", "--tier", "secret", "--write", "--name", "a7"
    )
    assert created.returncode == 0, created.stderr
    listed = run_engram(env, "keys", "list")
    [line] = listed.stdout.splitlines()
    key_id, state, name, grants = line.split("\t")
    assert (state, name, grants) == ("active", "a7", "alice:secret:write")
    assert created.stdout.startswith(f"egk_{key_id}_")
