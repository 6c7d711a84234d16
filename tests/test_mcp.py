"""The MCP server, driven by the `mcp` SDK's own client: over streamable HTTP at `/mcp` of a real
`engram serve --no-dev` (API keys, tiers) and over stdio from a spawned `engram mcp`.

An agent lists the tools, remembers a small story with its words as evidence, recalls it, walks
and explains it, reads its context and history, corrects and forgets — and every refusal is a
tool error whose text starts with Engram's stable code. A key is refused without itself (401),
outside its spaces (FORBIDDEN) and above its tier, where the answer is exactly the one for what
does not exist.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import TextContent

from graph.domain.actor import Actor, Grant
from graph.domain.vocabulary import Privacy
from graph.memory import Memory
from graph.runtime import Neo4jTarget, Settings
from tests.support import ENGRAM, engram_env
from tests.test_client import server  # noqa: F401 - the `engram serve --no-dev` fixture

TOOLS = [
    "changes",
    "context",
    "correct",
    "explain_relation",
    "forget",
    "history",
    "messages",
    "recall",
    "related",
    "remember",
]
SAID = "I'm Alice and I work at Acme since March 2023"
FACT = "fact:person/alice:WORKS_AT"
JOINED = "2023-03-01T00:00:00+00:00"


@dataclass(frozen=True)
class Keys:
    owner: str
    """Reads and writes space `alice` up to secret."""
    agent: str
    """Reads and writes space `alice` up to normal."""
    outsider: str
    """Reads and writes only space `elsewhere`."""
    revoked: str
    """A key that was revoked."""


@pytest.fixture
async def keys(memory: Memory) -> Keys:
    for name in ("alice", "elsewhere"):
        await memory.writes.create_space(Actor.operator("test"), name)
    owner = await memory.admin.create_key("owner", [Grant("alice", Privacy.SECRET, write=True)])
    agent = await memory.admin.create_key("agent", [Grant("alice", Privacy.NORMAL, write=True)])
    outsider = await memory.admin.create_key(
        "outsider", [Grant("elsewhere", Privacy.SECRET, write=True)]
    )
    revoked = await memory.admin.create_key("revoked", [Grant("alice", Privacy.SECRET, write=True)])
    await memory.admin.revoke_key(revoked.key_id)
    return Keys(owner.secret, agent.secret, outsider.secret, revoked.secret)


@asynccontextmanager
async def over_http(base: str, key: str) -> AsyncIterator[ClientSession]:
    """An initialised MCP session with `/mcp`, presenting `key`."""
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """The tool's JSON answer; fails on a tool error."""
    result = await session.call_tool(tool, arguments)
    [content] = result.content
    assert isinstance(content, TextContent)
    assert not result.is_error, content.text
    return json.loads(content.text)


async def refused(session: ClientSession, tool: str, **arguments: Any) -> str:
    """The text of the tool error a call answers."""
    result = await session.call_tool(tool, arguments)
    [content] = result.content
    assert isinstance(content, TextContent)
    assert result.is_error, content.text
    return content.text


def timeless(text: str) -> str:
    """An error's text with its instants (`known at …`) as `<t>`."""
    return re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+\+00:00", "<t>", text)


def quotes(claim: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["kind"], e["quote"]) for e in claim["evidence"]]


async def test_the_tools_are_listed_with_their_required_arguments(
    server: str,  # noqa: F811 - the imported fixture
    keys: Keys,
) -> None:
    async with over_http(server, keys.agent) as session:
        listed = (await session.list_tools()).tools
    schemas = {tool.name: tool.input_schema for tool in listed}
    assert sorted(schemas) == TOOLS
    assert {name: schema["required"] for name, schema in schemas.items()} == {
        "changes": ["space", "from", "to"],
        "context": ["space"],
        "correct": ["space", "kind", "reason"],
        "explain_relation": ["space", "from", "to"],
        "forget": ["space", "selector", "reason"],
        "history": ["space", "key"],
        "messages": ["space"],
        "recall": ["space", "query"],
        "related": ["space", "entity"],
        "remember": ["space", "items"],
    }
    kinds = schemas["correct"]["properties"]["kind"]
    assert schemas["correct"]["$defs"][kinds["$ref"].rpartition("/")[2]]["enum"] == [
        "SUPERSEDE",
        "RETRACT",
        "DISPUTE",
    ]
    assert all(tool.description for tool in listed)


