"""The Engram clients: `EngramClient` (blocking) and `AsyncEngramClient` (asyncio), on httpx.

    with EngramClient("http://127.0.0.1:8000", api_key="egk_…") as engram:
        hits = engram.search("alice", "where does alice work")

    async with AsyncEngramClient("http://127.0.0.1:8000", api_key="egk_…") as engram:
        hits = await engram.search("alice", "where does alice work")

Both have the same methods with the same arguments (written once, in `mutation_calls` and
`query_calls`), return the records of `records`, and raise the exceptions of
`exceptions`. They speak HTTP only: of the server, only the vocabulary's enums are imported.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar

import httpx

from api.client import mutation_calls as calls
from api.client import query_calls as queries
from api.client.exceptions import (
    UnavailableError,
    graphql_errors,
    http_error,
    raise_errors,
)
from api.client.mutation_calls import Call
from api.client.wire import to_wire

P = ParamSpec("P")
T = TypeVar("T")

USER_AGENT = "engram-client/0.1"
DEFAULT_TIMEOUT = 30.0


def endpoint(url: str) -> str:
    """The GraphQL endpoint of a server given by its base URL (or by the endpoint itself)."""
    url = url.rstrip("/")
    return url if url.endswith("/graphql") else f"{url}/graphql"


def headers(api_key: str | None) -> dict[str, str]:
    sent = {"user-agent": USER_AGENT, "accept": "application/json"}
    if api_key:
        sent["authorization"] = f"Bearer {api_key}"
    return sent


def answer_data(response: httpx.Response) -> dict[str, Any]:
    """The `data` of a GraphQL answer; any error in it, or a non-GraphQL answer, raised typed."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code == 200 or (isinstance(body, dict) and "errors" in body):
        if not isinstance(body, dict):
            raise http_error(response.status_code, "the answer is not GraphQL JSON", None)
        raise_errors(graphql_errors(body.get("errors") or []), status=response.status_code)
        data = body.get("data")
        if not isinstance(data, dict):
            raise http_error(response.status_code, "the answer holds no data", None)
        return data
    message = body.get("error", "") if isinstance(body, dict) else response.text[:200]
    raise http_error(response.status_code, str(message), response.headers.get("retry-after"))


def _bound_signature(build: Callable[..., Any], awaited: bool) -> inspect.Signature:
    """`build`'s signature as a method's (for help() and editors): `self` first, and the
    `Call[X]` it builds shown as the `X` the method returns (or `Awaitable[X]`)."""
    signature = inspect.signature(build)
    returns = str(signature.return_annotation).removeprefix("Call[").removesuffix("]")
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    return signature.replace(
        parameters=[this, *signature.parameters.values()],
        return_annotation=f"Awaitable[{returns}]" if awaited else returns,
    )


def _sync(build: Callable[P, Call[T]]) -> Callable[Concatenate[EngramClient, P], T]:
    def method(self: EngramClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.run(build(*args, **kwargs))

    method.__name__ = method.__qualname__ = build.__name__
    method.__doc__ = build.__doc__
    method.__signature__ = _bound_signature(build, awaited=False)  # type: ignore[attr-defined]
    return method


def _async(
    build: Callable[P, Call[T]],
) -> Callable[Concatenate[AsyncEngramClient, P], Coroutine[Any, Any, T]]:
    async def method(self: AsyncEngramClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.run(build(*args, **kwargs))

    method.__name__ = method.__qualname__ = build.__name__
    method.__doc__ = build.__doc__
    method.__signature__ = _bound_signature(build, awaited=True)  # type: ignore[attr-defined]
    return method


class EngramClient:
    """A blocking client of one Engram server, as one API key (or none, for a `--dev` server).

    `http` may be an httpx.Client of your own (proxies, transports); it is then yours to close."""

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        http: httpx.Client | None = None,
    ) -> None:
        self.url = endpoint(url)
        self._headers = headers(api_key)
        self._owned = http is None
        self._http = http if http is not None else httpx.Client(timeout=timeout)

    def execute(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send any GraphQL document (its variables may hold enums, instants and inputs); its
        `data`, or its errors raised as typed exceptions."""
        body = {"query": document, "variables": to_wire(variables or {})}
        try:
            response = self._http.post(self.url, json=body, headers=self._headers)
        except httpx.TransportError as failure:
            raise UnavailableError(f"no answer from {self.url}: {failure}") from failure
        return answer_data(response)

    def run(self, call: Call[T]) -> T:
        return call.read(self.execute(call.document, call.variables))

    def close(self) -> None:
        if self._owned:
            self._http.close()

    def __enter__(self) -> EngramClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    create_space = _sync(calls.create_space)
    open_episode = _sync(calls.open_episode)
    seal_episode = _sync(calls.seal_episode)
    record_observation = _sync(calls.record_observation)
    remember = _sync(calls.remember)
    remember_many = _sync(calls.remember_many)
    link = _sync(calls.link)
    correct = _sync(calls.correct)
    forget = _sync(calls.forget)
    spaces = _sync(queries.spaces)
    search = _sync(queries.search)
    messages = _sync(queries.messages)
    related = _sync(queries.related)
    explain_relation = _sync(queries.explain_relation)
    context = _sync(queries.context)
    claims = _sync(queries.claims)
    claim = _sync(queries.claim)
    claim_history = _sync(queries.claim_history)
    entity = _sync(queries.entity)


class AsyncEngramClient:
    """An asyncio client of one Engram server; the same methods as `EngramClient`, awaited."""

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.url = endpoint(url)
        self._headers = headers(api_key)
        self._owned = http is None
        self._http = http if http is not None else httpx.AsyncClient(timeout=timeout)

    async def execute(
        self, document: str, variables: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Send any GraphQL document (its variables may hold enums, instants and inputs); its
        `data`, or its errors raised as typed exceptions."""
        body = {"query": document, "variables": to_wire(variables or {})}
        try:
            response = await self._http.post(self.url, json=body, headers=self._headers)
        except httpx.TransportError as failure:
            raise UnavailableError(f"no answer from {self.url}: {failure}") from failure
        return answer_data(response)

    async def run(self, call: Call[T]) -> T:
        return call.read(await self.execute(call.document, call.variables))

    async def aclose(self) -> None:
        if self._owned:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncEngramClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.aclose()

    create_space = _async(calls.create_space)
    open_episode = _async(calls.open_episode)
    seal_episode = _async(calls.seal_episode)
    record_observation = _async(calls.record_observation)
    remember = _async(calls.remember)
    remember_many = _async(calls.remember_many)
    link = _async(calls.link)
    correct = _async(calls.correct)
    forget = _async(calls.forget)
    spaces = _async(queries.spaces)
    search = _async(queries.search)
    messages = _async(queries.messages)
    related = _async(queries.related)
    explain_relation = _async(queries.explain_relation)
    context = _async(queries.context)
    claims = _async(queries.claims)
    claim = _async(queries.claim)
    claim_history = _async(queries.claim_history)
    entity = _async(queries.entity)
