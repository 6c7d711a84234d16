"""Artifacts: files and external references used as evidence.

Three kinds of storage:

* `inline` — text content kept in the node (at most 64 KiB).
* `blob` — a file under Engram's controlled blob root, referred to by a relative path; paths
  that leave the root (`..`, absolute paths, symlinks pointing out) are refused.
* `external` — a URL, normalised and kept as data; Engram never fetches it.

The SHA-256 is computed on write (a declared hash must match) and checked again on every read of
a blob (`read_blob`): content that changed behind Engram's back is refused, not served.
"""

from __future__ import annotations

import errno
import hashlib
import re
from pathlib import Path, PurePosixPath
from typing import Any, LiteralString
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from graph.commands.audit import (
    AuditLog,
    check_idempotency_key,
    find_replays,
    request_hash,
)
from graph.commands.writing import WriteContext, new_id, run_command
from graph.domain.actor import Actor
from graph.domain.errors import Forbidden, Forgotten, NotFound, ValidationFailed
from graph.domain.model import Artifact
from graph.domain.vocabulary import ArtifactStorage, Privacy
from graph.store.db import Graph
from graph.store.rows import artifact_record

MAX_INLINE_BYTES = 64 * 1024
MAX_BLOB_BYTES = 50 * 1024 * 1024
_MEDIA_TYPE = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}

CREATE_ARTIFACT: LiteralString = """
CREATE (a:Artifact)
SET a = $props, a.recordedAt = $now
RETURN properties(a) AS artifact
"""

ARTIFACT_BY_ID: LiteralString = """
MATCH (a:Artifact {id: $id})
WHERE a.spaceId = $spaceId
RETURN properties(a) AS artifact
"""


class ArtifactInput(BaseModel):
    """Give `content` (inline), `path` (a blob under the blob root) or `url` (external)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str | None = None
    path: str | None = None
    url: str | None = None
    media_type: str = "text/plain"
    sha256: str | None = None
    size: int | None = Field(default=None, ge=0)
    privacy: Privacy = Privacy.NORMAL
    idempotency_key: str | None = None


def normalise_url(url: str) -> str:
    """Lowercase scheme and host, drop default ports and fragments; refuse non-absolute URLs."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as failure:
        raise ValidationFailed(f"not a URL: {url!r} ({failure})", field="url") from None
    scheme = parts.scheme.lower()
    if scheme not in {"http", "https", "ftp", "s3", "gs", "file"} or not (
        parts.hostname or scheme == "file"
    ):
        raise ValidationFailed(f"not an absolute http(s)/ftp/s3/gs/file URL: {url!r}", field="url")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValidationFailed("a URL with credentials is refused", field="url")
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"  # IPv6 literal: hostname dropped the brackets
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


MAX_BLOB_PATH = 1024
"""Characters of a blob path at most (and 255 bytes of UTF-8 a part, as file systems allow)."""


def resolve_blob(root: Path, relative: str) -> Path:
    """The file `relative` names under `root`; refuses anything that would leave `root`, and
    answers a path the file system cannot follow (a loop, a name too long, bad encoding) with
    `VALIDATION` naming the path, never an unexpected error."""
    if not relative or "\0" in relative or "\\" in relative:
        raise ValidationFailed(f"not a blob path: {relative!r}", field="path")
    if len(relative) > MAX_BLOB_PATH:
        raise ValidationFailed(
            f"a blob path is at most {MAX_BLOB_PATH} characters, not {len(relative)}", field="path"
        )
    try:
        parts = [part.encode() for part in relative.split("/")]
    except UnicodeEncodeError:
        raise ValidationFailed("a blob path is text (valid UTF-8)", field="path") from None
    if any(len(part) > 255 for part in parts):
        raise ValidationFailed("a part of a blob path is at most 255 bytes", field="path")
    pure = PurePosixPath(relative)
    if pure.is_absolute() or ".." in pure.parts:
        raise ValidationFailed(
            f"blob path {relative!r} must stay under the blob root (no '..', not absolute)",
            field="path",
        )
    try:
        real_root = root.resolve()
        candidate = (real_root / pure).resolve(strict=False)
        if not candidate.is_relative_to(real_root):
            raise ValidationFailed(f"blob path {relative!r} leaves the blob root", field="path")
        found = candidate.is_file()
    except (OSError, RuntimeError) as failure:  # RuntimeError: a symlink loop (Python 3.11)
        raise ValidationFailed(
            f"blob path {relative!r} cannot be followed: {_why(failure)}", field="path"
        ) from None
    if not found:
        raise NotFound(f"no file {relative!r} under the blob root", field="path")
    return candidate


def _why(failure: BaseException) -> str:
    if isinstance(failure, RuntimeError) or getattr(failure, "errno", None) == errno.ELOOP:
        return "a loop of symbolic links"
    if getattr(failure, "errno", None) == errno.ENAMETOOLONG:
        return "a name too long for the file system"
    return getattr(failure, "strerror", None) or "the file system refused it"


