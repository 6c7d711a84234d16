"""The backup archive's format: a zip with `manifest.json` (format, Engram's migrations, the
recorded-time watermark, counts and the SHA-256 of every other member), `nodes.jsonl`,
`relationships.jsonl`, `tombstones.jsonl` (the ledger) and `blobs/…`.

    manifest = read_manifest(Path("engram.backup"))   # SetupError when damaged
    manifest["watermark"]
    '2026-11-30T12:00:00.123456+00:00'
"""

from __future__ import annotations

import hashlib
import json
import zipfile
import zlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from neo4j.time import DateTime

from graph.domain.errors import SetupError

FORMAT = "engram-backup/2"
READABLE = ("engram-backup/1", FORMAT)
"""Formats a restore reads: /1 wrote the whole graph under the clock lock, /2 what was known at
the watermark, with the tombstone nodes in tombstones.jsonl (read last, so complete)."""
DATA_MEMBERS = ("nodes.jsonl", "relationships.jsonl", "tombstones.jsonl")
"""Members every archive has, each with its checksum in the manifest."""

Progress = Callable[[str, int, int], None]
"""(phase, done, total)"""


def encode(value: Any) -> Any:
    """A property value as JSON (instants tagged, so they come back as instants)."""
    if isinstance(value, DateTime):
        return {"$dt": value.to_native().isoformat()}
    if isinstance(value, datetime):
        return {"$dt": value.isoformat()}
    if isinstance(value, list):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$dt"}:
        return datetime.fromisoformat(value["$dt"])
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest, after checking every member's SHA-256; a damaged archive (not a zip,
    truncated, a missing manifest or member, a checksum that does not match) is refused with a
    one-line `SetupError`."""
    try:
        with zipfile.ZipFile(path) as archive:
            try:
                manifest: dict[str, Any] = json.loads(archive.read("manifest.json"))
            except KeyError:
                raise SetupError(f"{path} has no manifest.json; not an Engram backup") from None
            if not isinstance(manifest, dict) or manifest.get("format") not in READABLE:
                raise SetupError(f"{path} is not an {FORMAT} archive")
            digests = manifest.get("sha256")
            if not isinstance(digests, dict) or not set(DATA_MEMBERS) <= set(digests):
                raise SetupError(f"{path}: the manifest does not list every member's checksum")
            for key in ("watermark", "counts", "migrations"):
                if key not in manifest:
                    raise SetupError(f"{path}: the manifest has no {key!r}")
            for member, expected in digests.items():
                try:
                    data = archive.read(member)
                except KeyError:
                    raise SetupError(f"{path}: {member} is missing; refusing") from None
                if hashlib.sha256(data).hexdigest() != expected:
                    raise SetupError(f"{path}: {member} does not match its checksum; refusing")
            return manifest
    except (zipfile.BadZipFile, EOFError, zlib.error, OSError, ValueError) as failure:
        reason = " ".join(str(failure).split()) or type(failure).__name__
        raise SetupError(f"{path} is not a readable Engram backup: {reason}") from None
