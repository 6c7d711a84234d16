"""The GraphQL documents the client sends, one named constant per operation.

Each asks for every field its record (`records`) holds; a mutation also asks for its
payload's `errors { code message field }`.
"""

from __future__ import annotations

ENTITY_FIELDS = """
fragment EntityFields on Entity {
  id key kind canonical name aliases mergedFrom recordedAt
}"""

EVIDENCE_FIELDS = """
fragment EvidenceFields on Evidence {
  kind authority recordedAt note observationId artifactId episodeId text locator observedAt
}"""

CLAIM_FIELDS = (
    """
fragment ClaimFields on Claim {
  id key revision type status predicate value text confidence importance privacy pinned
  reason actor validFrom validTo recordedAt supersededAt
  evidence { ...EvidenceFields }
  subject { ...EntityFields }
  object { ...EntityFields }
}"""
    + ENTITY_FIELDS
    + EVIDENCE_FIELDS
)

RELATION_FIELDS = """
fragment RelationFields on Relation {
  type validFrom validTo recordedAt claimId claimKey status confidence reason
  from { ...EntityFields }
  to { ...EntityFields }
}"""

SPACE_FIELDS = "id name description recordedAt"
EPISODE_FIELDS = "id title kind status participants startedAt endedAt recordedAt"
OBSERVATION_FIELDS = "id episodeId seq kind role content observedAt privacy recordedAt"
ERRORS = "errors { code message field }"

CREATE_SPACE = f"""
mutation CreateSpace($name: String!, $description: String!) {{
  createSpace(name: $name, description: $description) {{ space {{ {SPACE_FIELDS} }} {ERRORS} }}
}}"""

OPEN_EPISODE = f"""
mutation OpenEpisode($space: String!, $input: OpenEpisodeInput!) {{
  openEpisode(space: $space, input: $input) {{ episode {{ {EPISODE_FIELDS} }} {ERRORS} }}
}}"""

SEAL_EPISODE = f"""
mutation SealEpisode($space: String!, $input: SealEpisodeInput!) {{
  sealEpisode(space: $space, input: $input) {{ episode {{ {EPISODE_FIELDS} }} {ERRORS} }}
}}"""

RECORD_OBSERVATION = f"""
mutation RecordObservation($space: String!, $input: ObservationInput!) {{
  recordObservation(space: $space, input: $input) {{
    observation {{ {OBSERVATION_FIELDS} }} {ERRORS}
  }}
}}"""

REMEMBER = (
    f"""
mutation Remember($space: String!, $input: RememberInput!) {{
  remember(space: $space, input: $input) {{ claim {{ ...ClaimFields }} {ERRORS} }}
}}"""
    + CLAIM_FIELDS
)

REMEMBER_MANY = (
    f"""
mutation RememberMany($space: String!, $inputs: [RememberInput!]!) {{
  rememberMany(space: $space, inputs: $inputs) {{ claims {{ ...ClaimFields }} {ERRORS} }}
}}"""
    + CLAIM_FIELDS
)

LINK = (
    f"""
mutation Link($space: String!, $input: LinkInput!) {{
  link(space: $space, input: $input) {{ claim {{ ...ClaimFields }} {ERRORS} }}
}}"""
    + CLAIM_FIELDS
)

CORRECT = (
    f"""
mutation Correct($space: String!, $input: CorrectInput!) {{
  correct(space: $space, input: $input) {{ claim {{ ...ClaimFields }} {ERRORS} }}
}}"""
    + CLAIM_FIELDS
)

FORGET = f"""
mutation Forget($space: String!, $selector: SelectorInput!, $reason: String!,
                $idempotencyKey: String) {{
  forget(space: $space, selector: $selector, reason: $reason,
         idempotencyKey: $idempotencyKey) {{
    receipt {{
      tombstoneId watermark claims observations episodes artifacts entities madeInactive
      wholeSpace replayed
    }}
    {ERRORS}
  }}
}}"""

