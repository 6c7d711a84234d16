"""The administrative nodes have one owner each, and nothing else writes them.

API keys and the migration ledger are neomodel's, in `graph/commands/apikeys.py` and
`graph/store/migrate.py`; spaces and legal holds stay in named Cypher (their module docstrings
say why), written only by the modules named here. The check reads every Cypher constant in graph/
for CREATE, MERGE, SET, REMOVE and DELETE on those labels, and every import of neomodel.
(A restore is not in it: it fills an empty database with a backup's nodes whatever their labels.)
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import graph

pytestmark = pytest.mark.fast

ADMIN_LABELS = frozenset({"ApiKey", "Space", "LegalHold", "Migration"})

WRITERS: dict[str, set[str]] = {
    # LOCK_KEY: the write lock neomodel has no call for, run through neomodel's own transaction.
    "ApiKey": {"graph.commands.apikeys"},
    "Space": {
        "graph.commands.spaces",  # create
        "graph.erasure.engine",  # forget: the salt, closing the space
        "graph.commands.apikeys",  # after a forget's commit: its grants withdrawn from the keys
        "graph.store.clock",  # every write: the space's recorded-time clock (clockNow)
        "graph.commands.predicate_rules",  # declarePredicate: the space's ONE/MANY lists
    },
    "LegalHold": {
        "graph.erasure.holds",  # set, release
        "graph.erasure.purge_outbox",  # a forgotten space's sweep takes every node of it
    },
    "Migration": set(),  # neomodel's MigrationRecord; its constraint is ENSURE_LEDGER (schema)
}

NEOMODEL_USERS = {"graph.commands.apikeys", "graph.store.migrate", "graph.store.neomodel_bridge"}

_CLAUSE = re.compile(
    r"\b(OPTIONAL\s+MATCH|ON\s+CREATE|ON\s+MATCH|DETACH\s+DELETE|MATCH|MERGE|CREATE|SET|REMOVE"
    r"|DELETE|WITH|RETURN|WHERE|UNWIND|CALL|ORDER\s+BY|LIMIT|FOREACH|UNION|YIELD)\b"
)
_NODE = re.compile(r"\((\w*)((?::\w+)+)")
_TARGET = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:\.\w|:\w|\+?=)")
_DELETED = re.compile(r"(?<![$\w.])([A-Za-z_]\w*)\b")


def written_labels(query: str) -> set[str]:
    """The labels of the nodes `query` creates, merges, sets, removes or deletes."""
    bound: dict[str, set[str]] = {}
    for var, labels in _NODE.findall(query):
        if var:
            bound.setdefault(var, set()).update(labels.split(":")[1:])
    pieces = _CLAUSE.split(query)
    written: set[str] = set()
    for keyword, body in zip(pieces[1::2], pieces[2::2], strict=True):
        clause = " ".join(keyword.split())
        if clause in ("CREATE", "MERGE") and not re.match(r"\s*(CONSTRAINT|INDEX)\b", body):
            for _, labels in _NODE.findall(body):
                written.update(labels.split(":")[1:])
        elif clause in ("SET", "REMOVE"):
            for item in _top_level_items(body):
                target = _TARGET.match(item)
                if target is not None:
                    written |= bound.get(target[1], set())
        elif clause in ("DELETE", "DETACH DELETE"):
            for var in _DELETED.findall(body):
                written |= bound.get(var, set())
    return written


def _top_level_items(body: str) -> list[str]:
    """`body` split on the commas outside brackets (`SET a.x = f(b, c), d.y = 1`)."""
    items, depth, start = [], 0, 0
    for at, char in enumerate(body):
        depth = max(0, depth + (char in "([{") - (char in ")]}"))
        if char == "," and depth == 0:
            items.append(body[start:at])
            start = at + 1
    return [*items, body[start:]]


def _modules() -> dict[str, Path]:
    root = Path(graph.__file__).parent
    return {
        ".".join(path.relative_to(root.parent).with_suffix("").parts).removesuffix(
            ".__init__"
        ): path
        for path in sorted(root.rglob("*.py"))
    }


def _cypher_constants(name: str, path: Path) -> dict[str, str]:
    """The constants `name` defines itself (not those it imports), strings or tuples of them."""
    tree = ast.parse(path.read_text())
    defined = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and target.id.lstrip("_").isupper()
    }
    module = importlib.import_module(name)
    found: dict[str, str] = {}
    for constant in defined:
        value = getattr(module, constant)
        if isinstance(value, str):
            found[constant] = value
        elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            found[constant] = "\n".join(value)
    return found


def test_the_write_detector_reads_cypher_clauses() -> None:
    assert written_labels("MATCH (k:ApiKey {keyId: $id}) SET k.grants = $g") == {"ApiKey"}
    assert written_labels("MATCH (s:Space) RETURN s.name AS name") == set()
    assert written_labels("MATCH (s:Space), (c:Claim) SET c.x = s.name") == {"Claim"}
    assert written_labels("MATCH (n:LegalHold) CALL (n) { DETACH DELETE n }") == {"LegalHold"}
    assert written_labels("MERGE (m:Migration {v: 1}) ON CREATE SET m.at = datetime()") == {
        "Migration"
    }
    assert written_labels("CREATE (s)-[:HAS_AUDIT]->(:AuditEvent {id: $id})") == {"AuditEvent"}
    assert (
        written_labels("CREATE CONSTRAINT c IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE")
        == set()
    )


def test_only_their_owners_write_the_administrative_labels() -> None:
    writers: dict[str, set[str]] = {label: set() for label in ADMIN_LABELS}
    for name, path in _modules().items():
        for query in _cypher_constants(name, path).values():
            for label in written_labels(query) & ADMIN_LABELS:
                writers[label].add(name)
    assert writers == WRITERS


def test_only_the_owners_and_the_bridge_use_neomodel() -> None:
    users = set()
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("neomodel"):
                users.add(name)
            if isinstance(node, ast.Import) and any(
                alias.name.startswith("neomodel") for alias in node.names
            ):
                users.add(name)
    assert users == NEOMODEL_USERS
