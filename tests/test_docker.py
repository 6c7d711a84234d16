"""docker/: compose.yaml and the Dockerfile agree with compose itself and with Engram's settings.

No Docker engine runs here, so compose.yaml is loaded by compose-go, the loader `docker compose`
v2 uses (interpolation, normalisation, consistency checks), through the small Go program in
tests/compose_check; the tests assert on the project it resolves, not on re-parsed YAML.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from graph.runtime import NEO4J_VERSION, Settings

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = ROOT / "docker" / "compose.yaml"
DOCKERFILE = ROOT / "docker" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
COMPOSE_CHECK = ROOT / "tests" / "compose_check"

PASSWORD = "compose-check-password"
ENGRAM_SERVICES = ("migrate", "engram")


def engram_variables() -> set[str]:
    """Every environment variable Engram's settings read."""
    names: set[str] = set()
    for field in Settings.model_fields.values():
        alias = field.validation_alias
        choices = alias.choices if alias is not None and hasattr(alias, "choices") else [alias]
        names.update(choice for choice in choices if isinstance(choice, str))
    return names


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs of docker/Dockerfile, continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        keyword, _, arguments = (pending + stripped).partition(" ")
        instructions.append((keyword.upper(), arguments.strip()))
        pending = ""
    return instructions


def instruction(name: str) -> list[str]:
    return [arguments for keyword, arguments in dockerfile_instructions() if keyword == name]


