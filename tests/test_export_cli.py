"""`engram explain` prints a relation explanation as a tree; `engram export` writes a space's
memory to take away, which `engram import` reads back."""

from __future__ import annotations

import re
from pathlib import Path

from graph.domain.wording import when
from graph.memory import Memory
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.people_story import people_story
from tests.story import TEST_ACTOR
from tests.support import engram_env, run_engram

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
[README_EXAMPLE] = re.findall(r"```\n(Alice \(entity:person:alice\) → Carol .*?)```", README, re.S)


async def test_engram_explain_prints_each_hop_with_names_intervals_and_evidence(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    people = await people_story(graph)
    before = people.before_correction
    env = engram_env(test_settings, neo4j_target)
    done = run_engram(
        env,
        "explain",
        "Alice",
        "entity:person:bob",
        "--as-of",
        "2022-06-01T00:00:00+00:00",
        "--known-at",
        before.isoformat(),
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "\n".join(
        [
            "Alice (entity:person:alice) → Bob (entity:person:bob) in alice, as of 2022-06-01, "
            f"known at {when(before)}: 1 path",
            "",
            "path 1 of 1 (2 hops)",
            "Alice (entity:person:alice)",
            "└─WORKS_AT→ Acme Global (entity:org:acme), valid from 2020-01-01",
            "   │ claim fact:person/alice:WORKS_AT:org/acme (revision 1, active, confidence 0.9)",
            "   │ “alice WORKS_AT acme” — user_stated, 2020-01-01",
            "   └─←WORKS_AT─ Bob (entity:person:bob), valid from 2019-01-01",
            "        claim fact:person/bob:WORKS_AT:org/acme (revision 1, active, confidence 0.9)",
            "        “bob WORKS_AT acme” — user_stated, 2019-01-01",
            "",
        ]
    )
    two = run_engram(env, "explain", "Alice", "Carol", "--as-of", "2024-01-01T00:00:00Z")
    assert (two.returncode, two.stdout) == (0, README_EXAMPLE), "the README's example is true"
    alone = run_engram(env, "explain", "alice", "carol", "--as-of", "2019-06-01T00:00:00Z")
    assert alone.returncode == 1
    assert alone.stdout == (
        "Alice (entity:person:alice) → Carol (entity:person:carol) in alice, as of 2019-06-01, "
        "known at now: no visible path of at most 3 hops in this asOf/knownAt view\n"
    )
    unknown = run_engram(env, "explain", "alice", "Dave")
    assert (unknown.returncode, unknown.stdout) == (1, "")
    assert unknown.stderr == "engram: NOT_FOUND: no visible entity named 'Dave'\n"


async def test_engram_export_writes_markdown_to_stdout_and_jsonl_that_engram_import_reads(
    memory: Memory, graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    await people_story(graph)
    await memory.writes.create_space(TEST_ACTOR, "copy", "")
    env = engram_env(test_settings, neo4j_target)
    shown = run_engram(env, "export", "--space", "alice", "--format", "markdown")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("# Memory of alice\n")
    assert "- Alice works at Globex — valid from 2023-07-01\n" in shown.stdout
    assert "  > “alice WORKS_AT globex” — user_stated, 2023-07-01\n" in shown.stdout
    assert "KNOWS" not in shown.stdout, "a retracted claim is not current"
    saved = tmp_path / "alice.jsonl"
    written = run_engram(env, "export", "--space", "alice", "--out", str(saved))
    lines = saved.read_text().splitlines()
    assert written.stdout == f"exported alice (jsonl, {len(lines)} lines) to {saved}\n"
    imported = run_engram(env, "import", str(saved), "--space", "copy", "--strict")
    assert imported.returncode == 0, imported.stdout
    assert f"{len(lines)} lines: {len(lines)} remembered" in imported.stdout
