"""A space's predicate rules: which predicates hold one current value (`ONE`) and which many.

    await declare_predicates(graph, "alice", [("OWNS", Cardinality.MANY)], actor=admin)
    rules = await predicate_rules(graph, view)

Rules live on the space node (`onePredicates`, `manyPredicates`): space-wide, read by every
writer of it, whatever its tier — so declaring one is an administrative act (a key with the
rules grant, `Actor.check_rules`). A rule decides the keys of facts (`graph.domain.cardinality`):
declaring one for a predicate that has facts keyed the other way re-keys them, in the same
transaction, as new revisions (`graph.commands.rekeying`), so the same facts give the same
timeline whenever the rule was declared. A reader is shown the defaults and the rules of
predicates it can read facts of; a rules key, every rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

from graph.commands.audit import AuditLog
from graph.commands.rekeying import rekey_facts
from graph.commands.writing import WriteContext, run_command
from graph.domain import memory_types as mt
from graph.domain.actor import Actor
from graph.domain.cardinality import SINGLE_VALUED, default_cardinality
from graph.domain.errors import ValidationFailed
from graph.domain.vocabulary import Cardinality
from graph.reads.visibility import View
from graph.store.db import Graph

RULES_OF_SPACE: LiteralString = """
MATCH (s:Space {id: $spaceId})
RETURN coalesce(s.onePredicates, []) AS one, coalesce(s.manyPredicates, []) AS many
"""

# The declared predicates the reader has a fact of, at its tier (not forgotten).
PREDICATES_READ: LiteralString = """
UNWIND $predicates AS predicate
CALL (predicate) {
  MATCH (c:Claim {spaceId: $spaceId, type: 'fact', predicate: predicate})
  WHERE c.privacy <= $maxPrivacy AND c.erasedAt IS NULL AND c.recordedAt <= $knownAt
  RETURN c LIMIT 1
}
RETURN predicate
"""

DECLARE_RULE: LiteralString = """
MATCH (s:Space {id: $spaceId})
WITH s,
     [p IN coalesce(s.onePredicates, []) WHERE p <> $predicate] AS one,
     [p IN coalesce(s.manyPredicates, []) WHERE p <> $predicate] AS many
SET s.onePredicates = CASE WHEN $cardinality = 'one' THEN one + [$predicate] ELSE one END,
    s.manyPredicates = CASE WHEN $cardinality = 'many' THEN many + [$predicate] ELSE many END
"""


@dataclass(frozen=True)
class PredicateRule:
    predicate: str
    cardinality: Cardinality
    declared: bool
    """Declared by the space; otherwise Engram's default."""


@dataclass(frozen=True)
class PredicateRules:
    """The rules a space declared, and the defaults for the rest."""

    declared: dict[str, Cardinality]

    def of(self, predicate: str, *, literal: bool, given: Cardinality | None = None) -> Cardinality:
        """The rule a fact is written under: the one the write gives (which must agree with a
        declared rule), the declared one, or the default."""
        declared = self.declared.get(predicate)
        if given is not None and declared is not None and given is not declared:
            raise ValidationFailed(
                f"predicate {predicate} is declared {declared.name} in this space, so a write "
                f"cannot use {given.name} (declarePredicate changes the rule)",
                field="cardinality",
            )
        return given or declared or default_cardinality(predicate, literal=literal)

    def listing(self) -> list[PredicateRule]:
        """Declared rules and the defaults not overridden, by predicate."""
        rules = {p: PredicateRule(p, c, True) for p, c in self.declared.items()}
        for predicate in SINGLE_VALUED - rules.keys():
            rules[predicate] = PredicateRule(predicate, Cardinality.ONE, False)
        return [rules[p] for p in sorted(rules)]


def declared_rules(ctx: WriteContext) -> PredicateRules:
    """The writer's space's rules as its tick read them."""
    if ctx.declared_predicates is None:
        raise ValueError("the tick did not read the space's rules")
    one, many = ctx.declared_predicates
    return rules_of({"one": one, "many": many})


async def load_rules(ctx: WriteContext) -> PredicateRules:
    """The writer's space's rules: as its tick read them, else read now."""
    if ctx.declared_predicates is not None:
        one, many = ctx.declared_predicates
        return rules_of({"one": one, "many": many})
    [row] = await ctx.run(RULES_OF_SPACE)
    return rules_of(row)


def rules_of(row: dict[str, Any]) -> PredicateRules:
    """The rules from a row of `RULES_OF_SPACE` (its `one` and `many`)."""
    declared = {p: Cardinality.ONE for p in row["one"]} | {p: Cardinality.MANY for p in row["many"]}
    return PredicateRules(declared)


async def declare_predicates(
    graph: Graph, space: str, rules: Sequence[tuple[str, Cardinality]], *, actor: Actor
) -> list[PredicateRule]:
    """Declare each `(predicate, cardinality)` in `space` for the facts written from now on, in
    one transaction (all or none; a predicate given twice takes its last rule)."""
    if not rules:
        raise ValidationFailed("give at least one rule", field="rules")
    for index, (predicate, _) in enumerate(rules):
        if not mt.is_predicate(predicate):
            raise ValidationFailed(
                f"predicate {predicate!r} must be UPPER_SNAKE_CASE (≤ 64) and not one of "
                "Engram's own relationship types",
                field=f"rules[{index}].predicate" if len(rules) > 1 else "predicate",
            )

    async def work(ctx: WriteContext) -> list[PredicateRule]:
        audit = AuditLog()
        for predicate, cardinality in rules:
            await ctx.run(DECLARE_RULE, predicate=predicate, cardinality=cardinality.value)
            restated = await rekey_facts(ctx, predicate, cardinality)
            detail = f"{predicate}={cardinality.value}"
            audit.add("declarePredicate", [], detail=f"{detail}, {restated} facts re-keyed")
        await audit.write(ctx)
        return [PredicateRule(predicate, cardinality, True) for predicate, cardinality in rules]

    return await run_command(graph, space, actor, work, needs=Actor.check_rules)


async def predicate_rules(graph: Graph, view: View, *, every: bool = False) -> list[PredicateRule]:
    """The defaults, and the rules the view's space declared for predicates the view has a
    fact of (`every`: all the declared ones)."""
    rows = await graph.read(RULES_OF_SPACE, spaceId=view.space_id)
    rules = rules_of(rows[0]) if rows else PredicateRules({})
    if not every and rules.declared:
        read = await graph.read(PREDICATES_READ, **view.params(), predicates=sorted(rules.declared))
        shown = {row["predicate"] for row in read}
        rules = PredicateRules({p: c for p, c in rules.declared.items() if p in shown})
    return rules.listing()
