"""engram import: JSONL memory items in the spec's shape, idempotent, refusals reported."""

from __future__ import annotations

import json
from pathlib import Path

from graph.domain.actor import Actor
from graph.domain.vocabulary import ClaimStatus, EpisodeKind, EpisodeStatus
from graph.memory import Memory, View
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.story import count
from tests.support import engram_env, run_engram

LINES = [
    {
        "type": "preferences",
        "key": "pref:writing:tone",
        "value_json": json.dumps({"scope": "writing", "name": "tone", "value": "exacting"}),
        "confidence": 0.9,
        "status": "active",
        "updated_at": "2026-02-20T10:00:00+00:00",
        "authority": "user_stated",
        "source_message_id": "m-17",
    },
    {
        "type": "entities",
        "key": "entity:repo:zhuangbiaowei/smart_rag",
        "value_json": {"kind": "repo", "aliases": ["smart_rag"], "attrs": {"host": "github.com"}},
        "confidence": 0.8,
    },
    {
        "type": "decisions",
        "key": "decision:smartrag:retrieve_api_contract",
        "value_json": {"decision": "Add retrieve(plan) returning EvidencePack"},
        "status": "retracted",
    },
    {"type": "goals", "key": "goal:smartbrain:old", "value_json": {}, "status": "superseded"},
    {"type": "profile", "key": "profile:user", "value_json": {"role": "x"}, "confidence": 0.9},
    {"type": "preferences", "key": "pref:food:tea", "value_json": {"value": "green"}},
]


def jsonl(lines: list[object]) -> list[str]:
    return [json.dumps(line) for line in lines] + ["", "not json"]


async def test_import_remembers_valid_lines_and_reports_the_rest(
    memory: Memory, graph: Graph
) -> None:
    await memory.writes.create_space(Actor.operator("test"), "alice", "")
    report = await memory.admin.import_items(
        Actor.operator("t"), "alice", jsonl(LINES), source="items.jsonl"
    )
    assert (report.lines, report.remembered, report.retracted, report.already_known) == (
        8,
        3,
        1,
        0,
    )
    assert [(r.line, r.code, r.message) for r in report.skipped] == [
        (4, "SKIPPED", "superseded history is not imported (no recorded time)")
    ]
    assert [(r.line, r.code) for r in report.refused] == [
        (5, "GATE_REFUSED"),
        (6, "VALIDATION"),
        (8, "VALIDATION"),
    ]
    view = await View.open(graph, "alice")
    [tone] = await memory.reads.claims_by_key(view, "pref:writing:tone")
    assert tone.value == {"scope": "writing", "name": "tone", "value": "exacting"}
    assert tone.evidence[0].authority.value == "user_stated"
    assert json.loads(tone.evidence[0].text or "")["source_message_id"] == "m-17"
    history = await memory.reads.claim_history(view, "decision:smartrag:retrieve_api_contract")
    assert [h.status for h in history] == [ClaimStatus.SUPERSEDED, ClaimStatus.RETRACTED]
    assert report.episode_id is not None
    episode = await memory.reads.episode(view, report.episode_id)
    assert (episode.kind, episode.status, len(episode.observations)) == (
        EpisodeKind.IMPORT,
        EpisodeStatus.SEALED,
        3,
    ), "refused lines leave no observation behind"


async def test_reimporting_the_same_file_writes_nothing(memory: Memory, graph: Graph) -> None:
    await memory.writes.create_space(Actor.operator("test"), "alice", "")
    lines = jsonl(LINES)
    await memory.admin.import_items(Actor.operator("t"), "alice", lines, source="items.jsonl")
    before = await graph.read("MATCH (n) RETURN count(n) AS nodes")
    again = await memory.admin.import_items(
        Actor.operator("t"), "alice", lines, source="items.jsonl"
    )
    assert (again.remembered, again.already_known, again.episode_id) == (0, 3, None)
    assert await graph.read("MATCH (n) RETURN count(n) AS nodes") == before


async def test_a_batch_with_one_bad_line_keeps_the_good_ones(memory: Memory, graph: Graph) -> None:
    await memory.writes.create_space(Actor.operator("test"), "alice", "")
    lines = [
        json.dumps({"type": "tasks", "key": f"task:engram:t{i}", "value_json": {"status": "todo"}})
        for i in range(5)
    ]
    lines[2] = json.dumps(
        {"type": "fact", "subject": "entity:person:nobody", "predicate": "AGE", "value": 3}
    )
    report = await memory.admin.import_items(
        Actor.operator("t"), "alice", lines, source="x", batch_size=10
    )
    assert report.remembered == 4
    assert [(r.line, r.code) for r in report.refused] == [(3, "NOT_FOUND")]
    assert await count(graph, "Claim") == 4
    assert await count(graph, "Observation") == 4


async def test_engram_import_shows_progress_and_writes_a_report(
    memory: Memory, test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    await memory.writes.create_space(Actor.operator("test"), "alice", "")
    source = tmp_path / "items.jsonl"
    source.write_text("\n".join(jsonl(LINES)) + "\n")
    env = engram_env(test_settings, neo4j_target)
    done = run_engram(
        env,
        "import",
        str(source),
        "--space",
        "alice",
        "--report",
        str(tmp_path / "report.json"),
        "--strict",
    )
    assert done.returncode == 2, done.stderr
    assert "8 lines: 3 remembered (1 then retracted), 0 already known, 1 skipped, 3 refused" in (
        done.stdout
    )
    assert "line 5: GATE_REFUSED: profile claims need at least one evidence" in done.stdout
    assert "importing items.jsonl" in done.stderr
    saved = json.loads((tmp_path / "report.json").read_text())
    assert (saved["remembered"], len(saved["refused"])) == (3, 3)
    rerun = run_engram(env, "import", str(source), "--space", "alice")
    assert rerun.returncode == 0
    assert "0 remembered (0 then retracted), 3 already known" in rerun.stdout


async def test_engram_import_refuses_lines_that_are_not_unicode_by_their_numbers(
    memory: Memory, test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    await memory.writes.create_space(Actor.operator("test"), "alice", "")
    good = {
        "type": "preferences",
        "key": "pref:other:tea",
        "value_json": {"value": "green"},
        "authority": "user_stated",
    }
    lone = {"type": "preferences", "key": "pref:other:cake", "value_json": {"value": "\ud800"}}
    source = tmp_path / "items.jsonl"
    # json.dumps escapes the lone surrogate (`\ud800`); the third line's bytes are no UTF-8.
    source.write_bytes(f"{json.dumps(good)}\n{json.dumps(lone)}\n".encode() + b'{"k": "\xff"}\n')
    env = engram_env(test_settings, neo4j_target)

    done = run_engram(env, "import", str(source), "--space", "alice")

    assert (done.returncode, done.stderr.count("Traceback")) == (0, 0), done.stderr
    assert "3 lines: 1 remembered (0 then retracted), 0 already known, 0 skipped, 2 refused" in (
        done.stdout
    )
    assert "line 2: VALIDATION: a string holds a lone surrogate (not Unicode text)" in done.stdout
    assert "line 3: VALIDATION: not UTF-8 text" in done.stdout
