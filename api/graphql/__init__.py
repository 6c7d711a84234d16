"""The GraphQL API (Strawberry): the schema's queries (`schema` and one module per larger query),
mutations, input and output types, error mapping and request limits. `schema.graphql` at the
root is this schema printed. Imports `graph.memory` and `graph.domain` only."""

# Registers the vocabulary's enums before any type of the package names one.
from api.graphql import enums as enums
