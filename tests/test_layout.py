"""The house keeps its layers: graph/ is the domain and its storage behind one door
(`graph.memory`) with the machinery to run it beside that door (`graph.runtime`: settings, the
Neo4j target, migrations); api/ holds the doors (GraphQL, the command line, the client, the web
pages) and enters graph/ only through those two modules and the domain's records, as the
benches do; no import cycles; small modules, no two alike.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 400


def _modules(package: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(module: str, path: Path, *, top_level_only: bool) -> Iterator[str]:
    """The modules `module` imports (relative imports resolved); with `top_level_only`, only
    those run when it is loaded (not inside functions or `if TYPE_CHECKING`)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _internal(name: str, known: dict[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


DOOR = ("graph.memory", "graph.runtime", "graph.domain")
"""What an outside caller of graph/ may import: the door, the machinery beside it, the domain."""


def _through_the_door(target: str) -> bool:
    return target == "graph" or any(target == d or target.startswith(f"{d}.") for d in DOOR)


def _below_the_door(package: str) -> dict[str, list[str]]:
    """Per module of `package`, the modules of graph/ below the door it imports (anywhere)."""
    graph_modules = _modules("graph")
    below: dict[str, list[str]] = {}
    for module, path in _modules(package).items():
        targets = {
            target
            for name in _imports(module, path, top_level_only=False)
            if (target := _internal(name, graph_modules)) is not None
        }
        if found := sorted(t for t in targets if not _through_the_door(t)):
            below[module] = found
    return below


def test_api_enters_graph_only_through_the_memory_door_and_the_domain_records() -> None:
    assert _below_the_door("api") == {}


def test_the_door_check_tells_a_role_module_from_the_door_itself() -> None:
    assert _through_the_door("graph.memory")
    assert _through_the_door("graph.domain.model")
    assert not _through_the_door("graph.memory_reads")
    assert not _through_the_door("graph.reads.search")


def test_the_benches_enter_graph_only_through_the_memory_door_and_the_domain_records() -> None:
    """A bench is an outside caller like api/: its raw baselines (the one-query floor, a raw
    UNWIND … CREATE) run their Cypher on the memory's own connection, `memory.graph`."""
    graph_modules = _modules("graph")
    offending = sorted(
        f"{module} imports {target}"
        for module, path in _modules("bench").items()
        for name in _imports(module, path, top_level_only=False)
        if (target := _internal(name, graph_modules)) is not None
        and target not in ("graph", "graph.memory", "graph.runtime", "graph.domain")
        and not target.startswith("graph.domain.")
    )
    assert offending == []


BELOW_THE_DOOR_ON_PURPOSE = {
    "tests.test_api_abuse": "a resolver's read made to fail unexpectedly (graph.reads.listing)",
    "tests.test_api_limits": "a resolver's read made to fail unexpectedly (graph.reads.listing)",
    "tests.test_artifacts": "the blob store's own rules: URL normalising, reading a blob back",
    "tests.test_backup": "backups at a watermark and from a second Neo4j, beyond Admin.backup",
    "tests.test_backup_watermark": "a backup's watermark against the space clocks' barrier",
    "tests.test_entity_names": "a data migration and the name lookup it builds, step by step",
    "tests.test_forget_properties": "retention at a chosen `now`, which the door does not take",
    "tests.test_local_neo4j": "how the local Neo4j is launched (its command line)",
    "tests.test_meaning": "the embedding outbox and a backup of vectors, beyond the door",
    "tests.test_meaning_spaces": "each space's own vector index and the purge that drops it",
    "tests.test_migrations": "the migration runner itself",
    "tests.test_neomodel_owned": "what neomodel owns and how the driver is shared with it",
    "tests.test_resurrection": "a forget inside another command's transaction; restores",
    "tests.test_retention": "retention at a chosen `now`, which the door does not take",
    "tests.test_scale_runner": "the bench's floor says the same as the visibility predicate",
    "tests.test_search_words": "pure: the words of a query and their full-text form",
    "tests.test_space_clocks": "a space's clock held by a transaction of the test's own",
    "tests.test_told_fact_rules": "pure: the rules of told facts (planning, folding, time cuts)",
}
"""The test modules that reach below the door, each for a reason the door cannot serve; every
other test goes through `graph.memory`, `graph.runtime`, the domain, or a face in api/."""


def test_tests_reach_graph_through_the_door_but_for_the_few_named_with_their_reasons() -> None:
    graph_modules = _modules("graph")
    below = {
        module
        for module, path in _modules("tests").items()
        if path.name.startswith("test_")
        for name in _imports(module, path, top_level_only=False)
        if (target := _internal(name, graph_modules)) is not None and not _through_the_door(target)
    }
    assert below == set(BELOW_THE_DOOR_ON_PURPOSE)


def test_the_memory_door_exports_the_domain_and_the_runtime_the_machinery_not_both() -> None:
    import graph.memory
    import graph.runtime

    assert set(graph.memory.__all__) & set(graph.runtime.__all__) == set()
    assert {"Memory", "View", "Space"} <= set(graph.memory.__all__)
    assert {"Settings", "Neo4jTarget", "LocalNeo4j", "Migration"} <= set(graph.runtime.__all__)


def test_graph_imports_nothing_from_api() -> None:
    offending = sorted(
        f"{module} imports {name}"
        for module, path in _modules("graph").items()
        for name in _imports(module, path, top_level_only=False)
        if name == "api" or name.startswith("api.")
    )
    assert offending == []


VOCABULARY = "graph.domain.vocabulary"
"""The server's one module the client imports: the enums every face speaks."""


def test_the_client_library_imports_nothing_of_the_server_but_the_vocabulary() -> None:
    client = {m: p for m, p in _modules("api").items() if m.startswith("api.client")}
    offending = sorted(
        f"{module} imports {name}"
        for module, path in client.items()
        for name in _imports(module, path, top_level_only=False)
        if (
            name.split(".")[0] == "graph"
            and name != "graph.domain"
            and _internal(name, {VOCABULARY: ROOT}) is None
        )
        or (name.startswith("api.") and not name.startswith("api.client"))
    )
    assert offending == []


def test_the_vocabulary_imports_the_standard_library_only() -> None:
    path = ROOT / "graph" / "domain" / "vocabulary.py"
    imported = {name.split(".")[0] for name in _imports(VOCABULARY, path, top_level_only=False)}
    assert imported <= {"__future__", "enum"}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _module_edges() -> dict[str, set[str]]:
    """Every import between modules of graph/ and api/ — at module level, inside functions and
    under `if TYPE_CHECKING` alike: a loop any of them closes is a loop."""
    known = {**_modules("graph"), **_modules("api")}
    return {
        module: {
            target
            for name in _imports(module, path, top_level_only=False)
            if (target := _internal(name, known)) is not None
            and target != module
            and not module.startswith(f"{target}.")  # a package's own __init__ is not a cycle
        }
        for module, path in known.items()
    }


def _floors() -> dict[str, set[str]]:
    """The packages of graph/ and api/ (`graph.reads`, `api.graphql`, …) and those each imports."""
    edges: dict[str, set[str]] = {}
    for module, targets in _module_edges().items():
        floor = ".".join(module.split(".")[:2])
        edges.setdefault(floor, set())
        edges[floor] |= {".".join(t.split(".")[:2]) for t in targets} - {floor}
    return edges


def test_no_module_of_graph_or_api_takes_part_in_an_import_cycle() -> None:
    assert _cycles(_module_edges()) == []


def test_the_packages_stack_in_floors_no_import_goes_back_down_a_floor() -> None:
    """The packages' imports form no loop, so they stack in an order derived here, not kept by
    hand: each package imports only packages on floors below it."""
    edges = _floors()
    assert _cycles(edges) == []
    floors: list[set[str]] = []
    placed: set[str] = set()
    while len(placed) < len(edges):
        floor = {p for p, below in edges.items() if p not in placed and below <= placed}
        floors.append(floor)
        placed |= floor
    assert "graph.domain" in floors[0], "the domain imports no other package"
    door = next(i for i, floor in enumerate(floors) if "graph.memory" in floor)
    graph_floors = [i for i, floor in enumerate(floors) for p in floor if p.startswith("graph.")]
    assert max(graph_floors) == door, "the memory door stands on every other package of graph/"


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_of_graph_and_api_stays_under_four_hundred_lines() -> None:
    long = sorted(
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in [*_modules("graph").values(), *_modules("api").values()]
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    )
    assert long == []


def test_no_two_modules_in_the_project_share_a_file_name() -> None:
    seen: dict[str, list[str]] = {}
    for package in ("graph", "api", "tests", "bench", "migrations"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name != "__init__.py":
                seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_graph_is_grouped_into_packages_that_say_what_they_hold() -> None:
    top = sorted(p.name for p in (ROOT / "graph").iterdir() if not p.name.startswith("__"))
    assert top == [
        "commands",
        "domain",
        "erasure",
        "jobs",
        "meaning",
        "memory.py",
        "memory_admin.py",
        "memory_forgetting.py",
        "memory_reads.py",
        "memory_writes.py",
        "reads",
        "runtime.py",
        "store",
    ]
