"""The schema's extensions: `QueryCounter` counts the Cypher queries one GraphQL request runs and
reports the number in the response's `extensions.queries` — the N+1 check the tests rely on,
visible to any client; `ErrorsInPayload` answers a mutation's expected failure in its payload."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import strawberry
from strawberry.extensions import FieldExtension, SchemaExtension
from strawberry.extensions.field_extension import AsyncExtensionResolver
from strawberry.types import Info
from strawberry.types.field import StrawberryField

from api.graphql.error_types import user_error
from graph.domain.errors import EngramError
from graph.runtime import query_count


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


class ErrorsInPayload(FieldExtension):
    """A mutation's expected failure (an `EngramError`) becomes `errors { code message field }`
    in its own payload type, with nothing else set — one extension instead of a try/except in
    every mutation. Anything else propagates (and is masked as an internal error)."""

    def apply(self, field: StrawberryField) -> None:
        self.field = field

    async def resolve_async(
        self, next_: AsyncExtensionResolver, source: Any, info: Info, **kwargs: Any
    ) -> Any:
        try:
            return await next_(source, info, **kwargs)
        except EngramError as failure:
            payload: Any = self.field.type
            if not isinstance(payload, type):
                raise TypeError(f"{self.field.name} does not answer a payload type") from failure
            return payload(errors=[user_error(failure)])


def mutation(description: str) -> Any:
    """`@strawberry.mutation` with its expected failures answered in its payload."""
    return strawberry.mutation(description=description, extensions=[ErrorsInPayload()])
