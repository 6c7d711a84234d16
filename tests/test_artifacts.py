"""Artifacts: inline text, blobs under a controlled root, external URLs never fetched; evidence."""

from __future__ import annotations

import hashlib
import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from graph.commands import artifacts
from graph.commands.artifacts import add_artifact, normalise_url, read_blob
from graph.domain.actor import Actor
from graph.domain.errors import GateRefused, NotFound, ValidationFailed
from graph.domain.model import Artifact
from graph.domain.vocabulary import ArtifactStorage, Authority, EvidenceKind
from graph.memory import ArtifactInput, EvidenceRef, Memory, RememberInput
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.story import Story, count, new_story

NOTES = b"Engram stores memory in Neo4j.\n"
NOTES_SHA = hashlib.sha256(NOTES).hexdigest()


@pytest.fixture
async def story(graph: Graph) -> Story:
    return await new_story(graph)


@pytest.fixture
def blob_root(tmp_path: Path) -> Path:
    """A blob root holding notes/a.txt and a directory, next to a file it must never serve."""
    root = tmp_path / "blobs"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.txt").write_bytes(NOTES)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not yours")
    (root / "escape.txt").symlink_to(outside / "secret.txt")
    (root / "elsewhere").symlink_to(outside, target_is_directory=True)
    return root


async def _add(story: Story, blob_root: Path, **fields: Any) -> Artifact:
    return await add_artifact(
        story.graph,
        story.space,
        ArtifactInput(**fields),
        blob_root=blob_root,
        actor=Actor.operator("test"),
    )


async def _nothing_written(graph: Graph) -> None:
    assert await count(graph, "Artifact") == 0
    assert await graph.read("MATCH (a:AuditEvent {action: 'addArtifact'}) RETURN a.id") == []


async def test_inline_content_is_stored_with_its_hash_and_size(
    story: Story, blob_root: Path
) -> None:
    text = "café notes"
    artifact = await _add(story, blob_root, content=text, media_type="text/markdown")
    sha = hashlib.sha256(text.encode()).hexdigest()
    assert (artifact.storage, artifact.locator, artifact.sha256) == (
        ArtifactStorage.INLINE,
        f"inline:sha256:{sha}",
        sha,
    )
    assert (artifact.size, artifact.content, artifact.media_type) == (11, text, "text/markdown")


async def test_add_artifact_writes_an_audit_event(story: Story, blob_root: Path) -> None:
    artifact = await _add(story, blob_root, path="notes/a.txt")
    audits = await story.graph.read(
        "MATCH (a:AuditEvent {action: 'addArtifact'}) "
        "RETURN a.targetIds AS targets, a.actor AS actor, a.detail AS detail"
    )
    assert audits == [{"targets": [artifact.id], "actor": "test", "detail": "blob"}]


async def test_a_declared_hash_must_match_the_content(story: Story, blob_root: Path) -> None:
    with pytest.raises(ValidationFailed, match=f"declared sha256 {'0' * 64} does not match"):
        await _add(story, blob_root, content="hello", sha256="0" * 64)
    with pytest.raises(ValidationFailed, match=f"declared sha256 {'0' * 64} does not match"):
        await _add(story, blob_root, path="notes/a.txt", sha256="0" * 64)
    await _nothing_written(story.graph)
    declared = hashlib.sha256(b"hello").hexdigest().upper()
    artifact = await _add(story, blob_root, content="hello", sha256=declared)
    assert artifact.sha256 == declared.lower()


async def test_inline_content_over_64_kib_is_refused(story: Story, blob_root: Path) -> None:
    with pytest.raises(ValidationFailed, match="inline content is larger than 65536 bytes"):
        await _add(story, blob_root, content="é" * 32_769)  # 32 769 characters, 65 538 bytes
    await _nothing_written(story.graph)
    artifact = await _add(story, blob_root, content="x" * 65_536)
    assert artifact.size == 65_536


async def test_a_file_under_the_blob_root_is_accepted(story: Story, blob_root: Path) -> None:
    artifact = await _add(story, blob_root, path="notes/a.txt")
    assert (artifact.storage, artifact.locator, artifact.size, artifact.sha256) == (
        ArtifactStorage.BLOB,
        "blob:notes/a.txt",
        len(NOTES),
        NOTES_SHA,
    )
    assert artifact.content is None
    assert read_blob(artifact, blob_root) == NOTES


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../x", "must stay under the blob root"),
        ("/etc/passwd", "must stay under the blob root"),
        ("a/../../x", "must stay under the blob root"),
        ("notes/../../outside/secret.txt", "must stay under the blob root"),
        ("escape.txt", "leaves the blob root"),
        ("elsewhere/secret.txt", "leaves the blob root"),
        ("notes/a.txt\0.png", "not a blob path"),
        ("notes\\a.txt", "not a blob path"),
        ("", "not a blob path"),
    ],
)
async def test_a_blob_path_that_leaves_the_root_is_refused(
    story: Story, blob_root: Path, path: str, message: str
) -> None:
    with pytest.raises(ValidationFailed, match=message):
        await _add(story, blob_root, path=path)
    await _nothing_written(story.graph)


