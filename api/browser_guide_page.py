"""Engram's Neo4j Browser guide and style, served from Engram's own origin.

    GET /browser-guide/             the guide (`:play http://localhost:8000/browser-guide/`)
    GET /browser-guide/engram.grass the style (`:style http://localhost:8000/browser-guide/engram.grass`)

Browser 5 plays an HTML page whose `<slide>` elements become a carousel; a `<pre class="runnable">`
block shows a play icon that runs it (clicking the block itself puts it in the editor). The
slides' Cypher comes from `graph.reads.guide_queries`, so the guide shows exactly the queries
the tests run. Neither page holds any data: the queries run in Browser with Neo4j's own
password.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from graph.runtime import GUIDE_PATH, STYLE_PATH, guide_queries

KIND_STYLES: dict[str, tuple[str, int]] = {
    "Person": ("#68BDF6", 64),
    "Org": ("#F79767", 78),
    "Project": ("#8DCC93", 70),
    "Repo": ("#C990C0", 60),
    "File": ("#D9C8AE", 52),
    "Url": ("#57C7E3", 52),
    "Topic": ("#FFD86E", 60),
    "Other": ("#A5ABB6", 52),
}
"""Colour and diameter per entity kind label."""

OTHER_STYLES: dict[str, tuple[str, int, str]] = {
    "Claim": ("#ECB5C9", 40, "{caption}"),
    "Observation": ("#DA7194", 36, "{content}"),
    "Artifact": ("#4C8EDA", 36, "{locator}"),
    "Episode": ("#B5B5B5", 44, "{title}"),
    "Space": ("#6DCE9E", 56, "{name}"),
    "Tombstone": ("#604A0E", 36, "{selectorKind}"),
}
"""Colour, diameter and caption of the other nodes a slide can draw."""

AUTO_CONNECT_OFF = ":config autoComplete: false"
"""Browser's "Connect result nodes" would add every edge between the nodes a query returns —
superseded revisions too — so the guide turns it off and the queries choose the edges."""


@dataclass(frozen=True)
class Slide:
    """One slide: a title, a few sentences (HTML) and the query it runs (None: text only)."""

    title: str
    text: str
    cypher: str | None = None
    draws: bool = True
    """True when the query returns nodes and edges (Browser draws them), False for a table."""


SLIDES: tuple[Slide, ...] = (
    Slide(
        "Engram in Neo4j Browser",
        "Entities carry their current <code>name</code> and their kind as a label "
        "(<code>:Person</code>, <code>:Org</code>, …); relation edges say whether they are "
        "<code>current</code>. First apply Engram's style, then set the parameters every slide "
        "uses (change <code>space</code> to your space's name). Click a block to run it.",
    ),
    Slide(
        "A space's current graph",
        "Every relation that is recorded now and valid today. Superseded revisions "
        "(<code>current: false</code>) and relations that ended are left out.",
        guide_queries.CURRENT_GRAPH,
    ),
    Slide(
        "One person's neighbourhood as of a date",
        "Who <code>$person</code> was connected to, two hops out, as the world was at "
        "<code>$asOf</code> — as Engram knows it now.",
        guide_queries.NEIGHBOURHOOD_AS_OF,
    ),
    Slide(
        "The evidence behind a relation",
        "The claim that asserts each current relation from <code>$person</code> to "
        "<code>$other</code>, and the observations it rests on (<code>SUPPORTED_BY</code>, "
        "<code>CORRECTED_BY</code> when a correction changed it).",
        guide_queries.RELATION_EVIDENCE,
    ),
    Slide(
        "What was known before a correction",
        "The relations of <code>$person</code> valid today, as Engram knew them just before the "
        "latest correction of one of them: the edge the correction replaced is drawn again.",
        guide_queries.BEFORE_CORRECTION,
    ),
    Slide(
        "A relation's history",
        "Every revision of the claims relating <code>$person</code> to <code>$other</code>: "
        "valid time (<code>validFrom</code>…<code>validTo</code>), recorded time "
        "(<code>recordedAt</code>…<code>supersededAt</code>), status and the reason given.",
        guide_queries.RELATION_HISTORY,
        draws=False,
    ),
    Slide(
        "What a tombstone records",
        "A forget erases content in every revision and leaves a tombstone: when, what kind of "
        "selector, why, by whom and how much — never what was said.",
        guide_queries.TOMBSTONES,
        draws=False,
    ),
)


def browser_style() -> str:
    """The GraSS Engram ships: entities captioned by name and coloured and sized by kind."""
    rules = [
        _rule(
            "node",
            diameter="50px",
            color="#A5ABB6",
            **{"border-color": "#9AA1AC", "border-width": "2px"},
            **{"text-color-internal": "#FFFFFF", "font-size": "10px"},
            caption='"<id>"',
        ),
        _rule("relationship", color="#A5ABB6", **{"shaft-width": "2px"}, caption='"<type>"'),
        _rule("node.Entity", color="#A5ABB6", diameter="52px", caption='"{name}"'),
    ]
    for label, (color, size) in KIND_STYLES.items():
        rules.append(_rule(f"node.{label}", color=color, diameter=f"{size}px"))
    for label, (color, size, caption) in OTHER_STYLES.items():
        rules.append(
            _rule(f"node.{label}", color=color, diameter=f"{size}px", caption=f'"{caption}"')
        )
    return "\n".join(rules) + "\n"


def _rule(selector: str, **props: str) -> str:
    lines = "".join(f"  {name}: {value};\n" for name, value in props.items())
    return f"{selector} {{\n{lines}}}"


def params_command(params: dict[str, str] | None = None) -> str:
    """The `:params` line that sets every slide's parameters."""
    return ":params " + json.dumps(params or guide_queries.GUIDE_PARAMS)


def guide_html(origin: str) -> str:
    """The guide's HTML for a Browser that loads Engram from `origin`."""
    setup = [f":style {origin}{STYLE_PATH}", AUTO_CONNECT_OFF, params_command()]
    slides = [
        _slide(SLIDES[0], extra=setup),
        *(_slide(slide) for slide in SLIDES[1:]),
    ]
    return (
        '<article class="guide">\n<carousel class="deck container-fluid">\n'
        + "\n".join(slides)
        + "\n</carousel>\n</article>\n"
    )


def _slide(slide: Slide, extra: list[str] | None = None) -> str:
    blocks = [*(extra or []), *([slide.cypher] if slide.cypher else [])]
    code = "".join(f'<pre class="runnable">{escape(block)}</pre>\n' for block in blocks)
    view = "" if slide.cypher is None or slide.draws else "<p><em>Shown as a table.</em></p>\n"
    return (
        '<slide class="row-fluid">\n<div class="col-sm-12">\n'
        f"<h3>{escape(slide.title)}</h3>\n<p>{slide.text}</p>\n{code}{view}</div>\n</slide>"
    )


def _origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


async def guide(request: Request) -> Response:
    return Response(guide_html(_origin(request)), media_type="text/html; charset=utf-8")


async def style(request: Request) -> Response:
    return PlainTextResponse(browser_style())


def guide_routes() -> list[Route]:
    """The guide's and the style's routes (mounted beside Browser at /browser)."""
    return [Route(GUIDE_PATH, guide), Route(STYLE_PATH, style)]
