"""The vocabulary's enums registered with Strawberry, in place, before any type uses them (the
package imports this first): GraphQL shows their names. Privacy is GraphQL's own
(`types.Privacy`): the domain's tiers are ordered integers."""

from __future__ import annotations

import strawberry

from graph.domain import vocabulary

DESCRIPTIONS = {
    vocabulary.ErrorCode: "Stable codes of expected failures; callers branch on these.",
    vocabulary.ExportFormat: "JSONL (the import format) or a Markdown document.",
}

for _name in vocabulary.__all__:
    if (_enum := getattr(vocabulary, _name)) is not vocabulary.Privacy:
        strawberry.enum(_enum, description=DESCRIPTIONS.get(_enum))