async def test_an_agent_remembers_recalls_walks_corrects_and_forgets_over_http(
    server: str,  # noqa: F811 - the imported fixture
    keys: Keys,
) -> None:
    async with over_http(server, keys.agent) as session:
        people = await call(
            session,
            "remember",
            space="alice",
            evidence_text=SAID,
            observed_at=JOINED,
            items=[
                {"key": "entity:person:alice", "value": {"name": "Alice"}},
                {"key": "entity:org:acme", "value": {"name": "Acme"}},
                {"key": "pref:ui:theme", "value": {"value": "dark"}},
            ],
        )
        assert [(c["key"], c["revision"], c["status"]) for c in people] == [
            ("entity:person:alice", 1, "ACTIVE"),
            ("entity:org:acme", 1, "ACTIVE"),
            ("pref:ui:theme", 1, "ACTIVE"),
        ]
        said_id = people[0]["evidence"][0]["observationId"]
        [job] = await call(
            session,
            "remember",
            space="alice",
            items=[
                {
                    "type": "FACT",
                    "subject": {"name": "Alice"},
                    "predicate": "WORKS_AT",
                    "object": {"key": "entity:org:acme"},
                    "valid_from": JOINED,
                    "evidence": [said_id],
                }
            ],
        )
        assert {k: job[k] for k in ("key", "subject", "predicate", "object", "valid")} == {
            "key": FACT,
            "subject": "Alice (entity:person:alice)",
            "predicate": "WORKS_AT",
            "object": "Acme (entity:org:acme)",
            "valid": [JOINED, None],
        }
        assert quotes(job) == [("SUPPORTED_BY", SAID)]

        [hit] = await call(session, "recall", space="alice", query="alice acme", types=["FACT"])
        assert (hit["key"], hit["subject"], hit["object"]) == (FACT, job["subject"], job["object"])
        assert hit["score"] > 0 and "text" in hit["sources"] and hit["state"] == "CURRENT"

        assert await call(session, "context", space="alice") == {
            "space": "alice",
            "text": "Alice works at Acme\nPreference: ui theme: dark",
            "bytes": 46,
            "keys": [FACT, "pref:ui:theme"],
            "omitted": 0,
        }
        near = await call(session, "related", space="alice", entity={"name": "Alice"})
        assert near == {
            "entities": [
                {"name": "Alice", "key": "entity:person:alice", "kind": "PERSON", "hops": 0},
                {"name": "Acme", "key": "entity:org:acme", "kind": "ORG", "hops": 1},
            ],
            "relations": [
                {
                    "from": "Alice (entity:person:alice)",
                    "type": "WORKS_AT",
                    "to": "Acme (entity:org:acme)",
                    "valid": [JOINED, None],
                    "claimKey": FACT,
                }
            ],
            "truncated": False,
        }
        why = await call(
            session,
            "explain_relation",
            space="alice",
            **{"from": {"key": "entity:org:acme"}, "to": {"name": "Alice"}},
        )
        [[step]] = why["paths"]
        assert {k: step[k] for k in ("from", "relation", "direction", "to", "valid", "claim")} == {
            "from": "Acme (entity:org:acme)",
            "relation": "WORKS_AT",
            "direction": "IN",
            "to": "Alice (entity:person:alice)",
            "valid": [JOINED, None],
            "claim": {"key": FACT, "revision": 1, "status": "ACTIVE", "confidence": 0.9},
        }
        assert quotes(step) == [("SUPPORTED_BY", SAID)]

        ended = await call(
            session,
            "correct",
            space="alice",
            kind="SUPERSEDE",
            claim_key=FACT,
            reason="she left",
            evidence_text="I left Acme in June 2024",
            valid_to="2024-06-30T00:00:00Z",
            expected_revision=1,
        )
        assert (ended["revision"], ended["valid"], ended["reason"]) == (
            2,
            [JOINED, "2024-06-30T00:00:00+00:00"],
            "she left",
        )
        assert quotes(ended) == [
            ("SUPPORTED_BY", SAID),
            ("CORRECTED_BY", "I left Acme in June 2024"),
        ]
        revisions = await call(session, "history", space="alice", key=FACT)
        assert [(c["revision"], c["status"], c["valid"]) for c in revisions] == [
            (1, "SUPERSEDED", [JOINED, None]),
            (2, "ACTIVE", [JOINED, "2024-06-30T00:00:00+00:00"]),
        ]
        assert revisions[0]["recorded"][1] == revisions[1]["recorded"][0]
        past = await call(
            session,
            "recall",
            space="alice",
            query="alice acme",
            types=["FACT"],
            include_history=True,
        )
        assert sorted((h["revision"], h["state"]) for h in past) == [
            (1, "SUPERSEDED"),
            (2, "ENDED"),
        ]

        receipt = await call(
            session,
            "forget",
            space="alice",
            selector={"kind": "CLAIM", "key": FACT},
            reason="asked",
        )
        assert (receipt["erased"]["claims"], receipt["wholeSpace"]) == (2, False)
        gone = await refused(session, "history", space="alice", key=FACT)
        assert gone.startswith(f"NOT_FOUND: no claim with key '{FACT}' known at ")
        assert (
            await call(session, "recall", space="alice", query="alice acme", types=["FACT"]) == []
        )


