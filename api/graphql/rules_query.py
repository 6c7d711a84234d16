"""The `predicateRules` query: how each predicate of a space behaves — the ONE defaults, and the
rules it declared (`declarePredicate(s)`) for predicates the key can read facts of (a key with
the rules grant: all of them)."""

from __future__ import annotations

import strawberry

from api.graphql.payloads import PredicateRule
from api.graphql.types import EngramInfo


async def space_rules(info: EngramInfo, space: str) -> list[PredicateRule] | None:
    view = await info.context.view(space, None, None)
    every = info.context.principal.has_rules(space)
    rules = await info.context.memory.reads.predicate_rules(view, every=every)
    return [PredicateRule.of(rule) for rule in rules]


rules_field = strawberry.field(
    resolver=space_rules,
    description="The space's predicate rules: the ONE defaults, and those it declared for "
    "predicates this key can read facts of (a key with the rules grant: all).",
)
