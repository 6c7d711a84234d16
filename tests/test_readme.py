"""The README is a test: every block runs, in order, on one fresh `engram serve`, as written, and
what a block is shown to print is what it prints.

The server is `engram serve` in production mode on the run's Neo4j (emptied before the test);
shell blocks run line by line in a scratch directory with `.venv/bin/` read as this install's
`bin/`; GraphQL blocks go over HTTP with the key the README's `keys create … --name agent-7`
printed; the Python block runs with that key and the server's address in its environment; the
MCP block starts `engram mcp` through the SDK's stdio client. The README says where a block
needs more than it shows: the people story written into space `alice` after the key block, the
`<key id>` it revokes (the `admin` key's), what the MCP host adds to `env`. A block the test
cannot run says why right after it (`tests/readme_blocks.NOT_RUN`); any other block without a
runner here fails the test.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import TextContent

from graph.runtime import Graph, Neo4jTarget, Settings
from tests.people_story import people_story
from tests.readme_blocks import Block, blocks
from tests.support import engram_env, serving

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent
SERVE_TIMEOUT = 120
NOT_RUN_FIRST_LINES = ("./scripts/serve", "NEO4J_PASSWORD=choose-a-long-one", ".venv/bin/pip")
"""How the blocks begin that cannot run in the suite: the two commands, Docker, the bench extra."""


@dataclass
class Server:
    base: str
    log: Path


@pytest.fixture
def server(test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path) -> Iterator[Server]:
    """`engram serve` as a user starts it (production mode, the embedding worker on), on a free
    port and the run's Neo4j."""
    log = tmp_path / "serve.log"
    env = engram_env(test_settings, neo4j_target, COLUMNS="200")
    with serving(
        env, log, ready_within=SERVE_TIMEOUT, command=[str(BIN / "engram")], cwd=tmp_path
    ) as served:
        yield Server(served.base, log)


