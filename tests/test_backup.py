"""Backup and restore: a checksummed archive, refused when damaged, restored into an isolated
target that replays the tombstone ledger and verifies itself, three times in a row on 50k
claims."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.generate import generate
from graph.commands.artifacts import add_artifact
from graph.domain.actor import Actor
from graph.domain.errors import SetupError
from graph.domain.vocabulary import SelectorKind
from graph.erasure.forget import forget
from graph.jobs.backup import backup, read_manifest, restore
from graph.memory import ArtifactInput, ForgetInput, Selector
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.people_story import people_story
from tests.support import DEEP, delete_all_data, engram_env, run_engram


async def test_a_backup_is_a_checksummed_archive_with_a_manifest(
    graph: Graph, tmp_path: Path
) -> None:
    await people_story(graph)
    report = await backup(graph, tmp_path / "b.zip", blob_root=tmp_path)
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        members = sorted(archive.namelist())
        manifest = json.loads(archive.read("manifest.json"))
    assert members == ["manifest.json", "nodes.jsonl", "relationships.jsonl", "tombstones.jsonl"]
    assert manifest["format"] == "engram-backup/2"
    assert manifest["counts"]["nodes"] == report.nodes > 50
    assert sorted(manifest["sha256"]) == ["nodes.jsonl", "relationships.jsonl", "tombstones.jsonl"]
    assert manifest["migrations"][0]["name"] == "V0001__constraints"
    assert read_manifest(tmp_path / "b.zip") == manifest


async def test_a_damaged_archive_is_refused(graph: Graph, tmp_path: Path) -> None:
    await people_story(graph)
    await backup(graph, tmp_path / "b.zip", blob_root=tmp_path)
    with (
        zipfile.ZipFile(tmp_path / "b.zip") as source,
        zipfile.ZipFile(tmp_path / "damaged.zip", "w") as damaged,
    ):
        for member in source.namelist():
            data = source.read(member)
            if member == "nodes.jsonl":
                data = data.replace(b"Alice", b"Alicia")
            damaged.writestr(member, data)
    with pytest.raises(SetupError, match="nodes.jsonl does not match its checksum"):
        read_manifest(tmp_path / "damaged.zip")


async def test_a_restore_refuses_a_target_that_is_not_empty(
    graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    await people_story(graph)
    await backup(graph, tmp_path / "b.zip", blob_root=tmp_path)
    await people_story(restored, "occupied")
    with pytest.raises(SetupError, match="the restore target is not empty"):
        await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r")


async def test_blobs_travel_with_the_backup(graph: Graph, restored: Graph, tmp_path: Path) -> None:
    await people_story(graph)
    blobs = tmp_path / "blobs"
    (blobs / "docs").mkdir(parents=True)
    (blobs / "docs" / "contract.txt").write_text("the contract")
    await add_artifact(
        graph,
        "alice",
        ArtifactInput(path="docs/contract.txt"),
        blob_root=blobs,
        actor=Actor.operator("t"),
    )
    report = await backup(graph, tmp_path / "b.zip", blob_root=blobs)
    assert report.blobs == 1
    restored_report = await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r")
    assert restored_report.blobs == 1
    assert (tmp_path / "r" / "docs" / "contract.txt").read_text() == "the contract"


async def test_a_restore_deletes_blob_files_forgotten_after_the_backup(
    graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    await people_story(graph)
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    (blobs / "scan.txt").write_text("forget me")
    artifact = await add_artifact(
        graph, "alice", ArtifactInput(path="scan.txt"), blob_root=blobs, actor=Actor.operator("t")
    )
    await backup(graph, tmp_path / "b.zip", blob_root=blobs)
    await forget(
        graph,
        "alice",
        ForgetInput(selector=Selector(kind=SelectorKind.ARTIFACT, id=artifact.id), reason="x"),
        actor=Actor.operator("t"),
        blob_root=blobs,
    )
    assert not (blobs / "scan.txt").exists()
    await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r", ledger=graph)
    assert not (tmp_path / "r" / "scan.txt").exists(), "the replay deleted what the archive had"


def test_engram_backup_and_restore_report_size_rpo_and_rto(
    test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    env = engram_env(test_settings, neo4j_target)
    made = run_engram(env, "backup", str(tmp_path / "cli.zip"))
    assert made.returncode == 0, made.stderr
    assert "(RPO)" in made.stdout and "bytes" in made.stdout
    done = run_engram(
        env, "restore", str(tmp_path / "cli.zip"), "--into", str(tmp_path / "db"), timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "RTO" in done.stdout and "RPO" in done.stdout
    assert "  invariants: hold" in done.stdout
    assert f"serve it with: ENGRAM_DATA_DIR={tmp_path / 'db'} engram serve" in done.stdout
    refused = run_engram(env, "restore", str(tmp_path / "cli.zip"), "--into", str(tmp_path / "db"))
    assert refused.returncode == 1
    assert "is not empty" in refused.stderr


BULK_CLAIMS = 50_000 if DEEP else 1_500
"""The bulk round trip's size: 1,500 claims in every run (10,000 took 250 s of a two-core
suite's time), 50,000 with the deep profile (`HYPOTHESIS_PROFILE=deep ./scripts/test`)."""


