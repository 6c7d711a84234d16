"""Building command inputs from untrusted data, with typed errors in plain words.

item = parse(RememberInput, {"key": "pref:ui:theme", "evidence": []})
ValidationFailed: evidence: give at least 1 item
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from graph.domain.errors import ValidationFailed

M = TypeVar("M", bound=BaseModel)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _path(error: ErrorDetails) -> str:
    where = ""
    for part in error["loc"]:
        where += f"[{part}]" if isinstance(part, int) else f".{_camel(str(part))}"
    return where.lstrip(".")


def plain(error: ErrorDetails) -> str:
    """What a validation problem means, in words (pydantic's own message when it has none)."""
    kind, ctx = error["type"], error.get("ctx") or {}
    words: dict[str, str] = {
        "missing": "is required",
        "extra_forbidden": "is not a field here",
        "too_short": "give at least {min_length} item{s_min}",
        "too_long": "give at most {max_length} item{s_max}",
        "string_too_short": "give at least {min_length} character{s_min}",
        "string_too_long": "give at most {max_length} character{s_max}",
        "greater_than_equal": "must be at least {ge}",
        "less_than_equal": "must be at most {le}",
        "greater_than": "must be more than {gt}",
        "less_than": "must be less than {lt}",
        "enum": "must be one of {expected}",
        "timezone_aware": "needs a UTC offset (e.g. 2024-01-01T00:00:00+00:00)",
    }
    if kind in words:
        values = {
            **{k: str(v) for k, v in ctx.items()},
            "s_min": "" if ctx.get("min_length") == 1 else "s",
            "s_max": "" if ctx.get("max_length") == 1 else "s",
        }
        return words[kind].format(**values)
    return str(error["msg"]).removeprefix("Value error, ")


def parse(model: type[M], data: dict[str, Any]) -> M:
    """`model` validated from `data`; the first problem becomes a `ValidationFailed` naming
    its field (`evidence[0].observationId`)."""
    try:
        return model.model_validate(data)
    except ValidationError as failure:
        error = failure.errors()[0]
        where = _path(error)
        raise ValidationFailed(f"{where or 'input'}: {plain(error)}", field=where or None) from None


def as_input(model: type[M], data: M | Mapping[str, Any]) -> M:
    """`data` itself when it already is a `model`, else `model` parsed from it (`parse`)."""
    return data if isinstance(data, model) else parse(model, dict(data))
