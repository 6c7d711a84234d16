"""Every face takes the same inputs: the GraphQL input types and the Python client's items have
exactly the fields of graph/'s input models (`remember`'s `RememberInput`, the references in
`graph.commands.references`, `correct`'s `CorrectInput`), so a field added to one cannot be
missing from another. Pure: no Neo4j."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import BaseModel

from api.client.request_inputs import EntityRef as ClientEntityRef
from api.client.request_inputs import EvidenceRef as ClientEvidenceRef
from api.client.request_inputs import MemoryItem
from api.graphql import input_types as gql
from graph.memory import CorrectInput, EntityRef, EvidenceRef, RememberInput

pytestmark = pytest.mark.fast


def model_fields(model: type[BaseModel]) -> set[str]:
    return set(model.model_fields)


def dataclass_fields(kind: type) -> set[str]:
    return {f.name for f in dataclasses.fields(kind)}


@pytest.mark.parametrize(
    ("model", "graphql", "client"),
    [
        (RememberInput, gql.RememberInput, MemoryItem),
        (EntityRef, gql.EntityRefInput, ClientEntityRef),
        (EvidenceRef, gql.EvidenceInput, ClientEvidenceRef),
        (CorrectInput, gql.CorrectInput, None),
    ],
)
def test_graphql_and_the_client_take_the_fields_of_the_input_model(
    model: type[BaseModel], graphql: type, client: type | None
) -> None:
    assert dataclass_fields(graphql) == model_fields(model)
    if client is not None:
        assert dataclass_fields(client) == model_fields(model)