@pytest.mark.parametrize("path", ["notes", "notes/missing.txt"])
async def test_a_directory_or_missing_file_is_not_found(
    story: Story, blob_root: Path, path: str
) -> None:
    with pytest.raises(NotFound, match=f"no file '{path}' under the blob root"):
        await _add(story, blob_root, path=path)
    await _nothing_written(story.graph)


async def test_a_blob_over_the_size_limit_is_refused(
    story: Story, blob_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(artifacts, "MAX_BLOB_BYTES", len(NOTES) - 1)
    with pytest.raises(ValidationFailed, match=f"blob is larger than {len(NOTES) - 1} bytes"):
        await _add(story, blob_root, path="notes/a.txt")
    await _nothing_written(story.graph)
    monkeypatch.setattr(artifacts, "MAX_BLOB_BYTES", len(NOTES))
    assert (await _add(story, blob_root, path="notes/a.txt")).size == len(NOTES)


async def test_a_blob_changed_on_disk_is_refused_on_read(story: Story, blob_root: Path) -> None:
    artifact = await _add(story, blob_root, path="notes/a.txt")
    (blob_root / "notes" / "a.txt").write_bytes(NOTES.replace(b"Neo4j", b"SQLite"))
    with pytest.raises(ValidationFailed, match="no longer matches its recorded sha256") as caught:
        read_blob(artifact, blob_root)
    assert caught.value.field == "sha256"
    (blob_root / "notes" / "a.txt").unlink()
    with pytest.raises(NotFound, match="no file 'notes/a.txt' under the blob root"):
        read_blob(artifact, blob_root)


async def test_read_blob_refuses_an_inline_artifact(story: Story, blob_root: Path) -> None:
    artifact = await _add(story, blob_root, content="inline")
    with pytest.raises(ValidationFailed, match="is inline, not a blob"):
        read_blob(artifact, blob_root)


@pytest.mark.parametrize(
    ("url", "normalised"),
    [
        ("HTTPS://Example.COM:443/a/b?q=1#frag", "https://example.com/a/b?q=1"),
        ("http://Example.com:80", "http://example.com/"),
        ("http://example.com:8080/x", "http://example.com:8080/x"),
        ("s3://Bucket/key.txt", "s3://bucket/key.txt"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
    ],
)
def test_urls_are_normalised(url: str, normalised: str) -> None:
    assert normalise_url(url) == normalised


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://user:pw@example.com/x", "a URL with credentials is refused"),
        ("https://user@example.com/x", "a URL with credentials is refused"),
        ("https://:pw@example.com/x", "a URL with credentials is refused"),
        ("/a/b", "not an absolute http"),
        ("example.com/a", "not an absolute http"),
        ("//example.com/a", "not an absolute http"),
        ("javascript:alert(1)", "not an absolute http"),
        ("http://example.com:99999/", "not a URL"),
    ],
)
async def test_a_url_with_credentials_or_without_a_scheme_is_refused(
    story: Story, blob_root: Path, url: str, message: str
) -> None:
    with pytest.raises(ValidationFailed, match=message):
        await _add(story, blob_root, url=url)
    await _nothing_written(story.graph)


async def test_an_external_artifact_is_stored_normalised_and_never_fetched(
    story: Story, blob_root: Path
) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        artifact = await _add(
            story, blob_root, url=f"HTTP://127.0.0.1:{port}/never#top", media_type="text/html"
        )
        listener.settimeout(0.5)
        with pytest.raises(TimeoutError):
            listener.accept()
    assert (artifact.storage, artifact.locator) == (
        ArtifactStorage.EXTERNAL,
        f"http://127.0.0.1:{port}/never",
    )
    assert (artifact.size, artifact.sha256, artifact.content) == (0, None, None)


async def test_an_external_artifact_keeps_a_declared_size_and_hash(
    story: Story, blob_root: Path
) -> None:
    declared = "AB" * 32
    artifact = await _add(
        story, blob_root, url="http://127.0.0.1:9/never", size=1234, sha256=declared
    )
    assert (artifact.size, artifact.sha256) == (1234, declared.lower())


