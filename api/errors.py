"""Typed errors in GraphQL results: `errors { code message field }` on every mutation payload.

mutation { createSpace(name: "Bad Name") { space { id } errors { code message field } } }
# → {"errors": [{"code": "VALIDATION", "message": "space name …", "field": "name"}]}
"""

from __future__ import annotations

from enum import Enum

import strawberry

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
