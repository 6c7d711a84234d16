"""Where Neo4j Browser finds Engram's guide and style, and what the local Neo4j tells Browser
about them (its allow-list and the commands it runs on connect): the settings the local Neo4j
is started with (`server.py`) and the URLs Engram prints and serves (the guide's queries are in
`graph.reads.guide_queries`).

    >>> guide_origin("127.0.0.1", 8000)
    'http://localhost:8000'
"""

from __future__ import annotations

GUIDE_PATH = "/browser-guide/"
"""Where Engram serves the guide (played by the printed Browser URL)."""
STYLE_PATH = "/browser-guide/engram.grass"
"""Where Engram serves the Browser style (GraSS) the guide applies."""

_LOOPBACK = {"127.0.0.1", "::1", "[::1]", "0.0.0.0", "::", "localhost", ""}


def guide_origin(host: str, port: int | None, scheme: str = "http") -> str:
    """The origin a person's Browser should load Engram from, e.g. `http://localhost:8000`.

    Browser fetches a guide only from a host on its allow-list, and before it has connected (when
    the printed URL plays the guide) that list is Browser's own default, which names `localhost`
    but not `127.0.0.1` — so a loopback or wildcard interface is spelled `localhost`."""
    name = "localhost" if host in _LOOPBACK else host
    return f"{scheme}://{name}" + (f":{port}" if port else "")


def allowed_guide_hosts(host: str) -> str:
    """The hosts Browser may fetch Engram's guide and style from (Neo4j's allow-list setting)."""
    hosts = ["localhost", "127.0.0.1"]
    if host not in _LOOPBACK:
        hosts.append(host)
    return ",".join(hosts)


def post_connect_commands(origin: str) -> str:
    """Neo4j's `browser.post_connect_cmd`: apply Engram's style and play its guide."""
    return f"style {origin}{STYLE_PATH}; play {origin}{GUIDE_PATH}"
