"""One admission budget for the whole process: GraphQL and MCP draw on the same units, a heavy
read (3–4 hops, an explanation) costs `HEAVY` of them, and what the budget cannot hold is
answered at once — 503 with Retry-After, shaped for its door — never after a long wait.

The first tests drive the `Admission` middleware alone (pure logic: the app behind it is held
open by the test, so what is in flight is exact); the last sends 200 heavy calls over both doors
of the real app at once.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from api.guards import HEAVY, Admission, cost
from graph.runtime import Graph, Settings
from tests.test_api_abuse import PEOPLE, RELATED, chain

MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    # The MCP transport refuses a Host that is not loopback on a loopback server (DNS rebinding).
    "Host": "127.0.0.1:8000",
}


def tool_call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


DEEP_MCP = tool_call("related", space="alice", entity={"key": "entity:person:alice"}, hops=3)
LIGHT_MCP = tool_call("related", space="alice", entity={"key": "entity:person:alice"}, hops=1)
LIGHT_GRAPHQL = {"query": '{ claims(space: "alice") { nodes { key } } }'}
BY_VARIABLE = "query($h: Int) { related(hops: $h) }"


@pytest.mark.fast
@pytest.mark.parametrize(
    ("max_in_flight", "workers", "each"), [(16, 1, 16), (16, 2, 8), (16, 3, 5), (1, 4, 1)]
)
def test_each_worker_process_admits_its_share_of_the_budget_and_at_least_one(
    max_in_flight: int, workers: int, each: int
) -> None:
    settings = Settings(max_in_flight=max_in_flight, workers=workers)
    assert settings.in_flight_per_worker == each


@pytest.mark.fast
@pytest.mark.parametrize(
    ("path", "request_body", "units"),
    [
        ("/mcp", DEEP_MCP, HEAVY),
        ("/mcp", LIGHT_MCP, 1),
        ("/mcp", tool_call("explain_relation", space="alice"), HEAVY),
        ("/mcp", tool_call("related", hops="3"), 1),
        ("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, 1),
        ("/graphql", {"query": RELATED}, HEAVY),
        ("/graphql", {"query": BY_VARIABLE, "variables": {"h": 4}}, HEAVY),
        ("/graphql", {"query": "query($h: Int = 3) { related(hops: $h) }"}, HEAVY),
        ("/graphql", {"query": BY_VARIABLE, "variables": {"h": 2}}, 1),
        ("/graphql", {"query": '{ explainRelation(space: "a") { paths { length } } }'}, HEAVY),
        ("/graphql", LIGHT_GRAPHQL, 1),
        ("/graphql", [1, 2], 1),
    ],
    ids=[
        "mcp-related-3-hops",
        "mcp-related-1-hop",
        "mcp-explain",
        "mcp-hops-not-a-number",
        "mcp-list-tools",
        "graphql-related-3-hops",
        "graphql-hops-as-variable",
        "graphql-hops-by-default-value",
        "graphql-two-hops-as-variable",
        "graphql-explain",
        "graphql-claims",
        "graphql-not-an-object",
    ],
)
def test_a_request_costs_heavy_units_for_a_deep_walk_or_an_explanation_on_either_door(
    path: str, request_body: Any, units: int
) -> None:
    assert cost(path, json.dumps(request_body).encode()) == units


class HeldOpen:
    """The app behind admission: every request it admits stays in flight until released."""

    def __init__(self) -> None:
        self.admitted: list[str] = []
        self.admitted_after_release: list[str] = []
        self.release = asyncio.Event()
        self.changed = asyncio.Condition()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with self.changed:
            self.admitted.append(scope["path"])
            if self.release.is_set():
                self.admitted_after_release.append(scope["path"])
            self.changed.notify_all()
        await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def settled(self, count: int) -> None:
        """Once `count` requests are in flight."""
        async with asyncio.timeout(5), self.changed:
            await self.changed.wait_for(lambda: len(self.admitted) >= count)


async def answered(
    guard: Admission, path: str, body: dict[str, Any], arrived: asyncio.Event | None = None
) -> httpx.Response:
    """The response to `body` at `path` through `guard`; `arrived` is set as the request
    reaches admission (nothing yields between that and its turn or its wait for one)."""
    encoded = json.dumps(body).encode()

    async def with_body(scope: Scope, receive: Receive, send: Send) -> None:
        # BodyLimit, outside Admission in the app, leaves the body read in the scope's state.
        scope.setdefault("state", {})["body"] = encoded
        if arrived is not None:
            arrived.set()
        await guard(scope, receive, send)

    transport = httpx.ASGITransport(app=with_body)
    async with httpx.AsyncClient(transport=transport, base_url="http://engram.test") as client:
        return await client.post(path, content=encoded, headers=MCP_HEADERS)


@pytest.mark.fast
async def test_a_deep_mcp_walk_in_flight_leaves_no_room_for_a_graphql_read_until_it_ends() -> None:
    held = HeldOpen()
    guard = Admission(held, budget=HEAVY, wait=0)
    deep = asyncio.create_task(answered(guard, "/mcp", DEEP_MCP))
    await held.settled(1)
    refused = await answered(guard, "/graphql", LIGHT_GRAPHQL)
    assert (refused.status_code, refused.headers["retry-after"]) == (503, "1")
    assert refused.json()["errors"] == [
        {"message": "the server is busy; try again in 1 s", "extensions": {"code": "BUSY"}}
    ]
    held.release.set()
    assert (await deep).status_code == 200
    assert (await answered(guard, "/graphql", LIGHT_GRAPHQL)).status_code == 200
    assert held.admitted == ["/mcp", "/graphql"]


@pytest.mark.fast
async def test_graphql_reads_in_flight_leave_room_for_a_light_mcp_call_but_not_a_deep_one() -> None:
    held = HeldOpen()
    guard = Admission(held, budget=HEAVY, wait=0)
    reads = [
        asyncio.create_task(answered(guard, "/graphql", LIGHT_GRAPHQL)) for _ in range(HEAVY - 2)
    ]
    await held.settled(HEAVY - 2)
    deep = await answered(guard, "/mcp", DEEP_MCP)
    assert (deep.status_code, deep.headers["retry-after"]) == (503, "1")
    assert deep.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {
            "code": -32000,
            "message": "BUSY: the server is busy; try again in 1 s",
            "data": {"code": "BUSY"},
        },
    }
    light = asyncio.create_task(answered(guard, "/mcp", LIGHT_MCP))
    await held.settled(HEAVY - 1)
    held.release.set()
    assert [r.status_code for r in await asyncio.gather(*reads, light)] == [200] * (HEAVY - 1)


@pytest.mark.fast
async def test_a_request_waits_for_its_share_up_to_the_admission_wait_then_goes_in() -> None:
    held = HeldOpen()
    guard = Admission(held, budget=HEAVY, wait=5)
    deep = asyncio.create_task(answered(guard, "/mcp", DEEP_MCP))
    await held.settled(1)
    arrived = asyncio.Event()
    waiting = asyncio.create_task(answered(guard, "/graphql", LIGHT_GRAPHQL, arrived))
    await arrived.wait()
    assert held.admitted == ["/mcp"], "the read waits while the deep walk holds the budget"
    held.release.set()
    assert [(await deep).status_code, (await waiting).status_code] == [200, 200]
    assert held.admitted == ["/mcp", "/graphql"]
    assert held.admitted_after_release == ["/graphql"], "it went in when the walk ended"


async def test_two_hundred_heavy_calls_over_mcp_and_graphql_get_results_or_a_fast_503(
    graph: Graph, client: httpx.AsyncClient
) -> None:
    await chain(graph)
    expected = [(i, f"entity:person:{name}") for i, name in enumerate(PEOPLE)]
    mcp = [client.post("/mcp", json=DEEP_MCP, headers=MCP_HEADERS) for _ in range(100)]
    graphql = [client.post("/graphql", json={"query": RELATED}) for _ in range(100)]
    calls = [call for pair in zip(mcp, graphql, strict=True) for call in pair]
    responses = await asyncio.gather(*calls)
    by_door: dict[str, list[int]] = {"/mcp": [], "/graphql": []}
    for response in responses:
        by_door[response.request.url.path].append(response.status_code)
        if response.status_code == 503:
            assert response.headers["retry-after"] == "1"
            continue
        assert response.status_code == 200, response.text
        body = response.json()
        if response.request.url.path == "/mcp":
            assert body["result"]["isError"] is False, body
            walked = json.loads(body["result"]["content"][0]["text"])
            found = sorted((n["hops"], n["key"]) for n in walked["entities"])
        else:
            nodes = body["data"]["related"]["nodes"]
            found = [(n["distance"], n["entity"]["key"]) for n in nodes]
        assert found == expected
    for door, statuses in by_door.items():
        assert set(statuses) <= {200, 503} and 200 in statuses, door
