"""`engram remember` states a fact by names from a terminal, its text recorded as evidence in the
same transaction: an object by name or a literal `--value`, never both, never neither."""

from __future__ import annotations

import re

from graph.runtime import Graph, Neo4jTarget, Settings
from tests.story import count, new_story
from tests.support import engram_env, run_engram

ID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
MINUTE = r"\d{4}-\d\d-\d\d \d\d:\d\d"


async def test_remember_a_fact_by_names_and_a_literal_from_a_terminal(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    await new_story(graph)
    env = engram_env(test_settings, neo4j_target)
    said = ["--space", "alice", "--evidence", "Alice: I started at Acme this week"]

    job = run_engram(
        env,
        "remember",
        "Alice",
        "WORKS_AT",
        "Acme",
        "--subject-kind",
        "person",
        "--object-kind",
        "org",
        *said,
    )
    assert (job.returncode, job.stderr) == (0, "")
    assert re.fullmatch(
        rf"remembered fact:person/alice:WORKS_AT \(revision 1, active, id {ID}\): "
        rf"Alice works at Acme — valid from {MINUTE} UTC\n",
        job.stdout,
    ), job.stdout

    age = run_engram(env, "remember", "alice", "AGE", "--value", "34", *said)
    assert (age.returncode, age.stderr) == (0, "")
    assert re.fullmatch(
        rf"remembered fact:person/alice:AGE \(revision 1, active, id {ID}\): "
        rf"Alice age 34 — valid from {MINUTE} UTC\n",
        age.stdout,
    ), age.stdout

    assert await count(graph, "Observation") == 2
    rows = await graph.read(
        "MATCH (c:Claim {key: 'fact:person/alice:AGE'}) RETURN c.valueJson AS value"
    )
    assert rows == [{"value": "34"}]


async def test_remember_wants_exactly_one_of_an_object_or_a_value_and_writes_nothing_else(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    await new_story(graph)
    env = engram_env(test_settings, neo4j_target)
    said = ["--space", "alice", "--evidence", "Alice: hi"]

    neither = run_engram(env, "remember", "Alice", "WORKS_AT", *said)
    both = run_engram(env, "remember", "Alice", "WORKS_AT", "Acme", "--value", "x", *said)
    for refused in (neither, both):
        assert (refused.returncode, refused.stdout) == (2, "")
        assert "give an OBJECT name or --value, not both" in refused.stderr

    unknown = run_engram(env, "remember", "Bob", "AGE", "--value", "40", *said)
    assert (unknown.returncode, unknown.stdout) == (1, "")
    assert unknown.stderr == (
        "engram: NOT_FOUND: no entity with name 'Bob' in space 'alice' "
        "(give its kind to create it)\n"
    )
    assert (await count(graph, "Observation"), await count(graph, "Claim")) == (0, 0)
