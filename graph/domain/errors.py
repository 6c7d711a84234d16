"""Typed errors with stable codes.

Domain errors (`EngramError` subclasses) are expected outcomes a caller can act on; the API turns
them into `errors { code message field }`. Setup errors (`SetupError`) mean Engram cannot run:
the CLI prints them and exits non-zero.

    raise RevisionConflict("claim pref:ui:theme is at revision 3, not 2")
"""

from __future__ import annotations

from graph.domain.vocabulary import ErrorCode


class EngramError(Exception):
    """An expected failure with a stable code; nothing was written."""

    code: ErrorCode = ErrorCode.VALIDATION

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code}: {self.message!r}, field={self.field!r})"

    def at(self, path: str) -> EngramError:
        """The same failure, its field named from `path` (`items[3]` + `subject.name`)."""
        moved = type(self)(self.message, field=f"{path}.{self.field}" if self.field else path)
        moved.__cause__ = self
        return moved


class NotFound(EngramError):
    code = ErrorCode.NOT_FOUND


class ValidationFailed(EngramError):
    code = ErrorCode.VALIDATION


def check_between(field: str, value: int, maximum: int) -> None:
    """A count argument (`first`, `hops`, …) must be 1 to `maximum`; `field` names it."""
    if not 1 <= value <= maximum:
        raise ValidationFailed(f"{field} must be between 1 and {maximum}", field=field)


class RevisionConflict(EngramError):
    code = ErrorCode.REVISION_CONFLICT


class HistoryUnavailable(EngramError):
    code = ErrorCode.HISTORY_UNAVAILABLE


class Forbidden(EngramError):
    code = ErrorCode.FORBIDDEN


class LegalHold(EngramError):
    code = ErrorCode.LEGAL_HOLD


class Forgotten(EngramError):
    code = ErrorCode.FORGOTTEN


class GateRefused(EngramError):
    code = ErrorCode.GATE_REFUSED


class AmbiguousSubject(EngramError):
    code = ErrorCode.AMBIGUOUS_SUBJECT


class Conflict(EngramError):
    """A uniqueness rule would be broken (e.g. a space name already taken)."""

    code = ErrorCode.CONFLICT


class SetupError(Exception):
    """Engram cannot run as configured: Neo4j unreachable, wrong password, migration refused."""
