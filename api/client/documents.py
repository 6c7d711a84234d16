"""The GraphQL documents the client sends, one named constant per operation.

Each is built from its operation's variables and the record it answers with: it asks for every
field of that record (`wire.selection`), and a mutation also for its payload's
`errors { code message field }`.
"""

from __future__ import annotations

import re

from api.client.records import (
    Claim,
    ClaimPage,
    ContextSnapshot,
    Entity,
    Episode,
    Explanation,
    ForgetReceipt,
    MessageHit,
    Observation,
    Related,
    SearchHit,
    Space,
)
from api.client.wire import selection

ERRORS = "errors { code message field }"
VIEW = "$asOf: DateTime, $knownAt: DateTime"


def _operation(kind: str, name: str, variables: str, answer: str) -> str:
    """`kind Name(variables) { name(each variable as its argument) answer }`."""
    field = name[0].lower() + name[1:]
    arguments = ", ".join(f"{v}: ${v}" for v in re.findall(r"\$(\w+):", variables))
    if variables:
        name, field = f"{name}({variables})", f"{field}({arguments})"
    return f"{kind} {name} {{\n  {field} {answer}\n}}"


def mutation(name: str, variables: str, part: str, record: type) -> str:
    return _operation("mutation", name, variables, f"{{ {part} {selection(record)} {ERRORS} }}")


def query(name: str, variables: str, record: type) -> str:
    return _operation("query", name, variables, selection(record))


CREATE_SPACE = mutation("CreateSpace", "$name: String!, $description: String!", "space", Space)
OPEN_EPISODE = mutation(
    "OpenEpisode", "$space: String!, $input: OpenEpisodeInput!", "episode", Episode
)
SEAL_EPISODE = mutation(
    "SealEpisode", "$space: String!, $input: SealEpisodeInput!", "episode", Episode
)
RECORD_OBSERVATION = mutation(
    "RecordObservation", "$space: String!, $input: ObservationInput!", "observation", Observation
)
REMEMBER = mutation("Remember", "$space: String!, $input: RememberInput!", "claim", Claim)
REMEMBER_MANY = mutation(
    "RememberMany", "$space: String!, $inputs: [RememberInput!]!", "claims", Claim
)
LINK = mutation("Link", "$space: String!, $input: LinkInput!", "claim", Claim)
CORRECT = mutation("Correct", "$space: String!, $input: CorrectInput!", "claim", Claim)
FORGET = mutation(
    "Forget",
    "$space: String!, $selector: SelectorInput!, $reason: String!, $idempotencyKey: String",
    "receipt",
    ForgetReceipt,
)

SPACES = query("Spaces", "", Space)
SEARCH = query(
    "Search",
    "$space: String!, $query: String!, $types: [MemoryType!], $first: Int!, "
    f"$includeHistory: Boolean!, {VIEW}",
    SearchHit,
)
RELATED = query(
    "Related",
    "$space: String!, $entity: EntityRefInput!, $hops: Int!, $relationTypes: [String!], "
    f"$direction: Direction!, $first: Int!, {VIEW}",
    Related,
)
EXPLAIN_RELATION = query(
    "ExplainRelation",
    f"$space: String!, $from: EntityRefInput!, $to: EntityRefInput!, $maxHops: Int!, "
    f"$first: Int!, {VIEW}",
    Explanation,
)
CONTEXT = query("Context", f"$space: String!, $budgetBytes: Int!, {VIEW}", ContextSnapshot)
CLAIMS = query(
    "Claims",
    f"$space: String!, $filter: ClaimFilterInput, $first: Int!, $after: String, {VIEW}",
    ClaimPage,
)
CLAIM_HISTORY = query("ClaimHistory", "$space: String!, $key: String!, $knownAt: DateTime", Claim)
ENTITY = query(
    "Entity",
    f"$space: String!, $id: ID, $key: String, $name: String, $kind: EntityKind, {VIEW}",
    Entity,
)
MESSAGES = query(
    "Messages",
    "$space: String!, $query: String, $from: DateTime, $to: DateTime, $role: Role, "
    f"$episode: ID, $first: Int!, {VIEW}",
    MessageHit,
)