def _digest(path: Path, limit: int) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                size += len(chunk)
                if size > limit:
                    raise ValidationFailed(f"blob is larger than {limit} bytes", field="path")
                digest.update(chunk)
    except OSError as failure:
        raise ValidationFailed(f"blob cannot be read: {_why(failure)}", field="path") from None
    return digest.hexdigest(), size


def _check_declared(declared: str | None, actual: str) -> None:
    if declared is not None and declared.lower() != actual:
        raise ValidationFailed(
            f"declared sha256 {declared} does not match the content's {actual}", field="sha256"
        )


def describe(artifact: ArtifactInput, blob_root: Path) -> dict[str, Any]:
    """The stored properties of an artifact (without ids and times), checked."""
    given = [v for v in (artifact.content, artifact.path, artifact.url) if v is not None]
    if len(given) != 1:
        raise ValidationFailed("an artifact gives exactly one of content, path or url")
    if not _MEDIA_TYPE.match(artifact.media_type):
        raise ValidationFailed(f"not a media type: {artifact.media_type!r}", field="mediaType")
    if artifact.sha256 is not None and not _SHA256.match(artifact.sha256.lower()):
        raise ValidationFailed("sha256 is 64 hexadecimal digits", field="sha256")
    if artifact.content is not None:
        data = artifact.content.encode("utf-8")
        if len(data) > MAX_INLINE_BYTES:
            raise ValidationFailed(
                f"inline content is larger than {MAX_INLINE_BYTES} bytes; store it as a blob",
                field="content",
            )
        sha = hashlib.sha256(data).hexdigest()
        _check_declared(artifact.sha256, sha)
        return {
            "storage": ArtifactStorage.INLINE.value,
            "locator": f"inline:sha256:{sha}",
            "content": artifact.content,
            "size": len(data),
            "sha256": sha,
        }
    if artifact.path is not None:
        path = resolve_blob(blob_root, artifact.path)
        sha, size = _digest(path, MAX_BLOB_BYTES)
        _check_declared(artifact.sha256, sha)
        relative = path.relative_to(blob_root.resolve()).as_posix()
        return {
            "storage": ArtifactStorage.BLOB.value,
            "locator": f"blob:{relative}",
            "size": size,
            "sha256": sha,
        }
    assert artifact.url is not None
    # Never fetched, so size and hash are what the caller declares (or unknown).
    return {
        "storage": ArtifactStorage.EXTERNAL.value,
        "locator": normalise_url(artifact.url),
        "size": artifact.size or 0,
        "sha256": artifact.sha256.lower() if artifact.sha256 else None,
    }


async def add_artifact(
    graph: Graph, space: str, artifact: ArtifactInput, *, blob_root: Path, actor: Actor
) -> Artifact:
    """Record an artifact after checking its content, path or URL."""
    check_idempotency_key(artifact.idempotency_key)
    stored = describe(artifact, blob_root)

    async def work(ctx: WriteContext) -> Artifact:
        if artifact.privacy > ctx.max_privacy:
            raise Forbidden("this key may not write above its privacy tier", field="privacy")
        fingerprint = request_hash("addArtifact", artifact.model_dump(mode="json"))
        if artifact.idempotency_key is not None:
            replays = await find_replays(
                ctx, {artifact.idempotency_key: ("addArtifact", fingerprint)}
            )
            if artifact.idempotency_key in replays:
                artifact_id = replays[artifact.idempotency_key].result["artifactId"]
                rows = await ctx.run(ARTIFACT_BY_ID, id=artifact_id)
                if rows[0]["artifact"].get("erasedAt") is not None:
                    raise Forgotten(f"artifact {artifact_id!r} was forgotten")
                return artifact_record(rows[0]["artifact"])
        props = {
            "id": new_id(),
            "spaceId": ctx.space_id,
            "mediaType": artifact.media_type,
            "privacy": int(artifact.privacy),
            **stored,
        }
        rows = await ctx.run(CREATE_ARTIFACT, props=props)
        await (
            AuditLog()
            .add(
                "addArtifact",
                [props["id"]],
                idempotency_key=artifact.idempotency_key,
                request_hash=fingerprint,
                result={"artifactId": props["id"]},
                detail=props["storage"],
            )
            .write(ctx)
        )
        return artifact_record(rows[0]["artifact"])

    return await run_command(graph, space, actor, work)


def read_blob(artifact: Artifact, blob_root: Path) -> bytes:
    """A blob's bytes, after checking they still hash to the recorded sha256."""
    if artifact.storage is not ArtifactStorage.BLOB:
        raise ValidationFailed(f"artifact {artifact.id} is {artifact.storage}, not a blob")
    path = resolve_blob(blob_root, artifact.locator.removeprefix("blob:"))
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != artifact.sha256:
        raise ValidationFailed(
            f"blob {artifact.locator} no longer matches its recorded sha256 "
            f"({(artifact.sha256 or '')[:12]}…, now {actual[:12]}…); refusing to serve it",
            field="sha256",
        )
    return data
