"""The `predicateRules` query: how each predicate of a space behaves — the rules it declared
(`declarePredicate(s)`) and the ONE defaults — as any key that may read the space sees them."""

from __future__ import annotations

import strawberry

from api.graphql.error_types import EngramGraphQLError
from api.graphql.payloads import PredicateRule
from api.graphql.types import EngramInfo
from graph.domain.errors import EngramError


async def space_rules(info: EngramInfo, space: str) -> list[PredicateRule] | None:
    try:
        view = await info.context.view(space, None, None)
        rules = await info.context.memory.predicate_rules(view)
    except EngramError as failure:
        raise EngramGraphQLError(failure) from failure
    return [PredicateRule.of(rule) for rule in rules]


rules_field = strawberry.field(
    resolver=space_rules,
    description="The space's predicate rules: those it declared and the ONE defaults.",
)