@dataclass
class Run:
    """What the blocks run so far left behind for the blocks after them."""

    graph: Graph
    settings: Settings
    target: Neo4jTarget
    server: Server
    home: Path
    agent_key: str = ""
    key_ids: dict[str, str] = field(default_factory=dict)
    printed: dict[str, str] = field(default_factory=dict)
    """A shell line's stdout, by the line as the README writes it."""
    answers: list[dict[str, Any]] = field(default_factory=list)
    """Every GraphQL block's answer, in order."""
    python_printed: str | None = None
    deferred: list[Block] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        return engram_env(self.settings, self.target, COLUMNS="200")

    def shell(self, block: Block) -> None:
        for line in block.text.splitlines():
            if not line.strip():
                continue
            command = line.replace(".venv/bin/", f"{BIN}/")
            command = command.replace("<key id>", self.key_ids.get("admin", "<key id>"))
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=self.home,
                env=self.env(),
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, (
                f"README line {block.line}: {line}\n{done.stdout}\n{done.stderr}"
            )
            self.printed[line] = done.stdout
            if " keys create " in command.split("#", 1)[0]:
                issued = re.search(r"^key (\w+):", done.stderr, re.MULTILINE)
                assert issued, (command, done.stdout, done.stderr)
                key_id = issued.group(1)
                [name] = re.findall(r"--name (\S+)", command)
                self.key_ids[name] = key_id
                assert done.stdout.startswith(f"egk_{key_id}_"), done.stdout
                if "--write" in command:
                    self.agent_key = done.stdout.strip()

    async def graphql(self, block: Block) -> None:
        async with httpx.AsyncClient(base_url=self.server.base, timeout=60) as http:
            response = await http.post(
                "/graphql",
                json={"query": block.text},
                headers={"Authorization": f"Bearer {self.agent_key}"},
            )
        answer: dict[str, Any] = response.json()
        assert response.status_code == 200 and "errors" not in answer, (block.line, answer)
        if block.first_line.startswith("mutation"):
            for field_name, payload in answer["data"].items():
                assert payload.get("errors", []) == [], (block.line, field_name, payload)
        self.answers.append(answer["data"])

    def python(self, block: Block) -> None:
        os.environ["ENGRAM_URL"] = self.server.base
        os.environ["ENGRAM_API_KEY"] = self.agent_key
        try:
            output = io.StringIO()
            with contextlib.redirect_stdout(output):
                exec(compile(block.text, f"README.md:{block.line}", "exec"), {"__name__": "readme"})
        finally:
            del os.environ["ENGRAM_URL"], os.environ["ENGRAM_API_KEY"]
        self.python_printed = output.getvalue()

    async def mcp(self, block: Block) -> None:
        config = json.loads(block.text)["mcpServers"]["engram"]
        command = config["command"].replace("/path/to/engram/.venv/bin/", f"{BIN}/")
        # The config's env with its key filled in, and this run's Neo4j settings beside it.
        env = {k: v for k, v in self.env().items() if k.startswith(("NEO4J_", "ENGRAM_"))}
        env.update(config["env"], ENGRAM_API_KEY=self.agent_key)
        server = StdioServerParameters(command=command, args=config["args"], env=env)
        with (self.home / "mcp.log").open("w") as errors:
            async with (
                stdio_client(server, errlog=errors) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = sorted(tool.name for tool in (await session.list_tools()).tools)
                recalled = await session.call_tool(
                    "recall", {"space": "alice", "query": "who works at Globex"}
                )
        assert tools == sorted(readme_tool_names()), tools
        assert not recalled.is_error, recalled
        [text] = [c.text for c in recalled.content if isinstance(c, TextContent)]
        assert "Carol (entity:person:carol)" in text, text

    def output(self, block: Block) -> None:
        """A block showing what something before it printed."""
        if block.first_line.startswith("Neo4j "):
            check_serve_output(block.text, self.server.log.read_text())
        elif block.first_line.startswith("in2021"):
            check_any_order_answers(block.text, self.answers[-1])
        elif block.first_line.startswith("Alice (entity:person:alice) → Carol"):
            [explained] = [out for line, out in self.printed.items() if " explain " in line]
            assert explained == block.text
        elif self.python_printed is not None:
            assert self.python_printed == block.text
            self.python_printed = None
        else:
            pytest.fail(f"README line {block.line}: no check for this output block")


def readme_tool_names() -> list[str]:
    section = README.split("\n## MCP", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)


def check_serve_output(shown: str, log: str) -> None:
    """The lines `engram serve` prints, ports, versions and paths aside; the first line is the one
    the README gives for a server with `NEO4J_URI` set, as the test's is."""
    printed = [line for line in log.splitlines() if not line.startswith("applied ")]
    assert re.fullmatch(r"Neo4j at bolt://127\.0\.0\.1:\d+ \(database neo4j\)", printed[0]), log
    assert "with `NEO4J_URI` set, nothing local starts and the first line is `Neo4j at" in " ".join(
        README.split()
    )

    def same(line: str) -> str:
        return re.sub(r"\d+", "N", line)

    assert [same(line) for line in printed[1:4]] == [same(line) for line in shown.splitlines()[1:]]


def check_any_order_answers(shown: str, answer: dict[str, Any]) -> None:
    """`in2021  Pinecrest Labs  2020-01-01 – 2022-01-01`: a view, the employer it shows and the
    part of that fact's interval it is shown on; the last line the rename, both ways."""
    *views, renamed = [re.split(r" {2,}", line) for line in shown.strip().splitlines()]
    assert [
        [view, r["to"]["name"], f"{r['validFrom'][:10]} – {(r['validTo'] or '(open)')[:10]}"]
        for view, *_ in views
        for r in answer[view]["relations"]
    ] == views
    assert renamed[:2] == ["byTodaysName", answer["byTodaysName"]["name"]]
    assert "Pinecrest Labs" in {n["entity"]["name"] for n in answer["lookedUp"]["nodes"]}


RUNNERS = {"sh", "graphql", "python", "json", "jsonl", "cypher", "text", ""}


@pytest.mark.fast
def test_every_readme_block_has_a_runner_or_says_why_it_is_not_run() -> None:
    found = blocks(README)
    assert {b.language for b in found} <= RUNNERS, [(b.line, b.language) for b in found]
    assert [b.line for b in found if b.not_run] == [
        b.line for b in found if b.first_line.startswith(NOT_RUN_FIRST_LINES)
    ]


async def test_every_readme_block_runs_in_order_on_one_fresh_server(
    graph: Graph,
    test_settings: Settings,
    neo4j_target: Neo4jTarget,
    server: Server,
    tmp_path: Path,
) -> None:
    run = Run(graph, test_settings, neo4j_target, server, tmp_path)
    skipped = []
    for block in blocks(README):
        if block.not_run:
            skipped.append(block.first_line.split()[0])
        elif block.language == "sh":
            run.shell(block)
            if "keys create" in block.text:
                await people_story(graph, "alice", create=False)
        elif block.language == "graphql":
            await run.graphql(block)
        elif block.language == "python":
            run.python(block)
        elif block.language == "json":
            await run.mcp(block)
        elif block.language == "jsonl":
            [name] = re.findall(r"`([\w.-]+\.jsonl)` holds", block.before)
            (tmp_path / name).write_text(block.text)
        elif block.language == "cypher":
            run.deferred.append(block)
        elif block.language in ("", "text"):
            run.output(block)
        else:
            pytest.fail(f"README line {block.line}: no runner for a {block.language!r} block")
    assert tuple(skipped) == NOT_RUN_FIRST_LINES
    assert run.python_printed is None, "the Python block's output is shown after it"
    check_graphql_answers(run.answers)
    check_command_line(run.printed, tmp_path)
    forgotten = await graph.read("MATCH (c:Claim {key: 'pref:ui:theme'}) RETURN count(c) AS n")
    assert forgotten == [{"n": 0}], "what the command line forgot is gone"
    said = await graph.read(
        "MATCH (o:Observation {content: 'Bob: I joined Globex in July and moved to Berlin.'}) "
        "RETURN count(o) AS n"
    )
    assert said == [{"n": 1}], "both facts by names cite one observation of that text"
    [cypher] = run.deferred
    [space] = await graph.read("MATCH (s:Space {name: 'alice'}) RETURN s.id AS id")
    # As Browser runs it: nodes and relationships come back as such (Engram's own reads return
    # plain data only, and Graph.read refuses anything else).
    drawn = await graph.driver.execute_query(
        cypher.text,
        space=space["id"],
        database_=graph.database,
    )
    shown = {(a["name"], r.type, b["name"]) for a, r, b in drawn.records}
    assert ("Alice", "WORKS_AT", "Globex") in shown and ("Bob", "KNOWS", "Carol") not in shown


def check_graphql_answers(answers: list[dict[str, Any]]) -> None:
    """What the prose around each GraphQL block says it answers."""
    related, explain, correction, said, *told, reads, by_names = answers
    assert [n["entity"]["key"] for n in related["related"]["nodes"]] == [
        "entity:person:alice",
        "entity:org:acme",
        "entity:person:bob",
    ]
    [path] = explain["explainRelation"]["paths"]
    assert [s["to"]["name"] for s in path["steps"]] == ["Acme Global", "Bob"]
    claim = correction["correct"]["claim"]
    assert (claim["revision"], claim["validFrom"][:10], claim["validTo"][:10]) == (
        2,
        "2019-01-01",
        "2024-06-30",
    )
    assert [
        (m["observation"]["content"], m["observation"]["role"], m["sources"])
        for m in said["messages"]
    ] == [("alice left Acme at the end of June 2023", "USER", ["words"])]
    assert [len(t["rememberMany"]["claims"]) for t in told] == [1, 3]
    assert "now" in reads
    both = by_names["rememberMany"]["claims"]
    said_once = "Bob: I joined Globex in July and moved to Berlin."
    assert [c["evidence"][0]["text"] for c in both] == [said_once] * 2
    assert [(c["subject"]["key"], c["object"]["key"]) for c in both] == [
        ("entity:person:bob", "entity:org:globex"),
        ("entity:person:bob", "entity:other:berlin"),
    ]


def check_command_line(printed: dict[str, str], home: Path) -> None:
    """What the shell blocks' comments say each line does."""

    def out(words: str) -> str:
        [text] = [text for line, text in printed.items() if words in line]
        return text

    assert out("keys list").count("\tactive\t") == 2
    assert out("keys revoke").startswith("revoked ")
    assert out("engram import").startswith("2 lines: 2 remembered")
    assert out("engram embed").startswith("embedded ")
    assert out("retention run --dry-run").splitlines() == [
        f"{space}: would archive 0, would purge 0, skip 0" for space in ("alice", "team")
    ]
    assert ", 0 tombstones; covers recorded time up to " in out("engram backup")
    restored = out("engram restore")
    assert "checksums: verified" in restored and "invariants: hold" in restored, restored
    [lines] = re.findall(r"^exported alice \(jsonl, (\d+) lines\) to alice.jsonl$", out("--out"))
    assert len((home / "alice.jsonl").read_text().splitlines()) == int(lines)
    assert out("--format markdown").startswith("# Memory of alice\n")
    assert "ui theme: dark theme in every editor" in out('search "dark theme"')
    assert out("engram changes").startswith("4 changes in team, 2022-01-01 – 2023-01-01")
    assert out("engram forget").startswith("forgot (1 claims, 1 observations)")
