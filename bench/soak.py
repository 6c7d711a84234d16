"""Soak: mixed load over real HTTP for a long while, Neo4j killed twice and the API once.

    python -m bench.soak                 # 30 minutes, 6 clients
    python -m bench.soak --minutes 3     # a short look

Starts `engram serve --dev` on a fresh data directory (it starts its own Neo4j), then runs
clients that write (GraphQL `remember` and MCP `remember`), read (`related`, `search`, `claims`,
MCP `recall`) and forget (by claim id) until the time is up. At a quarter and at half of the
time Neo4j is killed with SIGKILL and started again (`engram neo4j start`; the running server
finds it again), at seven tenths the API process is killed with SIGKILL and started again.

What counts: every keyed memory the server acknowledged (an answer without errors, over GraphQL
or MCP; each holds a word no other write uses) is there at the end with its value, and nothing a
forget acknowledged comes back — not in `claimHistory`, not in `search`. (The facts by names are
load for `related`, written but not checked.) A write or forget whose answer was lost in a kill
is neither: it is counted apart, as are the writes refused while Neo4j was down. Writes
`bench/results/soak.md` and `soak.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import TextContent

from bench._support import percentile
from bench.ingest import free_port
from bench.scale_report import commit

RESULTS = Path(__file__).resolve().parent / "results"
ENGRAM = str(Path(sys.executable).with_name("engram"))
SPACE = "soak"
READS = [
    '{ related(space: "soak", entity: {name: "Soak Person 1"}, hops: 2) { nodes { entity '
    "{ name } } } }",
    '{ search(space: "soak", query: "soak note") { claim { key } } }',
    '{ claims(space: "soak", first: 20) { nodes { key revision } } }',
]
REMEMBER = """mutation($input: RememberInput!) { remember(space: "soak", input: $input)
  { claim { id key revision } errors { code } } }"""
FORGET = """mutation($id: ID!) { forget(space: "soak", selector: {kind: CLAIM, id: $id},
  reason: "soak") { receipt { claims } errors { code } } }"""
HISTORY = """query($key: String!) { claimHistory(space: "soak", key: $key) { id value } }"""
FIND = """query($q: String!) { search(space: "soak", query: $q, includeHistory: true)
  { claim { id } } }"""


@dataclass
class Ledger:
    """What the clients were told: acknowledged writes by claim id (key, token), forgets."""

    written: dict[str, tuple[str, str]] = field(default_factory=dict)
    forgotten: dict[str, tuple[str, str]] = field(default_factory=dict)
    uncertain: set[str] = field(default_factory=set)
    ops: Counter[str] = field(default_factory=Counter)
    read_ms: list[float] = field(default_factory=list)
    counter: int = 0

    def token(self) -> int:
        self.counter += 1
        return self.counter


def pref(n: int) -> tuple[str, str, dict[str, Any]]:
    """A keyed memory with a word no other write uses (`tok…`), told with its evidence."""
    key, token = f"pref:other:soak-{n}", f"tok{n}zq"
    return key, token, {"value": token}


def fact(n: int) -> dict[str, Any]:
    """A fact by names between a few people, so `related` has a graph to walk."""
    return {
        "type": "FACT",
        "subject": {"name": f"Soak Person {n % 20}", "kind": "PERSON"},
        "predicate": "KNOWS",
        "object": {"name": f"Soak Person {(n * 7 + 1) % 20}", "kind": "PERSON"},
        "evidence": [{"text": f"soak note {n}: they know each other"}],
    }


class Soak:
    def __init__(self, minutes: float, clients: int) -> None:
        self.seconds = minutes * 60
        self.clients = clients
        self.home = Path(tempfile.mkdtemp(prefix="engram-soak-"))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
        self.env["ENGRAM_DATA_DIR"] = str(self.home)
        self.ledger = Ledger()
        self.kills: list[dict[str, Any]] = []
        self.api: subprocess.Popen[bytes] | None = None

    # -- the processes -----------------------------------------------------------------------

    def serve(self) -> None:
        log = (self.home / "serve.log").open("ab")
        self.api = subprocess.Popen(
            [ENGRAM, "serve", "--dev", "--port", str(self.port)],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    async def ready(self, timeout: float = 300) -> float:
        """Seconds until `/readyz` answers 200."""
        started = time.monotonic()
        async with httpx.AsyncClient(base_url=self.base, timeout=5) as http:
            while time.monotonic() - started < timeout:
                try:
                    if (await http.get("/readyz")).status_code == 200:
                        return time.monotonic() - started
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.5)
        raise RuntimeError(f"Engram was not ready after {timeout:.0f} s: see {self.home}")

    def neo4j_pid(self) -> int:
        return int(json.loads((self.home / "neo4j" / "server.json").read_text())["pid"])

    async def kill_neo4j(self) -> None:
        pid, killed = self.neo4j_pid(), time.monotonic()
        os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(3)
        await asyncio.to_thread(
            subprocess.run, [ENGRAM, "neo4j", "start"], env=self.env, capture_output=True
        )
        await self.ready()
        self.kills.append({"what": "neo4j", "recovered_s": round(time.monotonic() - killed, 1)})

    async def kill_api(self) -> None:
        assert self.api is not None
        killed = time.monotonic()
        self.api.send_signal(signal.SIGKILL)
        self.api.wait()
        self.serve()
        await self.ready()
        self.kills.append({"what": "api", "recovered_s": round(time.monotonic() - killed, 1)})

    def stop(self) -> None:
        if self.api is not None:
            self.api.send_signal(signal.SIGTERM)
            self.api.wait(60)
        subprocess.run([ENGRAM, "neo4j", "stop"], env=self.env, capture_output=True)

    # -- the load ----------------------------------------------------------------------------

    async def client(self, seed: int, deadline: float) -> None:
        rng = random.Random(seed)
        async with httpx.AsyncClient(base_url=self.base, timeout=30) as http:
            while time.monotonic() < deadline:
                roll = rng.random()
                try:
                    if roll < 0.35:
                        await self.write(http)
                    elif roll < 0.70:
                        await self.read(http, rng)
                    elif roll < 0.80:
                        await self.forget(http, rng)
                    else:
                        await self.mcp(rng)
                except (httpx.HTTPError, httpx2.HTTPError, OSError, RuntimeError) as failure:
                    self.ledger.ops[f"failed: {type(failure).__name__}"] += 1
                    await asyncio.sleep(0.2)
                except (MCPError, ExceptionGroup) as failure:  # an MCP session cut by a kill
                    if isinstance(failure, ExceptionGroup):
                        failure = failure.exceptions[0]
                    self.ledger.ops[f"mcp failed: {type(failure).__name__}"] += 1
                    await asyncio.sleep(0.2)

    async def post(self, http: httpx.AsyncClient, query: str, **variables: Any) -> Any:
        answer = await http.post("/graphql", json={"query": query, "variables": variables})
        if answer.status_code != 200:
            raise RuntimeError(f"HTTP {answer.status_code}")
        body = answer.json()
        if body.get("errors"):
            raise RuntimeError(body["errors"][0].get("extensions", {}).get("code", "error"))
        return body["data"]

    async def write(self, http: httpx.AsyncClient) -> None:
        n = self.ledger.token()
        if n % 3 == 0:
            item = fact(n)
        else:
            key, token, value = pref(n)
            item = {"key": key, "value": value, "evidence": [{"text": f"soak note {token}"}]}
        try:
            data = await self.post(http, REMEMBER, input=item)
        except (httpx.HTTPError, RuntimeError):
            self.ledger.ops["write refused or lost"] += 1
            raise
        payload = data["remember"]
        if payload["errors"]:
            self.ledger.ops[f"write error {payload['errors'][0]['code']}"] += 1
            return
        self.ledger.ops["write acknowledged"] += 1
        if "value" in item:
            self.ledger.written[payload["claim"]["id"]] = (item["key"], item["value"]["value"])

    async def read(self, http: httpx.AsyncClient, rng: random.Random) -> None:
        started = time.perf_counter()
        await self.post(http, rng.choice(READS))
        self.ledger.read_ms.append((time.perf_counter() - started) * 1000)
        self.ledger.ops["read answered"] += 1

    async def forget(self, http: httpx.AsyncClient, rng: random.Random) -> None:
        if not self.ledger.written:
            return
        claim_id = rng.choice(list(self.ledger.written))
        told = self.ledger.written.pop(claim_id)
        try:
            data = await self.post(http, FORGET, id=claim_id)
        except (httpx.HTTPError, RuntimeError):
            self.ledger.uncertain.add(claim_id)  # it may or may not have happened
            raise
        if data["forget"]["errors"]:
            self.ledger.written[claim_id] = told
            self.ledger.ops[f"forget error {data['forget']['errors'][0]['code']}"] += 1
            return
        self.ledger.forgotten[claim_id] = told
        self.ledger.ops["forget acknowledged"] += 1

    async def mcp(self, rng: random.Random) -> None:
        async with (
            httpx2.AsyncClient(timeout=30) as http,
            streamable_http_client(f"{self.base}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            if rng.random() < 0.5:
                result = await session.call_tool("recall", {"space": SPACE, "query": "soak"})
                self.ledger.ops["mcp recall answered" if not result.is_error else "mcp error"] += 1
                return
            n = self.ledger.token()
            key, token, value = pref(n)
            result = await session.call_tool(
                "remember",
                {
                    "space": SPACE,
                    "items": [{"key": key, "value": value}],
                    "evidence_text": f"soak note {token}",
                },
            )
            [content] = result.content
            if result.is_error or not isinstance(content, TextContent):
                self.ledger.ops["mcp write refused"] += 1
                return
            [claim] = json.loads(content.text)
            self.ledger.written[claim["id"]] = (key, token)
            self.ledger.ops["mcp write acknowledged"] += 1

    async def chaos(self, started: float) -> None:
        for share, kill in ((0.25, self.kill_neo4j), (0.5, self.kill_neo4j), (0.7, self.kill_api)):
            await asyncio.sleep(max(0.0, started + share * self.seconds - time.monotonic()))
            await kill()

    # -- the verdict -------------------------------------------------------------------------

    async def verify(self) -> dict[str, int]:
        """How many acknowledged writes are missing, and how many forgotten ones show again."""
        async with httpx.AsyncClient(base_url=self.base, timeout=60) as http:
            gate = asyncio.Semaphore(4)

            async def told(key: str, token: str) -> set[str]:
                """The ids of the key's revisions that hold `token`."""
                async with gate:
                    try:
                        rows = (await self.post(http, HISTORY, key=key))["claimHistory"]
                    except RuntimeError as failure:
                        if str(failure) != "NOT_FOUND":  # a key with nothing left to show
                            raise
                        rows = []
                return {row["id"] for row in rows if token in json.dumps(row["value"])}

            async def found(token: str) -> set[str]:
                async with gate:
                    hits = (await self.post(http, FIND, q=token))["search"]
                return {hit["claim"]["id"] for hit in hits}

            async def kept(claim_id: str, key: str, token: str) -> bool:
                return claim_id in await told(key, token)

            async def returned(claim_id: str, key: str, token: str) -> bool:
                return bool(await told(key, token)) or claim_id in await found(token)

            written = self.ledger.written.items()
            forgotten = self.ledger.forgotten.items()
            kept_all = await asyncio.gather(*(kept(i, k, t) for i, (k, t) in written))
            back_all = await asyncio.gather(*(returned(i, k, t) for i, (k, t) in forgotten))
        return {"lost": kept_all.count(False), "back": back_all.count(True)}

    async def run(self) -> dict[str, Any]:
        self.serve()
        boot = await self.ready()
        async with httpx.AsyncClient(base_url=self.base, timeout=60) as http:
            await self.post(http, 'mutation { createSpace(name: "soak") { errors { code } } }')
        started = time.monotonic()
        deadline = started + self.seconds
        await asyncio.gather(
            self.chaos(started), *(self.client(i, deadline) for i in range(self.clients))
        )
        await self.ready()
        verdict = await self.verify()
        return {
            "commit": commit(),
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "minutes": self.seconds / 60,
            "clients": self.clients,
            "boot_s": round(boot, 1),
            "kills": self.kills,
            "ops": dict(sorted(self.ledger.ops.items())),
            "acknowledged_writes_checked": len(self.ledger.written),
            "acknowledged_forgets_checked": len(self.ledger.forgotten),
            "forgets_with_lost_answers": len(self.ledger.uncertain),
            "acknowledged_writes_lost": verdict["lost"],
            "forgotten_items_back": verdict["back"],
            "read_p50_ms": round(percentile(self.ledger.read_ms, 50), 1),
            "read_p95_ms": round(percentile(self.ledger.read_ms, 95), 1),
            "load_average": os.getloadavg(),
        }


