"""What every resolver gets in `info.context`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from graph.db import Graph
from graph.settings import Settings


@dataclass
class EngramContext:
    request: Request | None
    response: Response | None
    graph: Graph
    settings: Settings
    actor: str = "anonymous"
    loaders: dict[str, Any] = field(default_factory=dict)
