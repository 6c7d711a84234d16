"""Test fixtures: one real Neo4j for the whole run, clean data before every test that may use
it (every test but the fast tier's, marked `fast`: pure logic, run without Neo4j by
`./scripts/test --fast`).

The local Neo4j is started in a fresh data directory (or `NEO4J_URI` is used). If it cannot be
started the run stops with the reason — tests never skip for want of a database.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, settings

from api.app import create_app
from graph.domain.errors import SetupError
from graph.memory import Memory
from graph.runtime import (
    Embedder,
    Graph,
    LocalNeo4j,
    Neo4jTarget,
    Settings,
    connect,
    resolve_target,
)
from graph.store.integrity import RULES, WRITE_RULES, violations
from graph.store.migrate import migrate
from tests.http import running
from tests.run_order import by_length
from tests.support import QUICK_NEO4J_CONFIG, SHORT_LIVED_NEO4J_JVM, delete_all_data

# Property tests: fixed seed and ≥ 200 examples in CI; `HYPOTHESIS_PROFILE=deep` for more.
settings.register_profile(
    "ci",
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "deep",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long files first, so the two workers finish together (tests/run_order.py); every
    test but the fast tier's (`pytest.mark.fast`: pure logic, no Neo4j) starts from a clean
    database."""
    by_length(items)
    for item in items:
        if item.get_closest_marker("fast") is None and isinstance(item, pytest.Function):
            item.fixturenames.insert(0, "clean_graph")


@pytest.fixture(scope="session")
def test_settings() -> Iterator[Settings]:
    """Settings for the run: a private data directory, the shared download cache."""
    data_dir = Path(
        os.environ.get("ENGRAM_TEST_DATA_DIR") or tempfile.mkdtemp(prefix="engram-test-")
    )
    # The embedding worker runs only in the tests about it (it would race the tests' clean-ups).
    yield Settings(
        data_dir=data_dir,
        dev=True,
        embed_interval=0,
        neo4j_config=QUICK_NEO4J_CONFIG,
    )


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The packaged MiniLM model, loaded once for the run."""
    return Embedder()


@pytest.fixture(scope="session")
def neo4j_target(test_settings: Settings) -> Iterator[Neo4jTarget]:
    """The real Neo4j every test uses; stopped at the end if this run started it."""
    try:
        target = resolve_target(test_settings)
    except SetupError as failure:
        pytest.exit(
            f"Neo4j is needed for the tests and could not be used:\n{failure}", returncode=1
        )
    yield target
    if target.local is not None and target.local.started_here:
        LocalNeo4j(test_settings).stop()


@pytest.fixture(scope="session")
async def graph(neo4j_target: Neo4jTarget) -> AsyncIterator[Graph]:
    """A migrated connection to the test Neo4j."""
    connection = await connect(neo4j_target)
    await migrate(connection)
    yield connection
    await connection.close()


@pytest.fixture
def memory(graph: Graph, test_settings: Settings, embedder: Embedder) -> Memory:
    """The door, `graph.memory.Memory`, on the test Neo4j: what tests read and write through."""
    return Memory(graph, test_settings, embedder)


@pytest.fixture(scope="session")
def restore_target(test_settings: Settings) -> Iterator[Neo4jTarget]:
    """A second, isolated local Neo4j that restores go into (started on first use)."""
    home = Path(tempfile.mkdtemp(prefix="engram-restore-"))
    settings = test_settings.model_copy(
        update={"data_dir": home, "neo4j_uri": None, "neo4j_jvm_options": SHORT_LIVED_NEO4J_JVM}
    )
    try:
        target = resolve_target(settings)
    except SetupError as failure:
        pytest.exit(f"the restore target Neo4j could not start:\n{failure}", returncode=1)
    yield target
    LocalNeo4j(settings).stop()
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
async def restored(restore_target: Neo4jTarget) -> AsyncIterator[Graph]:
    """The restore target, emptied (its schema kept) for the test."""
    target = await connect(restore_target)
    await delete_all_data(target)
    yield target
    await target.close()


@pytest.fixture
async def client(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    """HTTP to an in-process Engram in dev mode (no key needed), its lifespan running."""
    async with running(create_app(test_settings, neo4j_target)) as http:
        yield http


@pytest.fixture
async def clean_graph(graph: Graph) -> AsyncIterator[None]:
    """Every test starts from a migrated, empty database, and leaves every invariant holding."""
    await delete_all_data(graph)
    yield
    broken = await violations(graph, {**RULES, **WRITE_RULES})
    assert broken == {}, f"database invariants broken after the test: {broken}"
