"""Who acts: the one explicit actor every command in graph/ is given.

An actor is a name for the audit trail and its grants: which spaces it may read (up to which
privacy tier), in which it may write, where it may place or release legal holds, and where it
may declare predicate rules. Nothing in graph/ assumes an actor: the API builds one from the API
key, the command line and the jobs (import, retention, restore) build an operator explicitly.

    >>> agent = Actor("key:3f9a:agent-7", {"alice": Grant("alice", Privacy.NORMAL, write=True)})
    >>> agent.tier_in("alice")
    <Privacy.NORMAL: 1>
    >>> Actor.operator("cli:engram import").tier_in("alice")
    <Privacy.SECRET: 3>
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from graph.domain.errors import Forbidden
from graph.domain.vocabulary import Privacy

SPACE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
"""A space's name, as spaces are created and keys grant them: lowercase, 1–63 characters."""


@dataclass(frozen=True)
class Grant:
    """What an actor may do in one space."""

    space: str
    tier: Privacy
    write: bool = False
    legal: bool = False
    """May place and release legal holds (a writer alone may not lift a hold and then forget)."""
    rules: bool = False
    """May declare predicate rules, which every tier's facts follow (a writer alone may not),
    and sees every declared rule."""


@dataclass(frozen=True)
class Actor:
    """Who acts, and what they may do."""

    name: str
    grants: Mapping[str, Grant] = field(default_factory=dict)
    everything: bool = False
    """An operator (the command line, a job, dev mode): every space, every tier, every grant."""

    @classmethod
    def operator(cls, name: str) -> Actor:
        """The actor of a person at the machine or a job they started: trusted with all."""
        return cls(name, {}, everything=True)

    def tier_in(self, space: str) -> Privacy:
        """The highest tier `space` may be read (and written) at; FORBIDDEN when not at all."""
        if self.everything:
            return Privacy.SECRET
        grant = self.grants.get(space)
        if grant is None:
            raise Forbidden(f"this key may not read space {space!r}", field="space")
        return grant.tier

    def check_write(self, space: str) -> None:
        if self.everything:
            return
        grant = self.grants.get(space)
        if grant is None or not grant.write:
            raise Forbidden(f"this key may not write to space {space!r}", field="space")

    def has_legal(self, space: str) -> bool:
        if self.everything:
            return True
        grant = self.grants.get(space)
        return grant is not None and grant.legal

    def check_legal(self, space: str) -> None:
        if not self.has_legal(space):
            raise Forbidden(
                f"this key may not place or release legal holds in space {space!r}", field="space"
            )

    def has_rules(self, space: str) -> bool:
        if self.everything:
            return True
        grant = self.grants.get(space)
        return grant is not None and grant.rules

    def check_rules(self, space: str) -> None:
        if not self.has_rules(space):
            raise Forbidden(
                f"this key may not declare predicate rules in space {space!r} (a key made with "
                "--rules may)",
                field="space",
            )

    def sees_space(self, space: str) -> bool:
        return self.everything or space in self.grants
