"""Typed exceptions for every failure the API reports, carrying its stable code.

A mutation's `errors { code message field }` and a query's GraphQL error with `extensions.code`
both raise the exception of that code (`NotFoundError` for `NOT_FOUND`, …), its `field` set when
the API names one, and `errors` listing every error the answer held. What the API answers before
GraphQL runs has no code in its body; the client gives it one of its own:

| HTTP answer                          | exception               | code              |
|--------------------------------------|-------------------------|-------------------|
| 401 (no key, or a bad/revoked key)   | `UnauthenticatedError`  | `UNAUTHENTICATED` |
| 413 (body over the server's limit)   | `RequestTooLargeError`  | `TOO_LARGE`       |
| 503 (Neo4j down, or no slot free)    | `UnavailableError`      | `UNAVAILABLE`     |
| 504 (over the request timeout)       | `RequestTimeoutError`   | `TIMEOUT`         |
| no answer at all (connection failed) | `UnavailableError`      | `UNAVAILABLE`     |
| anything else, "Unexpected error."   | `UnexpectedError`       | `UNEXPECTED`      |

    try:
        engram.correct("alice", claim.id, CorrectionKind.RETRACT, reason="wrong",
                       evidence=[said.id], expected_revision=1)
    except RevisionConflictError as stale:
        stale.code, stale.field      # ('REVISION_CONFLICT', 'expectedRevision')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class ErrorDetail:
    """One error as the API reported it."""

    code: str
    message: str
    field: str | None = None
    path: tuple[str | int, ...] = ()


class EngramError(Exception):
    """A failure the API (or the way to it) reported; `code` is the stable code to branch on."""

    default_code: ClassVar[str] = "UNEXPECTED"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        field: str | None = None,
        status: int | None = None,
        errors: Sequence[ErrorDetail] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.field = field
        self.status = status
        """The HTTP status of an answer that was refused whole (401, 400, 413, …) or held a
        GraphQL error; None for a mutation's payload errors and when there was no answer."""
        self.errors = list(errors) or [ErrorDetail(self.code, message, field)]

    def __str__(self) -> str:
        where = f" (field {self.field})" if self.field else ""
        return f"{self.code}: {self.message}{where}"


class NotFoundError(EngramError):
    default_code = "NOT_FOUND"


class ValidationError(EngramError):
    default_code = "VALIDATION"


class RevisionConflictError(EngramError):
    default_code = "REVISION_CONFLICT"


class HistoryUnavailableError(EngramError):
    default_code = "HISTORY_UNAVAILABLE"


class ForbiddenError(EngramError):
    default_code = "FORBIDDEN"


class LegalHoldError(EngramError):
    default_code = "LEGAL_HOLD"


class ForgottenError(EngramError):
    default_code = "FORGOTTEN"


class GateRefusedError(EngramError):
    default_code = "GATE_REFUSED"


class AmbiguousSubjectError(EngramError):
    default_code = "AMBIGUOUS_SUBJECT"


class ConflictError(EngramError):
    default_code = "CONFLICT"


class UnauthenticatedError(EngramError):
    default_code = "UNAUTHENTICATED"


class RequestTooLargeError(EngramError):
    default_code = "TOO_LARGE"


class UnavailableError(EngramError):
    """Try again later: `retry_after` is the server's `Retry-After` in seconds, when given."""

    default_code = "UNAVAILABLE"

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class RequestTimeoutError(EngramError):
    default_code = "TIMEOUT"


class UnexpectedError(EngramError):
    default_code = "UNEXPECTED"


BY_CODE: dict[str, type[EngramError]] = {
    cls.default_code: cls
    for cls in (
        NotFoundError,
        ValidationError,
        RevisionConflictError,
        HistoryUnavailableError,
        ForbiddenError,
        LegalHoldError,
        ForgottenError,
        GateRefusedError,
        AmbiguousSubjectError,
        ConflictError,
        UnauthenticatedError,
        RequestTooLargeError,
        UnavailableError,
        RequestTimeoutError,
        UnexpectedError,
    )
}

_BY_STATUS: dict[int, type[EngramError]] = {
    401: UnauthenticatedError,
    413: RequestTooLargeError,
    503: UnavailableError,
    504: RequestTimeoutError,
}


def raise_errors(details: Sequence[ErrorDetail], status: int | None = None) -> None:
    """Raise the exception of the first error's code, listing them all; nothing if none."""
    if not details:
        return
    first = details[0]
    cls = BY_CODE.get(first.code, EngramError)
    raise cls(first.message, code=first.code, field=first.field, status=status, errors=details)


def payload_errors(payload: Mapping[str, Any]) -> list[ErrorDetail]:
    """A mutation payload's `errors { code message field }`."""
    return [ErrorDetail(e["code"], e["message"], e.get("field")) for e in payload["errors"]]


def graphql_errors(errors: Sequence[Mapping[str, Any]]) -> list[ErrorDetail]:
    """Top-level GraphQL errors; one without `extensions.code` is the client's `UNEXPECTED`."""
    details = []
    for error in errors:
        extensions = error.get("extensions") or {}
        details.append(
            ErrorDetail(
                str(extensions.get("code") or UnexpectedError.default_code),
                str(error.get("message", "")),
                extensions.get("field"),
                tuple(error.get("path") or ()),
            )
        )
    return details


def http_error(status: int, message: str, retry_after: str | None) -> EngramError:
    """The exception for an answer that is not GraphQL's (401, 413, 503, 504, …)."""
    cls = _BY_STATUS.get(status, UnexpectedError)
    text = message or f"HTTP {status}"
    if cls is UnavailableError:
        seconds = float(retry_after) if retry_after and retry_after.isdigit() else None
        return UnavailableError(text, retry_after=seconds, status=status)
    return cls(text, status=status)