SPACES = f"query Spaces {{ spaces {{ {SPACE_FIELDS} }} }}"

VIEW_VARIABLES = "$asOf: DateTime, $knownAt: DateTime"
VIEW_ARGUMENTS = "asOf: $asOf, knownAt: $knownAt"

SEARCH = (
    f"""
query Search($space: String!, $query: String!, $types: [MemoryType!], $first: Int!,
             $includeHistory: Boolean!, {VIEW_VARIABLES}) {{
  search(space: $space, query: $query, types: $types, first: $first,
         includeHistory: $includeHistory, {VIEW_ARGUMENTS}) {{
    claim {{ ...ClaimFields }} score sources state
  }}
}}"""
    + CLAIM_FIELDS
)

RELATED = (
    f"""
query Related($space: String!, $entity: EntityRefInput!, $hops: Int!,
              $relationTypes: [String!], $direction: Direction!, $first: Int!,
              {VIEW_VARIABLES}) {{
  related(space: $space, entity: $entity, hops: $hops, relationTypes: $relationTypes,
          direction: $direction, first: $first, {VIEW_ARGUMENTS}) {{
    nodes {{ distance entity {{ ...EntityFields }} }}
    relations {{ ...RelationFields }}
    truncated
  }}
}}"""
    + RELATION_FIELDS
    + ENTITY_FIELDS
)

EXPLAIN_RELATION = (
    f"""
query ExplainRelation($space: String!, $from: EntityRefInput!, $to: EntityRefInput!,
                      $maxHops: Int!, $first: Int!, {VIEW_VARIABLES}) {{
  explainRelation(space: $space, from: $from, to: $to, maxHops: $maxHops, first: $first,
                  {VIEW_ARGUMENTS}) {{
    reason
    paths {{
      length
      steps {{
        direction
        relation {{ ...RelationFields }}
        from {{ ...EntityFields }}
        to {{ ...EntityFields }}
        claim {{ ...ClaimFields }}
        evidence {{ ...EvidenceFields }}
      }}
    }}
  }}
}}"""
    + RELATION_FIELDS
    + CLAIM_FIELDS
)

CONTEXT = f"""
query Context($space: String!, $budgetBytes: Int!, {VIEW_VARIABLES}) {{
  context(space: $space, budgetBytes: $budgetBytes, {VIEW_ARGUMENTS}) {{
    text bytes keys omitted
  }}
}}"""

CLAIMS = (
    f"""
query Claims($space: String!, $filter: ClaimFilterInput, $first: Int!, $after: String,
             {VIEW_VARIABLES}) {{
  claims(space: $space, filter: $filter, first: $first, after: $after, {VIEW_ARGUMENTS}) {{
    nodes {{ ...ClaimFields }} endCursor hasNextPage
  }}
}}"""
    + CLAIM_FIELDS
)

CLAIM_HISTORY = (
    """
query ClaimHistory($space: String!, $key: String!, $knownAt: DateTime) {
  claimHistory(space: $space, key: $key, knownAt: $knownAt) { ...ClaimFields }
}"""
    + CLAIM_FIELDS
)

ENTITY = (
    f"""
query Entity($space: String!, $id: ID, $key: String, $name: String, $kind: EntityKind,
             {VIEW_VARIABLES}) {{
  entity(space: $space, id: $id, key: $key, name: $name, kind: $kind, {VIEW_ARGUMENTS}) {{
    ...EntityFields
  }}
}}"""
    + ENTITY_FIELDS
)

MESSAGES = f"""
query Messages($space: String!, $query: String, $from: DateTime, $to: DateTime, $role: Role,
               $episode: ID, $first: Int!, {VIEW_VARIABLES}) {{
  messages(space: $space, query: $query, from: $from, to: $to, role: $role, episode: $episode,
           first: $first, {VIEW_ARGUMENTS}) {{
    score sources observation {{ {OBSERVATION_FIELDS} }}
  }}
}}"""