def markdown(result: dict[str, Any]) -> str:
    held = result["acknowledged_writes_lost"] == 0 and result["forgotten_items_back"] == 0
    lines = [
        f"# Soak, {result['minutes']:g} minutes, {result['clients']} clients "
        f"(commit {result['commit']}, {result['at']})",
        "",
        f"- acknowledged writes lost: **{result['acknowledged_writes_lost']}** of "
        f"{result['acknowledged_writes_checked']} checked {'✅' if held else '❌'}",
        f"- forgotten items back: **{result['forgotten_items_back']}** of "
        f"{result['acknowledged_forgets_checked']} forgets checked",
        f"- forgets whose answer was lost in a kill (not counted either way): "
        f"{result['forgets_with_lost_answers']}",
        "- kills: "
        + ", ".join(
            f"{k['what']} (ready again after {k['recovered_s']} s)" for k in result["kills"]
        ),
        f"- reads answered: p50 {result['read_p50_ms']} ms, p95 {result['read_p95_ms']} ms; "
        f"load average {', '.join(f'{x:.2f}' for x in result['load_average'])}",
        "",
        "| operation | count |",
        "|---|---|",
        *(f"| {op} | {n} |" for op, n in result["ops"].items()),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--clients", type=int, default=6)
    args = parser.parse_args()
    soak = Soak(args.minutes, args.clients)
    try:
        result = asyncio.run(soak.run())
    finally:
        soak.stop()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "soak.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "soak.md").write_text(markdown(result))
    print(markdown(result))
    if result["acknowledged_writes_lost"] or result["forgotten_items_back"]:
        raise SystemExit(f"the soak failed; its data directory is kept: {soak.home}")
    shutil.rmtree(soak.home, ignore_errors=True)


if __name__ == "__main__":
    main()
