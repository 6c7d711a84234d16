"""Typed errors in GraphQL results.

Mutations answer `errors { code message field }` in their payload; queries answer a GraphQL
error whose `extensions` carry the same `code` and `field`. A request GraphQL itself refuses
(syntax, validation, a variable that cannot be coerced) keeps graphql-core's message and gets
the code `VALIDATION`. Anything unexpected is masked ("Unexpected error.") — never a stack trace.
Expected failures are logged as one line each; only unexpected ones carry a traceback.

    mutation { createSpace(name: "Bad Name") { space { id } errors { code message field } } }
    # → {"errors": [{"code": "VALIDATION", "message": "space name …", "field": "name"}]}
"""

from __future__ import annotations

import logging

import strawberry
from graphql import GraphQLError
from strawberry.types import ExecutionContext

from graph.domain import errors as domain
from graph.domain.vocabulary import ErrorCode
from graph.runtime import UNAVAILABLE

log = logging.getLogger("engram.graphql")


@strawberry.type(description="An expected failure: nothing was written.")
class UserError:
    code: ErrorCode
    message: str
    field: str | None = None


def user_error(failure: domain.EngramError) -> UserError:
    return UserError(code=failure.code, message=failure.message, field=failure.field)


def should_mask(error: GraphQLError) -> bool:
    """Mask everything but Engram's typed errors and GraphQL's own errors.

    A `GraphQLError` as the original is a message written for the client (graphql-core's
    "Int cannot represent non 32-bit signed integer value", a scalar's coercion failure);
    anything else (a RuntimeError, a driver failure) may carry internals and is masked."""
    original = error.original_error
    if original is None:
        return False
    return not isinstance(original, domain.EngramError | GraphQLError)


class EngramSchema(strawberry.Schema):
    """Strawberry's schema with Engram's error reporting.

    A resolver raises the domain's `EngramError` as it is: here its code and field go into the
    error's `extensions`, one place for every query field. Strawberry logs every error with its
    traceback; a `NOT_FOUND` or a bad variable is an answer, not a fault, and one line is all an
    operator needs. Neo4j being unavailable is noted on the request, so the HTTP view answers 503
    instead of a masked error."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        for error in errors:
            original = error.original_error
            where = ".".join(map(str, error.path)) if error.path else "request"
            if isinstance(original, UNAVAILABLE):
                if not _note_unavailable(execution_context, original):  # else logged with the 503
                    log.warning("Neo4j unavailable at %s: %s", where, type(original).__name__)
            elif should_mask(error):
                log.error("unexpected failure at %s", where, exc_info=original)
            else:
                if isinstance(original, domain.EngramError):
                    error.extensions = {"code": original.code.value, "field": original.field}
                elif error.path is None:
                    # A request refused before any resolver ran: the caller's to fix.
                    error.extensions = {
                        "code": ErrorCode.VALIDATION.value,
                        **(error.extensions or {}),
                    }
                code = (error.extensions or {}).get("code")
                if code is None:  # graphql-core refusing a result (e.g. null for non-null): ours
                    log.error("GraphQL error at %s: %s", where, error.message)
                else:
                    log.info("%s at %s: %s", code, where, error.message)


def _note_unavailable(context: ExecutionContext | None, failure: Exception) -> bool:
    """Leave `failure` on the HTTP request, for the view to answer 503; False if none."""
    request = getattr(context.context, "request", None) if context is not None else None
    if request is None:
        return False
    request.state.neo4j_unavailable = failure
    return True


def neo4j_unavailable(request: object) -> Exception | None:
    """The Neo4j failure noted on `request` while its operation ran, if any."""
    state = getattr(request, "state", None)
    failure: Exception | None = getattr(state, "neo4j_unavailable", None)
    return failure
