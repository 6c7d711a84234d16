"""Engram's GraphiQL page (dev mode only), served with its assets from Engram's own origin.

    GET /graphql (Accept: text/html)   the page, opening on an Engram example query
    GET /graphiql/assets/…             React, ReactDOM and GraphiQL, fetched once as WebJars

Strawberry's own page loads GraphiQL from a CDN, so offline it stays at "Loading…" forever.
This one references nothing but Engram's origin, and its Content-Security-Policy lets the
browser fetch from nowhere else: the inline script is allowed by its hash, not wholesale.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape
from pathlib import PurePosixPath

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from api.graphiql_assets import GraphiQLAssets

ASSETS_PATH = "/graphiql/assets"
"""Where GraphiQL's scripts and stylesheet are served; outside /graphql, so no key is asked."""

EXAMPLE_QUERY = """\
# Engram's GraphQL API: run with Ctrl-Enter or ▶.
#
# This dev-mode server asks for no API key.
# Outside dev mode every request to /graphql
# carries one as a header; in "Headers" below:
#   {"Authorization": "Bearer egk_…"}
# or
#   {"X-API-Key": "egk_…"}
# `engram keys create --space alice` prints one.
#
# No space yet? Create one:
#   mutation {
#     createSpace(name: "alice") { space { name } }
#   }

# Where does Alice work, on what evidence,
# and who is she connected to?
{
  search(space: "alice", query: "where does alice work",
         first: 5) {
    score
    sources
    claim {
      key text validFrom validTo
      evidence { kind text observedAt }
    }
  }
  related(space: "alice",
          entity: {key: "entity:person:alice"}, hops: 2) {
    nodes { distance entity { key name } }
    relations { type from { name } to { name } validFrom validTo }
  }
}
"""
"""What GraphiQL opens on the first time (later it keeps the user's own tabs)."""


def _start_script() -> str:
    # `</` cannot end the <script> element early when escaped as `<\/`.
    query = json.dumps(EXAMPLE_QUERY).replace("</", "<\\/")
    return (
        "\nconst fetcher = GraphiQL.createFetcher({url: window.location.origin + '/graphql'});\n"
        "ReactDOM.createRoot(document.getElementById('graphiql')).render(\n"
        "  React.createElement(GraphiQL, {\n"
        "    fetcher: fetcher,\n"
        f"    defaultQuery: {query},\n"
        "    defaultEditorToolsVisibility: 'headers',\n"
        "    isHeadersEditorEnabled: true,\n"
        "    shouldPersistHeaders: false,\n"
        "  })\n"
        ");\n"
    )


def _content_security_policy(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self' 'sha256-{digest}'",
            "style-src 'self' 'unsafe-inline'",  # GraphiQL sets element styles as it lays out
            "img-src 'self' data:",
            "font-src 'self' data:",  # its fonts are inlined in its stylesheet
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
        )
    )


def graphiql_html(assets: GraphiQLAssets) -> str:
    """The page: GraphiQL from `ASSETS_PATH`, the example query, requests to /graphql."""
    stylesheets = "".join(
        f'    <link rel="stylesheet" href="{escape(f"{ASSETS_PATH}/{path}")}">\n'
        for path in assets.stylesheets
    )
    scripts = "".join(
        f'    <script src="{escape(f"{ASSETS_PATH}/{path}")}"></script>\n'
        for path in assets.scripts
    )
    return (
        "<!doctype html>\n"
        '<html lang="en">\n'
        "  <head>\n"
        '    <meta charset="utf-8">\n'
        "    <title>Engram GraphiQL</title>\n"
        '    <link rel="icon" href="data:,">\n'  # else the browser asks for /favicon.ico
        f"{stylesheets}"
        "    <style>body { margin: 0; } #graphiql { height: 100vh; }</style>\n"
        "  </head>\n"
        "  <body>\n"
        '    <div id="graphiql">Loading…</div>\n'
        f"{scripts}"
        f"    <script>{_start_script()}</script>\n"
        "  </body>\n"
        "</html>\n"
    )


def graphiql_response(assets: GraphiQLAssets) -> HTMLResponse:
    """The page, with a policy that keeps the browser on Engram's origin."""
    return HTMLResponse(
        graphiql_html(assets),
        headers={"Content-Security-Policy": _content_security_policy(_start_script())},
    )


MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
"""Named here, not guessed: Python's guess for `.js` changed between versions."""


def graphiql_routes(assets: GraphiQLAssets) -> list[Route]:
    """The files the page references, and nothing else of the WebJars."""
    served = frozenset((*assets.scripts, *assets.stylesheets))

    async def asset(request: Request) -> Response:
        path: str = request.path_params["path"]
        if path not in served:
            return PlainTextResponse("Not Found", status_code=404)
        return FileResponse(
            assets.directory / path,
            media_type=MEDIA_TYPES[PurePosixPath(path).suffix],
            # The version is in the path, so a file never changes under its URL.
            headers={"Cache-Control": "public, max-age=31536000, immutable"},
        )

    return [Route(ASSETS_PATH + "/{path:path}", asset)]