async def test_replays_record_nothing_again_and_refusals_start_with_their_code(
    server: str,  # noqa: F811 - the imported fixture
    keys: Keys,
) -> None:
    async with over_http(server, keys.agent) as session:
        replayed = {"key": "pref:ui:font", "value": {"value": "serif"}, "idempotency_key": "f1"}
        first = await call(
            session, "remember", space="alice", evidence_text="Serif", items=[replayed]
        )
        again = await call(
            session, "remember", space="alice", evidence_text="Serif", items=[replayed]
        )
        assert again == first and first[0]["revision"] == 1
        nothing = await refused(session, "history", space="alice", key="pref:ui:nothing")
        assert nothing.startswith("NOT_FOUND: no claim with key 'pref:ui:nothing' known at ")
        unknown = await refused(
            session, "related", space="alice", entity={"key": "entity:person:nobody"}
        )
        assert unknown.startswith("NOT_FOUND: ")
        no_evidence = await refused(
            session, "remember", space="alice", items=[{"key": "pref:ui:theme", "value": 1}]
        )
        assert no_evidence.startswith("VALIDATION: ")
        bad_tier = await refused(
            session,
            "remember",
            space="alice",
            evidence_text="hi",
            items=[{"key": "pref:ui:theme", "value": 1, "privacy": "top"}],
        )
        assert bad_tier == (
            "VALIDATION: items[0].privacy: must be one of PUBLIC, NORMAL, PRIVATE, SECRET "
            "(field items[0].privacy)"
        )
        naive = await refused(session, "context", space="alice", as_of="2024-01-01T00:00:00")
        assert naive == (
            "VALIDATION: as_of: '2024-01-01T00:00:00' needs a UTC offset "
            "(e.g. 2024-01-01T00:00:00+00:00) (field as_of)"
        )
        dated = await call(session, "context", space="alice", as_of="2024-01-01")
        assert dated["space"] == "alice", "a bare date is its first instant, UTC"
        both = await refused(
            session, "related", space="alice", entity={"key": "entity:person:a", "name": "A"}
        )
        assert both == "VALIDATION: entity gives exactly one of key or name (field entity)"
        two = await refused(
            session,
            "forget",
            space="alice",
            selector={"kind": "CLAIM", "id": "x", "key": FACT},
            reason="x",
        )
        assert two == "VALIDATION: selector: a CLAIM selector gives id or key (field selector)"
        elsewhere = await refused(session, "context", space="elsewhere")
        assert elsewhere == "FORBIDDEN: this key may not read space 'elsewhere' (field space)"
    async with over_http(server, keys.outsider) as session:
        assert await refused(
            session, "forget", space="alice", selector={"kind": "SPACE"}, reason="x"
        ) == ("FORBIDDEN: this key may not write to space 'alice' (field space)")