async def test_an_artifact_is_cited_as_document_evidence(story: Story, blob_root: Path) -> None:
    inline = await _add(story, blob_root, content="ADR 7: we use Neo4j")
    blob = await _add(story, blob_root, path="notes/a.txt")
    item = RememberInput(
        key="decision:engram:storage",
        value={"decision": "Neo4j"},
        evidence=[EvidenceRef(artifact_id=inline.id), EvidenceRef(artifact_id=blob.id)],
    )
    [claim] = await story.memory.writes.remember(Actor.operator("test"), story.space, [item])
    assert claim.valid_from == inline.recorded_at, "valid time defaults to the artifact's time"
    [shown] = await story.memory.reads.claims_by_key(await story.view(), "decision:engram:storage")
    links = [
        (e.kind, e.authority, e.artifact_id, e.observation_id, e.locator, e.text)
        for e in shown.evidence
    ]
    assert sorted(links, key=lambda link: str(link[4])) == [
        (EvidenceKind.SUPPORTED_BY, Authority.DOCUMENT, blob.id, None, "blob:notes/a.txt", None),
        (
            EvidenceKind.SUPPORTED_BY,
            Authority.DOCUMENT,
            inline.id,
            None,
            inline.locator,
            "ADR 7: we use Neo4j",
        ),
    ]


async def test_a_profile_citing_only_an_artifact_is_refused_by_the_gate(
    story: Story, blob_root: Path
) -> None:
    document = await _add(story, blob_root, content="CV: Alice is a doctor")
    item = RememberInput(
        key="profile:user",
        value={"role": "doctor"},
        evidence=[EvidenceRef(artifact_id=document.id)],
    )
    with pytest.raises(
        GateRefused, match="profile claims need at least one evidence of authority user_stated"
    ):
        await story.memory.writes.remember(Actor.operator("test"), story.space, [item])
    assert await count(story.graph, "Claim") == 0


async def test_an_artifact_of_another_space_cannot_be_cited(
    memory: Memory, graph: Graph, story: Story, blob_root: Path
) -> None:
    bob = await new_story(graph, "bob")
    bobs = await _add(bob, blob_root, content="Bob's notes")
    item = RememberInput(
        key="decision:engram:storage",
        value={"decision": "Neo4j"},
        evidence=[EvidenceRef(artifact_id=bobs.id)],
    )
    with pytest.raises(NotFound, match=f"no artifact '{bobs.id}' in space 'alice'"):
        await memory.writes.remember(Actor.operator("test"), story.space, [item])
    assert await count(graph, "Claim") == 0


ADD_ARTIFACT = """
mutation($path: String!) {
  addArtifact(space: "alice", input: {path: $path}) {
    artifact { id }
    errors { code field message }
  }
}
"""


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("loop/a.txt", "blob path 'loop/a.txt' cannot be followed: a loop of symbolic links"),
        ("x" * 5000, "a blob path is at most 1024 characters, not 5000"),
        ("n" * 300 + "/a.txt", "a part of a blob path is at most 255 bytes"),
    ],
)
async def test_a_blob_path_the_file_system_cannot_follow_is_a_validation_error_over_graphql(
    story: Story,
    blob_root: Path,
    test_settings: Settings,
    neo4j_target: Neo4jTarget,
    path: str,
    message: str,
) -> None:
    (blob_root / "loop").symlink_to(blob_root / "loop", target_is_directory=True)
    settings = test_settings.model_copy(update={"blob_root": blob_root})
    async with running(create_app(settings, neo4j_target)) as client:
        body = await gql(client, ADD_ARTIFACT, {"path": path})
    assert body["data"]["addArtifact"] == {
        "artifact": None,
        "errors": [{"code": "VALIDATION", "field": "path", "message": message}],
    }
    await _nothing_written(story.graph)


async def test_a_blob_path_with_a_lone_surrogate_is_a_validation_error_at_every_door(
    story: Story, blob_root: Path, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    with pytest.raises(ValidationFailed, match=re.escape("a blob path is text (valid UTF-8)")):
        await _add(story, blob_root, path="notes/\ud800.txt")
    # JSON escapes it (`\ud800`); the HTTP door refuses the request before any resolver.
    request = json.dumps({"query": ADD_ARTIFACT, "variables": {"path": "notes/\ud800.txt"}})
    settings = test_settings.model_copy(update={"blob_root": blob_root})
    async with running(create_app(settings, neo4j_target)) as client:
        response = await client.post(
            "/graphql", content=request, headers={"content-type": "application/json"}
        )
    assert response.json()["errors"] == [
        {
            "message": "the request contains a lone surrogate (\\ud800), which is not Unicode text",
            "extensions": {"code": "VALIDATION"},
        }
    ]
    await _nothing_written(story.graph)
