"""The Python client (`api.client`) over real HTTP: `engram serve` (uvicorn) on a free port, in
production mode (an API key on every request), against the run's Neo4j.

The sync and the async client each run an agent's loop — open an episode, record what was said,
remember a fact citing it, find it, walk and explain it, correct it, forget it and see it gone —
and every failure comes back as the typed exception of its code. (The README's client example
runs in `tests/test_readme.py`, in order with the README's other blocks.)
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from api.client import (
    AsyncEngramClient,
    ClaimStatus,
    CorrectionKind,
    Direction,
    EngramClient,
    EngramError,
    EntityKind,
    EntityRef,
    EpisodeKind,
    EpisodeStatus,
    EvidenceKind,
    ForbiddenError,
    MemoryItem,
    MemoryType,
    NotFoundError,
    Privacy,
    RequestTooLargeError,
    RevisionConflictError,
    RevisionState,
    Role,
    SelectorKind,
    UnauthenticatedError,
    UnavailableError,
    ValidationError,
)
from graph.domain.actor import Grant
from graph.domain.vocabulary import Privacy as Tier
from graph.memory import Memory
from graph.runtime import Neo4jTarget, Settings
from tests.support import ENGRAM, engram_env, free_port, wait_until_ready

ALICE = EntityRef(key="entity:person:alice")
ACME = EntityRef(key="entity:org:acme")
JOINED = datetime(2023, 3, 1, tzinfo=UTC)
LEFT = datetime(2024, 6, 30, tzinfo=UTC)
JAN = datetime(2024, 1, 1, tzinfo=UTC)
FACT = "fact:person/alice:WORKS_AT"


@pytest.fixture(scope="module")
def server(
    test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """`engram serve --no-dev` on a free port; its base URL. The data is the run's Neo4j, which
    every test empties first; the server keeps nothing between requests."""
    port = free_port()
    log = tmp_path_factory.mktemp("client") / "serve.log"
    env = engram_env(test_settings, neo4j_target, ENGRAM_BROWSER="false", ENGRAM_EMBED_INTERVAL="0")
    with log.open("w") as output:
        process = subprocess.Popen(
            [*ENGRAM, "serve", "--port", str(port), "--no-dev"],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(process, base, log, 120)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


@dataclass(frozen=True)
class Keys:
    agent: str
    """Writes spaces `alice` and `demo` up to private."""
    outsider: str
    """Reads and writes only space `elsewhere`."""


@pytest.fixture
async def keys(memory: Memory) -> Keys:
    agent = await memory.admin.create_key(
        "agent",
        [Grant("alice", Tier.PRIVATE, write=True), Grant("demo", Tier.PRIVATE, write=True)],
    )
    outsider = await memory.admin.create_key(
        "outsider", [Grant("elsewhere", Tier.SECRET, write=True)]
    )
    return Keys(agent.secret, outsider.secret)


def test_the_sync_client_runs_an_agents_loop(server: str, keys: Keys) -> None:
    with EngramClient(server, api_key=keys.agent) as engram:
        space = engram.create_space("demo", "the client's loop")
        assert (space.name, space.description) == ("demo", "the client's loop")
        assert [s.name for s in engram.spaces()] == ["demo"]

        chat = engram.open_episode("demo", title="chat", kind=EpisodeKind.CONVERSATION)
        assert (chat.status, chat.kind) == (EpisodeStatus.OPEN, EpisodeKind.CONVERSATION)
        said = engram.record_observation(
            "demo", chat.id, "I'm Alice and I work at Acme", role=Role.USER, observed_at=JOINED
        )
        assert (said.seq, said.role, said.observed_at) == (1, Role.USER, JOINED)

        people = engram.remember_many(
            "demo",
            [
                MemoryItem(key=ALICE.key, value={"name": "Alice"}, evidence=[said.id]),
                MemoryItem(key=ACME.key, value={"name": "Acme"}, evidence=[said.id]),
            ],
        )
        assert [(c.type, c.key) for c in people] == [
            (MemoryType.ENTITY, ALICE.key),
            (MemoryType.ENTITY, ACME.key),
        ]
        job = engram.remember(
            "demo",
            MemoryItem(
                type=MemoryType.FACT,
                subject=ALICE,
                predicate="WORKS_AT",
                object=ACME,
                valid_from=JOINED,
                evidence=[said.id],
            ),
        )
        assert (job.key, job.revision, job.status) == (FACT, 1, ClaimStatus.ACTIVE)
        assert job.subject is not None and job.object is not None
        assert (job.subject.name, job.object.name, job.object.kind) == (
            "Alice",
            "Acme",
            EntityKind.ORG,
        )
        assert [(e.kind, e.observation_id, e.text) for e in job.evidence] == [
            (EvidenceKind.SUPPORTED_BY, said.id, "I'm Alice and I work at Acme")
        ]

        hits = engram.search("demo", "alice acme", types=[MemoryType.FACT])
        assert [h.claim.key for h in hits] == [FACT]
        assert hits[0].score > 0 and "text" in hits[0].sources
        assert engram.claim("demo", FACT) == job

        near = engram.related("demo", ALICE, direction=Direction.OUT)
        assert [(n.entity.key, n.distance) for n in near.nodes] == [(ALICE.key, 0), (ACME.key, 1)]
        [works_at] = near.relations
        assert works_at.source is not None and works_at.target is not None
        assert (works_at.type, works_at.source.name, works_at.target.name) == (
            "WORKS_AT",
            "Alice",
            "Acme",
        )
        why = engram.explain_relation("demo", ALICE, EntityRef(name="Acme"))
        [path] = why.paths
        [step] = path.steps
        assert step.claim is not None and step.claim.key == FACT
        assert [e.text for e in step.evidence] == ["I'm Alice and I work at Acme"]

        left = engram.record_observation("demo", chat.id, "I left Acme in June", role=Role.USER)
        ended = engram.correct(
            "demo",
            job.id,
            CorrectionKind.SUPERSEDE,
            reason="she left",
            evidence=[left.id],
            valid_to=LEFT,
            expected_revision=1,
        )
        assert (ended.key, ended.revision, ended.valid_from, ended.valid_to) == (
            FACT,
            2,
            JOINED,
            LEFT,
        )
        with pytest.raises(RevisionConflictError) as stale:
            engram.correct(
                "demo",
                job.id,
                CorrectionKind.RETRACT,
                reason="again",
                evidence=[left.id],
                expected_revision=1,
            )
        assert (stale.value.code, stale.value.field) == ("REVISION_CONFLICT", "expectedRevision")
        assert [c.revision for c in engram.claim_history("demo", FACT)] == [1, 2]
        assert engram.claim("demo", FACT, as_of=JAN) == ended
        assert engram.search("demo", "alice acme", types=[MemoryType.FACT]) == []  # ended
        past = engram.search("demo", "alice acme", types=[MemoryType.FACT], include_history=True)
        assert sorted((h.claim.revision, h.state) for h in past) == [
            (1, RevisionState.SUPERSEDED),
            (2, RevisionState.ENDED),
        ]

        receipt = engram.forget("demo", SelectorKind.CLAIM, id=ended.id, reason="asked to")
        assert receipt.claims == 2 and not receipt.whole_space
        assert engram.search("demo", "alice acme", types=[MemoryType.FACT], as_of=JAN) == []
        forgotten = engram.search(
            "demo", "alice acme", types=[MemoryType.FACT], include_history=True
        )
        assert forgotten == []
        assert engram.claim("demo", FACT, as_of=JAN) is None
        with pytest.raises(NotFoundError):
            engram.claim_history("demo", FACT)
        assert engram.related("demo", ALICE).relations == []
        entity = engram.entity("demo", key=ACME.key)
        assert entity is not None and entity.name == "Acme"
        snapshot = engram.context("demo", budget_bytes=256)
        assert snapshot.bytes <= 256 and "Acme" not in snapshot.text

        sealed = engram.seal_episode("demo", chat.id)
        assert sealed.status is EpisodeStatus.SEALED


async def test_the_async_client_runs_an_agents_loop(server: str, keys: Keys) -> None:
    async with AsyncEngramClient(server, api_key=keys.agent) as engram:
        await engram.create_space("demo")
        chat = await engram.open_episode("demo", title="chat")
        said = await engram.record_observation("demo", chat.id, "Alice works at Acme")
        await engram.remember_many(
            "demo",
            [
                MemoryItem(key=ALICE.key, value={"name": "Alice"}, evidence=[said.id]),
                MemoryItem(key=ACME.key, value={"name": "Acme"}, evidence=[said.id]),
            ],
        )
        job = await engram.link("demo", ALICE, "WORKS_AT", ACME, evidence=[said.id])
        assert (job.key, job.revision) == (FACT, 1)

        [hit] = await engram.search("demo", "alice acme", types=[MemoryType.FACT])
        assert hit.claim == job
        near = await engram.related("demo", ACME, hops=1)
        assert {n.entity.key for n in near.nodes} == {ALICE.key, ACME.key}
        [path] = (await engram.explain_relation("demo", ALICE, ACME)).paths
        assert [s.claim.key for s in path.steps if s.claim] == [FACT]

        pref = await engram.remember(
            "demo", MemoryItem(key="pref:ui:theme", value={"value": "dark"}, evidence=[said.id])
        )
        assert "dark" in (await engram.context("demo")).text
        later = datetime(2030, 1, 1, tzinfo=UTC)
        until = await engram.correct(
            "demo",
            pref.id,
            CorrectionKind.SUPERSEDE,
            reason="for now",
            evidence=[said.id],
            valid_to=later,
        )
        kept = await engram.correct(  # valid_to left out: kept
            "demo",
            until.id,
            CorrectionKind.SUPERSEDE,
            reason="sure",
            evidence=[said.id],
            confidence=0.6,
        )
        assert (kept.revision, kept.valid_to, kept.confidence) == (3, later, 0.6)
        pref = await engram.correct(  # valid_to=None: reopened
            "demo",
            kept.id,
            CorrectionKind.SUPERSEDE,
            reason="for good",
            evidence=[said.id],
            valid_to=None,
        )
        assert (pref.revision, pref.valid_to) == (4, None)
        retracted = await engram.correct(
            "demo",
            pref.id,
            CorrectionKind.RETRACT,
            reason="misheard",
            evidence=[said.id],
            expected_revision=4,
        )
        assert retracted.status is ClaimStatus.RETRACTED
        assert "dark" not in (await engram.context("demo")).text

        receipt = await engram.forget("demo", SelectorKind.CLAIM, id=job.id, reason="asked to")
        assert receipt.claims == 1
        assert await engram.search("demo", "alice acme", types=[MemoryType.FACT]) == []
        assert (await engram.claims("demo", type=MemoryType.FACT)).claims == []
        assert (await engram.related("demo", ALICE)).relations == []


def test_errors_are_typed_exceptions_with_the_apis_codes(server: str, keys: Keys) -> None:
    with EngramClient(server) as nobody, pytest.raises(UnauthenticatedError) as refused:
        nobody.spaces()
    assert (refused.value.code, refused.value.status) == ("UNAUTHENTICATED", 401)
    forged = "egk_000000000000_not-a-real-key-at-all"
    with EngramClient(server, api_key=forged) as engram, pytest.raises(UnauthenticatedError):
        engram.search("demo", "anything")

    with EngramClient(server, api_key=keys.agent) as engram:
        engram.create_space("demo")
        with pytest.raises(ForbiddenError) as read_elsewhere:  # a query: extensions.code
            engram.search("elsewhere", "anything")
        assert (read_elsewhere.value.code, read_elsewhere.value.field) == ("FORBIDDEN", "space")
        with pytest.raises(ForbiddenError) as write_elsewhere:  # a mutation: payload errors
            engram.open_episode("elsewhere")
        assert write_elsewhere.value.code == "FORBIDDEN"

        with pytest.raises(NotFoundError) as missing:
            engram.record_observation("demo", "no-such-episode", "hello")
        assert missing.value.code == "NOT_FOUND"
        with pytest.raises(NotFoundError) as nowhere:
            engram.related("demo", EntityRef(key="entity:person:nobody"))
        assert nowhere.value.code == "NOT_FOUND"

        chat = engram.open_episode("demo")
        said = engram.record_observation("demo", chat.id, "Alice works at Acme")
        with pytest.raises(ValidationError) as invalid:
            engram.link("demo", ALICE, "works at", ACME, evidence=[said.id])
        assert invalid.value.code == "VALIDATION"
        assert "UPPER_SNAKE_CASE" in invalid.value.message
        with pytest.raises(ValidationError) as unparsed:  # refused by GraphQL itself
            engram.execute("{ nothing }")
        assert unparsed.value.errors[0].code == "VALIDATION"
        with pytest.raises(ValidationError):
            engram.search("demo", "acme", as_of=datetime(2024, 1, 1))  # no UTC offset
        assert engram.claims("demo").claims == [], "nothing was written"

        with pytest.raises(RequestTooLargeError) as too_large:
            engram.record_observation("demo", chat.id, "x" * 2_000_000)
        assert (too_large.value.code, too_large.value.status) == ("TOO_LARGE", 413)

    with EngramClient(server, api_key=keys.outsider) as outsider:
        with pytest.raises(ForbiddenError):
            outsider.claim_history("demo", FACT)
        with pytest.raises(EngramError) as not_granted:  # every code is an EngramError
            outsider.create_space("demo")
        assert not_granted.value.code == "FORBIDDEN"


async def test_the_async_client_raises_the_same_exceptions(server: str, keys: Keys) -> None:
    async with AsyncEngramClient(server) as nobody:
        with pytest.raises(UnauthenticatedError):
            await nobody.context("demo")
    async with AsyncEngramClient(server, api_key=keys.agent) as engram:
        await engram.create_space("demo")
        with pytest.raises(ForbiddenError):
            await engram.context("elsewhere")
        with pytest.raises(NotFoundError):
            await engram.seal_episode("demo", "no-such-episode")
        with pytest.raises(ValidationError) as invalid:
            await engram.remember("demo", MemoryItem(key="pref:ui:theme", evidence=[]))
        assert invalid.value.field == "evidence"
        with pytest.raises(ForbiddenError):  # above the key's tier
            await engram.open_episode("demo", privacy=Privacy.SECRET)
    async with AsyncEngramClient(f"http://127.0.0.1:{free_port()}") as unreachable:
        with pytest.raises(UnavailableError) as down:
            await unreachable.spaces()
        assert (down.value.code, down.value.status) == ("UNAVAILABLE", None)


@pytest.mark.fast
def test_the_client_loads_nothing_of_the_server_but_the_vocabulary() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, api.client; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    server_parts = [
        m
        for m in loaded
        if m.split(".")[0] in {"graph", "strawberry", "starlette", "neo4j", "neomodel", "uvicorn"}
        or (m.startswith("api.") and not m.startswith("api.client"))
    ]
    assert server_parts == ["graph", "graph.domain", "graph.domain.vocabulary"]