async def test_mcp_without_a_valid_key_is_refused_with_401(
    server: str,  # noqa: F811 - the imported fixture
    keys: Keys,
) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    said = {
        "": "UNAUTHENTICATED: an API key is needed (Authorization: Bearer egk_… or "
        "X-API-Key: egk_…)",
        "Bearer egk_not-a-key": "UNAUTHENTICATED: this key is not known or was revoked",
        f"Bearer {keys.revoked}": "UNAUTHENTICATED: this key is not known or was revoked",
    }
    for presented, message in said.items():
        headers = {**accept, **({"Authorization": presented} if presented else {})}
        answer = httpx.post(f"{server}/mcp", json=initialize, headers=headers)
        assert (answer.status_code, answer.json()["error"]["message"]) == (401, message)
        statuses: list[int] = []

        async def note(response: httpx2.Response, seen: list[int] = statuses) -> None:
            seen.append(response.status_code)

        with pytest.raises(ExceptionGroup) as failure:  # the SDK's task groups wrap its error
            async with (
                httpx2.AsyncClient(headers=headers, event_hooks={"response": [note]}) as http,
                streamable_http_client(f"{server}/mcp", http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
        assert failure.group_contains(MCPError, match=f"^{re.escape(message)}$")
        assert statuses == [401]


async def test_a_normal_key_cannot_see_or_forget_a_secret_claim(
    server: str,  # noqa: F811 - the imported fixture
    keys: Keys,
) -> None:
    secret = "pref:other:salary"
    async with over_http(server, keys.owner) as session:
        [stored] = await call(
            session,
            "remember",
            space="alice",
            evidence_text="My salary is 100k",
            items=[{"key": secret, "value": {"value": "100k"}, "privacy": "SECRET"}],
        )
        assert (stored["key"], stored["privacy"]) == (secret, "SECRET")
    async with over_http(server, keys.agent) as session:
        hidden = await refused(session, "history", space="alice", key=secret)
        absent = await refused(session, "history", space="alice", key="pref:other:nothing")
        assert timeless(hidden.replace(secret, "pref:other:nothing")) == timeless(absent)
        assert (
            timeless(hidden) == f"NOT_FOUND: no claim with key '{secret}' known at <t> (field key)"
        )
        not_forgotten = await refused(
            session, "forget", space="alice", selector={"kind": "CLAIM", "key": secret}, reason="x"
        )
        assert not_forgotten == (
            f"NOT_FOUND: no claim with key '{secret}' in this space (field selector.key)"
        )
        not_corrected = await refused(
            session,
            "correct",
            space="alice",
            kind="RETRACT",
            claim_key=secret,
            reason="x",
            evidence=["y"],
        )
        assert not_corrected == (
            f"NOT_FOUND: no current claim with key '{secret}' in space 'alice' (field claimKey)"
        )
        assert await call(session, "recall", space="alice", query="salary 100k") == []
        assert (await call(session, "context", space="alice"))["keys"] == []
        snapshot = await session.read_resource("engram://alice/context")
        assert [c.text for c in snapshot.contents if hasattr(c, "text")] == [""]
    async with over_http(server, keys.owner) as session:
        [kept] = await call(session, "history", space="alice", key=secret)
        assert (kept["status"], kept["value"]) == ("ACTIVE", {"value": "100k"})
        assert quotes(kept) == [("SUPPORTED_BY", "My salary is 100k")]
        snapshot = await session.read_resource("engram://alice/context")
        assert [c.text for c in snapshot.contents if hasattr(c, "text")] == [
            "Preference: other salary: 100k"
        ]


@asynccontextmanager
async def over_stdio(
    settings: Settings, target: Neo4jTarget, log: Path, *args: str
) -> AsyncIterator[ClientSession]:
    """An initialised MCP session with a spawned `engram mcp`."""
    env = engram_env(settings, target, ENGRAM_EMBED_INTERVAL="0")
    command = StdioServerParameters(command=ENGRAM[0], args=[*ENGRAM[1:], "mcp", *args], env=env)
    with log.open("w") as errors:
        async with (
            stdio_client(command, errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def test_engram_mcp_over_stdio_acts_as_the_operator_or_as_the_key_given(
    test_settings: Settings, neo4j_target: Neo4jTarget, keys: Keys, tmp_path: Path
) -> None:
    log = tmp_path / "mcp.log"
    async with over_stdio(test_settings, neo4j_target, log) as session:
        assert sorted(t.name for t in (await session.list_tools()).tools) == TOOLS
        [stored] = await call(
            session,
            "remember",
            space="alice",
            evidence_text="Keep it secret: I prefer tea",
            items=[{"key": "pref:other:drink", "value": {"value": "tea"}, "privacy": "SECRET"}],
        )
        assert (stored["revision"], stored["privacy"]) == (1, "SECRET")
        assert (await call(session, "context", space="elsewhere"))["keys"] == []
    async with over_stdio(test_settings, neo4j_target, log, "--api-key", keys.agent) as session:
        hidden = await refused(session, "history", space="alice", key="pref:other:drink")
        absent = await refused(session, "history", space="alice", key="pref:other:none")
        assert timeless(hidden.replace("drink", "none")) == timeless(absent)
        assert await refused(session, "context", space="elsewhere") == (
            "FORBIDDEN: this key may not read space 'elsewhere' (field space)"
        )
