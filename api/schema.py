"""The GraphQL schema: queries and mutations that call graph/ commands and reads.

`schema.graphql` at the repository root is `print_schema(schema)`; `engram schema --write`
regenerates it and a test fails when the two drift.
"""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from api.context import EngramContext
from api.errors import user_error
from api.types import CreateSpacePayload, Space
from graph import spaces
from graph.errors import EngramError

EngramInfo = Info[EngramContext, None]


@strawberry.type
class Query:
    @strawberry.field(description="The memory spaces, by name.")
    async def spaces(self, info: EngramInfo) -> list[Space]:
        return [Space.of(space) for space in await spaces.list_spaces(info.context.graph)]


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Create a memory space (name: 1–63 of a-z 0-9 _ -).")
    async def create_space(
        self, info: EngramInfo, name: str, description: str = ""
    ) -> CreateSpacePayload:
        try:
            space = await spaces.create_space(
                info.context.graph, name, description, actor=info.context.actor
            )
        except EngramError as failure:
            return CreateSpacePayload(errors=[user_error(failure)])
        return CreateSpacePayload(space=Space.of(space))


schema = strawberry.Schema(query=Query, mutation=Mutation)


def sdl() -> str:
    """The schema in SDL, as committed in schema.graphql."""
    return schema.as_str() + "\n"
