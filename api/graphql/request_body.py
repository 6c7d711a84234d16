"""A GraphQL request's JSON, decoded with limits: refused as `VALIDATION` before GraphQL runs.

`json.loads` accepts things that later fail deep inside the server, where they would surface as
"Unexpected error." or a 500: a 100 000-deep array (RecursionError), a number with a million
digits (ValueError), `NaN`, a lone surrogate like `"\\ud800"` (valid JSON, but not text any
driver can encode) or a list of two million items that graphql-core would coerce one by one.
`decode_request_json` refuses each with a clear message:

    decode_request_json(b'{"variables": {"ids": [' + b'0,' * 20_000 + b'0]}}')
    PayloadRefused: a list in the request has 20001 items; at most 10000 are accepted
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from starlette.responses import JSONResponse

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects: the request envelope and an input object take four or
five levels, a claim's JSON value the rest — no honest request comes near it."""

MAX_LIST_ITEMS = 10_000
"""Longest array: `rememberMany` takes at most 1000 claims and a claim's value is at most 16 KiB,
so a longer list is a mistake or an attack, refused before graphql-core walks it."""


class PayloadRefused(Exception):
    """The request's JSON breaks a limit; answered as a `VALIDATION` error, status 400."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def response(self) -> JSONResponse:
        """The answer: a GraphQL-shaped error, so clients read it like any other."""
        return JSONResponse(
            {
                "data": None,
                "errors": [{"message": self.message, "extensions": {"code": "VALIDATION"}}],
            },
            status_code=400,
        )


def check_body_is_an_object(body: bytes) -> None:
    """Refuse a body whose JSON is a string, number or null: strawberry expects an object (or
    a batch list) and would fail on anything else with an AttributeError, a 500. JSON's first
    non-blank character tells its type, so this needs no second parse."""
    if body.lstrip(b" \t\r\n")[:1] not in (b"{", b"["):
        raise PayloadRefused("the request body must be a JSON object with a `query`")


def _not_a_number(name: str) -> NoReturn:
    raise PayloadRefused(f"{name} is not a JSON number")


def decode_request_json(data: str | bytes) -> Any:
    """`data` decoded, or `PayloadRefused`; malformed JSON stays a `json.JSONDecodeError`."""
    try:
        value = json.loads(data, parse_constant=_not_a_number)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise PayloadRefused(
            f"the request's JSON nests deeper than {MAX_JSON_DEPTH} levels"
        ) from None
    except ValueError as failure:  # e.g. an integer with more digits than Python converts
        raise PayloadRefused(
            f"the request's JSON has a value that cannot be read: {failure}"
        ) from None
    _check(value)
    return value


def _check(value: Any) -> None:
    """Depth, list length and text of every value, without recursion (the depth is the point)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, list | dict):
            if depth > MAX_JSON_DEPTH:
                raise PayloadRefused(
                    f"the request's JSON nests deeper than {MAX_JSON_DEPTH} levels"
                )
            if isinstance(item, list):
                if len(item) > MAX_LIST_ITEMS:
                    raise PayloadRefused(
                        f"a list in the request has {len(item)} items; "
                        f"at most {MAX_LIST_ITEMS} are accepted"
                    )
                stack.extend((child, depth + 1) for child in item)
            else:
                for key, child in item.items():
                    _check_text(key)
                    stack.append((child, depth + 1))


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as failure:
        code = ord(text[failure.start])
        raise PayloadRefused(
            f"the request contains a lone surrogate (\\u{code:04x}), which is not Unicode text"
        ) from None