def dockerignore_patterns() -> list[str]:
    lines = (line.strip() for line in DOCKERIGNORE.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def compose_env(**overrides: str) -> dict[str, str]:
    """The test's environment without anything compose or Engram would read, plus overrides."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("NEO4J_", "ENGRAM_", "COMPOSE_", "DOCKER_"))
    }
    env.update(overrides)
    return env


@pytest.fixture(scope="session")
def compose_check(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/compose_check built once per run (the first build fetches compose-go)."""
    go = shutil.which("go")
    if go is None:
        pytest.fail(
            "Go is needed to validate docker/compose.yaml with compose-go; install Go 1.24+"
        )
    binary = tmp_path_factory.mktemp("compose_check") / "compose_check"
    built = subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=COMPOSE_CHECK,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if built.returncode != 0:
        pytest.fail(f"building tests/compose_check failed:\n{built.stderr}")
    return binary


def load_compose(
    compose_check: Path, compose_file: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Load compose_file as `docker compose` would, with every profile enabled."""
    return subprocess.run(
        [str(compose_check), "--profile", "*", str(compose_file)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="session")
def project(compose_check: Path) -> dict[str, Any]:
    """docker/compose.yaml as compose resolves it, with NEO4J_PASSWORD set."""
    loaded = load_compose(compose_check, COMPOSE_FILE, compose_env(NEO4J_PASSWORD=PASSWORD))
    assert loaded.returncode == 0, f"compose refused docker/compose.yaml:\n{loaded.stderr}"
    resolved: dict[str, Any] = json.loads(loaded.stdout)
    return resolved


@pytest.fixture(scope="session")
def services(project: dict[str, Any]) -> dict[str, Any]:
    services: dict[str, Any] = project["services"]
    return services


def test_compose_defines_neo4j_a_one_shot_migrate_and_engram(services: dict[str, Any]) -> None:
    assert sorted(services) == ["engram", "migrate", "neo4j"]


def test_neo4j_image_is_the_community_release_engram_runs_locally(
    services: dict[str, Any],
) -> None:
    assert NEO4J_VERSION.startswith("5.26.")
    assert services["neo4j"]["image"] == f"neo4j:{NEO4J_VERSION}-community"


def test_one_required_variable_sets_the_neo4j_password_for_neo4j_and_engram(
    services: dict[str, Any],
) -> None:
    assert services["neo4j"]["environment"] == {"NEO4J_AUTH": f"neo4j/{PASSWORD}"}
    for name in ENGRAM_SERVICES:
        assert services[name]["environment"]["NEO4J_USER"] == "neo4j"
        assert services[name]["environment"]["NEO4J_PASSWORD"] == PASSWORD
    raw = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    assert raw["neo4j"]["environment"]["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD:?")
    for name in ENGRAM_SERVICES:
        assert raw[name]["environment"]["NEO4J_PASSWORD"].startswith("${NEO4J_PASSWORD:?")


def test_compose_refuses_to_start_without_neo4j_password(compose_check: Path) -> None:
    loaded = load_compose(compose_check, COMPOSE_FILE, compose_env())
    assert loaded.returncode == 1
    assert loaded.stdout == ""
    refusal = "required variable NEO4J_PASSWORD is missing a value: set NEO4J_PASSWORD"
    assert f"error while interpolating services.neo4j.environment.NEO4J_AUTH: {refusal}" in (
        loaded.stderr
    )
    for name in ENGRAM_SERVICES:
        assert (
            f"error while interpolating services.{name}.environment.NEO4J_PASSWORD: {refusal}"
        ) in loaded.stderr


def test_compose_check_refuses_a_service_that_depends_on_an_undefined_one(
    compose_check: Path, tmp_path: Path
) -> None:
    broken = yaml.safe_load(COMPOSE_FILE.read_text())
    broken["services"]["engram"]["depends_on"]["search"] = {"condition": "service_started"}
    broken_file = tmp_path / "compose.yaml"
    broken_file.write_text(yaml.safe_dump(broken))
    loaded = load_compose(compose_check, broken_file, compose_env(NEO4J_PASSWORD=PASSWORD))
    assert loaded.returncode == 1
    assert loaded.stdout == ""
    assert loaded.stderr == (
        'service "engram" depends on undefined service "search": invalid compose project\n'
    )


def test_neo4j_keeps_its_data_in_a_named_volume(project: dict[str, Any]) -> None:
    neo4j = project["services"]["neo4j"]
    assert [(v["type"], v["source"], v["target"]) for v in neo4j["volumes"]] == [
        ("volume", "neo4j-data", "/data")
    ]
    assert "neo4j-data" in project["volumes"]


def test_neo4j_is_healthy_once_bolt_answers_a_query_with_the_password(
    services: dict[str, Any],
) -> None:
    healthcheck = services["neo4j"]["healthcheck"]
    assert healthcheck["test"] == [
        "CMD-SHELL",
        "cypher-shell -u neo4j -p \"${NEO4J_AUTH#neo4j/}\" 'RETURN 1' >/dev/null",
    ]
    assert healthcheck["retries"] >= 10
    # The image's entrypoint turns any other NEO4J_* variable into a setting Neo4j would reject.
    assert "NEO4J_PASSWORD" not in services["neo4j"]["environment"]


def test_neo4j_publishes_browser_and_bolt_on_localhost(services: dict[str, Any]) -> None:
    ports = [(p["host_ip"], p["published"], p["target"]) for p in services["neo4j"]["ports"]]
    assert ports == [("127.0.0.1", "7474", 7474), ("127.0.0.1", "7687", 7687)]


def test_engram_services_set_only_variables_engram_reads(services: dict[str, Any]) -> None:
    known = engram_variables()
    assert {"NEO4J_URI", "NEO4J_PASSWORD", "ENGRAM_PORT", "ENGRAM_BROWSER"} <= known
    for name in ENGRAM_SERVICES:
        unknown = set(services[name]["environment"]) - known
        assert unknown == set(), f"{name} sets variables Engram does not read: {unknown}"


def test_engram_services_share_one_image_and_one_configuration(services: dict[str, Any]) -> None:
    migrate, engram = services["migrate"], services["engram"]
    assert migrate["image"] == engram["image"] == "engramdb:local"
    assert migrate["build"] == engram["build"]
    assert migrate["environment"] == engram["environment"]


def test_engram_reaches_neo4j_over_bolt_at_the_neo4j_service(services: dict[str, Any]) -> None:
    bolt_targets = {port["target"] for port in services["neo4j"]["ports"]}
    assert 7687 in bolt_targets
    for name in ENGRAM_SERVICES:
        environment = services[name]["environment"]
        assert environment["NEO4J_URI"] == "bolt://neo4j:7687"
        assert environment["NEO4J_DATABASE"] == "neo4j"
        Settings(NEO4J_URI=environment["NEO4J_URI"])  # a scheme Engram accepts


def test_engram_listens_on_all_interfaces_at_the_published_port(
    services: dict[str, Any],
) -> None:
    environment = services["engram"]["environment"]
    assert environment["ENGRAM_HOST"] == "0.0.0.0"
    assert environment["ENGRAM_PORT"] == str(Settings.model_fields["port"].default) == "8000"
    ports = [(p["host_ip"], p["published"], p["target"]) for p in services["engram"]["ports"]]
    assert ports == [("127.0.0.1", "8000", 8000)]


def test_engram_leaves_neo4j_browser_to_the_neo4j_container(services: dict[str, Any]) -> None:
    for name in ENGRAM_SERVICES:
        assert services[name]["environment"]["ENGRAM_BROWSER"] == "false"
        assert Settings(ENGRAM_BROWSER="false").browser is False


def test_migrate_runs_once_after_neo4j_is_healthy(services: dict[str, Any]) -> None:
    migrate = services["migrate"]
    assert migrate["command"] == ["engram", "migrate"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"] == {"neo4j": {"condition": "service_healthy", "required": True}}
    assert "ports" not in migrate


def test_engram_serves_only_after_migrate_completed_successfully(
    services: dict[str, Any],
) -> None:
    engram = services["engram"]
    assert engram["command"] == ["engram", "serve"]
    assert engram["depends_on"] == {
        "neo4j": {"condition": "service_healthy", "required": True},
        "migrate": {"condition": "service_completed_successfully", "required": True},
    }


def test_engram_is_healthy_when_readyz_answers_on_engram_port(services: dict[str, Any]) -> None:
    healthcheck = services["engram"]["healthcheck"]
    assert healthcheck["test"][:3] == ["CMD", "python", "-c"]
    probe = healthcheck["test"][3]
    assert "urllib.request.urlopen(f'http://127.0.0.1:{os.environ[\"ENGRAM_PORT\"]}/readyz'" in (
        probe
    )
    compile(probe, "healthcheck", "exec")


def test_compose_builds_engram_from_the_repository_root(services: dict[str, Any]) -> None:
    assert services["engram"]["build"] == {
        "context": str(ROOT),
        "dockerfile": "docker/Dockerfile",
    }


@pytest.mark.fast
def test_dockerfile_runs_engram_serve_on_python_311_slim_as_a_non_root_user() -> None:
    assert instruction("FROM") == ["python:3.11-slim"]
    assert instruction("USER") == ["engram"]
    assert instruction("CMD") == ['["engram", "serve"]']
    installs = [run for run in instruction("RUN") if "pip install" in run]
    assert installs and installs[0].startswith("pip install --no-cache-dir . ")


def test_dockerfile_listens_where_compose_publishes(services: dict[str, Any]) -> None:
    environment = " ".join(instruction("ENV"))
    assert "ENGRAM_HOST=0.0.0.0" in environment.split()
    assert "ENGRAM_PORT=8000" in environment.split()
    assert "ENGRAM_BROWSER=false" in environment.split()
    published = {str(port["target"]) for port in services["engram"]["ports"]}
    assert set(instruction("EXPOSE")) == published == {"8000"}


@pytest.mark.fast
def test_dockerfile_healthcheck_asks_healthz_with_python() -> None:
    (healthcheck,) = instruction("HEALTHCHECK")
    options, _, command = healthcheck.partition(" CMD ")
    assert options.split() == [
        "--interval=10s",
        "--timeout=5s",
        "--start-period=20s",
        "--retries=3",
    ]
    argv = json.loads(command)
    assert argv[:2] == ["python", "-c"]
    assert "/healthz" in argv[2]
    assert 'os.environ["ENGRAM_PORT"]' in argv[2]
    compile(argv[2], "healthcheck", "exec")


@pytest.mark.fast
def test_dockerfile_copies_existing_paths_that_hold_every_package() -> None:
    copied: list[str] = []
    for arguments in instruction("COPY"):
        *sources, _destination = (a for a in shlex.split(arguments) if not a.startswith("--"))
        copied.extend(sources)
    assert copied == ["pyproject.toml", "README.md", "graph", "api", "migrations"]
    for source in copied:
        assert (ROOT / source).exists(), f"COPY {source}: no such path in the repository"
        excluded = [p for p in dockerignore_patterns() if fnmatch.fnmatch(source, p)]
        assert excluded == [], f"COPY {source} is excluded by .dockerignore"
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    assert set(found) == {"find"}, "packages are found by their include patterns"
    assert {package.split(".")[0] for package in found["find"]["include"]} == {
        "graph",
        "api",
        "migrations",
    }
    assert {"graph", "api", "migrations"} <= set(copied)


@pytest.mark.fast
def test_dockerignore_keeps_venv_git_and_caches_out_of_the_build_context() -> None:
    patterns = set(dockerignore_patterns())
    assert {
        ".git",
        ".venv",
        "**/__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
        "*.egg-info",
    } <= patterns
