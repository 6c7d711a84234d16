"""Building command inputs from untrusted data, with typed errors instead of pydantic's.

>>> item = parse(RememberInput, {"key": "pref:ui:theme", "evidence": []})
ValidationFailed: evidence: List should have at least 1 item after validation, not 0
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from graph.domain.errors import ValidationFailed

M = TypeVar("M", bound=BaseModel)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def parse(model: type[M], data: dict[str, Any]) -> M:
    """`model` validated from `data`; the first problem becomes a `ValidationFailed`."""
    try:
        return model.model_validate(data)
    except ValidationError as failure:
        error = failure.errors()[0]
        where = ".".join(_camel(str(part)) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        raise ValidationFailed(f"{where or 'input'}: {message}", field=where or None) from None