@pytest.mark.slow
@pytest.mark.timeout(1500)  # ~5 min on an idle machine; over 10 on one busy with other work
async def test_backup_restore_verify_three_times_in_a_row_on_a_bulk_space(
    graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    generated = await generate(graph, "bulk", claims=BULK_CLAIMS, show_progress=False)
    archive = tmp_path / "bulk.zip"
    made = await backup(graph, archive, blob_root=tmp_path)
    victim = generated.claim_ids[123]
    await forget(
        graph,
        "bulk",
        ForgetInput(selector=Selector(kind=SelectorKind.CLAIM, id=victim), reason="asked"),
        actor=Actor.operator("t"),
        blob_root=tmp_path,
    )
    for round_ in range(3):
        if round_:
            await delete_all_data(restored)
        report = await restore(restored, archive, blob_root=tmp_path / "r", ledger=graph)
        assert (report.nodes, report.relationships) == (made.nodes, made.relationships)
        assert report.checks["invariants"] == "hold"
        assert report.checks["tombstones"] == "no forgotten data present"
        assert report.checks["smoke"].startswith("related reached")
        rows = await restored.read("MATCH (c:Claim {id: $id}) RETURN c.erasedAt AS e", id=victim)
        assert rows and rows[0]["e"] is not None
        print(
            f"round {round_ + 1}: archive {report.archive_bytes} bytes, "
            f"{report.nodes} nodes, {report.relationships} relationships, "
            f"RTO {report.seconds:.1f} s, RPO {report.watermark.isoformat()}"
        )


def _not_a_zip(good: Path, damaged: Path) -> None:
    damaged.write_bytes(b"engram backup, honest\n" * 100)


def _truncated(good: Path, damaged: Path) -> None:
    data = good.read_bytes()
    damaged.write_bytes(data[: len(data) // 2])


def _bad_checksum(good: Path, damaged: Path) -> None:
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(damaged, "w") as out:
        for member in source.namelist():
            data = source.read(member)
            out.writestr(member, data.replace(b"Alice", b"Alicia"))


def _no_manifest(good: Path, damaged: Path) -> None:
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(damaged, "w") as out:
        for member in source.namelist():
            if member != "manifest.json":
                out.writestr(member, source.read(member))


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_not_a_zip, "is not a readable Engram backup: File is not a zip file"),
        (_truncated, "is not a readable Engram backup: File is not a zip file"),
        (_bad_checksum, "nodes.jsonl does not match its checksum; refusing"),
        (_no_manifest, "has no manifest.json; not an Engram backup"),
    ],
    ids=["not a zip", "truncated", "bad checksum", "no manifest"],
)
async def test_engram_restore_refuses_a_damaged_archive_before_it_starts_a_neo4j(
    graph: Graph,
    test_settings: Settings,
    neo4j_target: Neo4jTarget,
    tmp_path: Path,
    damage: Callable[[Path, Path], None],
    reason: str,
) -> None:
    await people_story(graph)
    await backup(graph, tmp_path / "good.zip", blob_root=tmp_path)
    damage(tmp_path / "good.zip", tmp_path / "damaged.zip")
    into = tmp_path / "db"
    done = run_engram(
        engram_env(test_settings, neo4j_target),
        "restore",
        str(tmp_path / "damaged.zip"),
        "--into",
        str(into),
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("engram: ")
    assert reason in done.stderr
    assert not into.exists(), "no data directory was created"
    launched = [
        cmdline
        for cmdline in Path("/proc").glob("[0-9]*/cmdline")
        if str(into).encode() in _read(cmdline)
    ]
    assert launched == [], "no Neo4j was started for it"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""
