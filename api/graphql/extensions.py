"""QueryCounter: counts the Cypher queries one GraphQL request runs and reports the number in
the response's `extensions.queries` — the N+1 check the tests rely on, visible to any client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from strawberry.extensions import SchemaExtension

from graph.memory import query_count


class QueryCounter(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        self._counter = [0]
        token = query_count.set(self._counter)
        try:
            yield
        finally:
            query_count.reset(token)

    def get_results(self) -> dict[str, Any]:
        return {"queries": self._counter[0]}
