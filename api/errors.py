"""Typed errors in GraphQL results.

Mutations answer `errors { code message field }` in their payload; queries answer a GraphQL
error whose `extensions` carry the same `code` and `field`. Anything unexpected is masked
("Unexpected error.") — never a stack trace.

    mutation { createSpace(name: "Bad Name") { space { id } errors { code message field } } }
    # → {"errors": [{"code": "VALIDATION", "message": "space name …", "field": "name"}]}
"""

from __future__ import annotations

from enum import Enum

import strawberry
from graphql import GraphQLError

from graph import errors as domain


@strawberry.enum(description="Stable codes of expected failures; callers branch on these.")
class ErrorCode(Enum):
    NOT_FOUND = domain.ErrorCode.NOT_FOUND.value
    VALIDATION = domain.ErrorCode.VALIDATION.value
    REVISION_CONFLICT = domain.ErrorCode.REVISION_CONFLICT.value
    HISTORY_UNAVAILABLE = domain.ErrorCode.HISTORY_UNAVAILABLE.value
    FORBIDDEN = domain.ErrorCode.FORBIDDEN.value
    LEGAL_HOLD = domain.ErrorCode.LEGAL_HOLD.value
    FORGOTTEN = domain.ErrorCode.FORGOTTEN.value
    GATE_REFUSED = domain.ErrorCode.GATE_REFUSED.value
    AMBIGUOUS_SUBJECT = domain.ErrorCode.AMBIGUOUS_SUBJECT.value
    CONFLICT = domain.ErrorCode.CONFLICT.value


@strawberry.type(description="An expected failure: nothing was written.")
class UserError:
    code: ErrorCode
    message: str
    field: str | None = None


def user_error(failure: domain.EngramError) -> UserError:
    return UserError(
        code=ErrorCode(failure.code.value), message=failure.message, field=failure.field
    )


class EngramGraphQLError(GraphQLError):
    """A query's expected failure, with a stable code in `extensions`."""

    def __init__(self, failure: domain.EngramError) -> None:
        super().__init__(
            failure.message,
            extensions={"code": failure.code.value, "field": failure.field},
            original_error=failure,
        )


def should_mask(error: GraphQLError) -> bool:
    """Mask everything but Engram's typed errors and GraphQL's own validation errors."""
    original = error.original_error
    if original is None:
        return False
    return not isinstance(original, domain.EngramError | EngramGraphQLError)
