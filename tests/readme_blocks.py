"""The README's fenced blocks, in order, each with the prose around it.

`tests/test_readme.py` runs them; a block it does not run says so in the prose right after it,
with the words of `NOT_RUN` and the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NOT_RUN = "`tests/test_readme.py` does not run this block"
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    line: int
    """The line of its opening fence, counted from 1."""
    language: str
    """The fence's info string (`sh`, `graphql`, …), empty for a plain block."""
    text: str
    before: str
    """The prose between the previous block and this one."""
    after: str
    """The prose between this block and the next."""

    @property
    def first_line(self) -> str:
        return self.text.split("\n", 1)[0]

    @property
    def not_run(self) -> bool:
        """Whether the paragraph right after the block says the test does not run it."""
        paragraph = self.after.strip().split("\n\n", 1)[0]
        return NOT_RUN in " ".join(paragraph.split())


def blocks(markdown: str) -> list[Block]:
    """Every fenced block of `markdown`, in order."""
    found = list(_FENCE.finditer(markdown))
    edges = [0, *(edge for match in found for edge in match.span()), len(markdown)]
    return [
        Block(
            line=markdown.count("\n", 0, match.start()) + 1,
            language=match.group(1).strip(),
            text=match.group(2),
            before=markdown[edges[2 * place] : match.start()],
            after=markdown[match.end() : edges[2 * place + 3]],
        )
        for place, match in enumerate(found)
    ]
