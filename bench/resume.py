"""How a killed generation goes on: a checkpoint file of the conversations sealed so far, and
what to do with the one a kill cut off (seal it; write it again unless its claims were
remembered before the kill).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._support import OPERATOR
from bench.mix import ClaimSpec
from graph.domain.errors import NotFound, ValidationFailed
from graph.domain.memory_types import fact_key
from graph.memory import Memory

ACTOR = OPERATOR


@dataclass
class Checkpoint:
    """How far a generation got, in a JSON file rewritten after every step."""

    path: Path | None
    plan: dict[str, Any]
    done: int = 0
    """Sealed conversations."""
    open_episode: str | None = None
    seconds: float = 0.0
    finished: bool = False

    @classmethod
    def load(cls, path: Path | None, plan: dict[str, Any]) -> Checkpoint:
        if path is None or not path.exists():
            return cls(path, plan)
        state = json.loads(path.read_text())
        if state["plan"] != plan:
            raise ValueError(f"{path} is of another generation: {state['plan']} (now {plan})")
        return cls(
            path, plan, state["done"], state["open_episode"], state["seconds"], state["finished"]
        )

    @property
    def started(self) -> bool:
        return self.path is not None and self.path.exists()

    def save(self) -> None:
        if self.path is None:
            return
        state = {
            "plan": self.plan,
            "done": self.done,
            "open_episode": self.open_episode,
            "seconds": self.seconds,
            "finished": self.finished,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        scratch = self.path.with_suffix(".tmp")
        scratch.write_text(json.dumps(state, indent=1))
        scratch.replace(self.path)


async def remembered(memory: Memory, space: str, specs: list[ClaimSpec]) -> bool:
    """Whether a conversation cut off by a kill had its claims remembered (the last one's key
    has a revision)."""
    fields = specs[-1].fields
    if "key" in fields:
        key = fields["key"]
    else:
        key = fact_key(fields["subject"]["key"], fields["predicate"], fields["object"]["key"])
    try:
        await memory.reads.claim_history(await memory.reads.view(ACTOR, space), key)
    except NotFound:
        return False
    return True


async def seal_cut(memory: Memory, space: str, episode_id: str, specs: list[ClaimSpec]) -> None:
    """Seal the episode of a conversation a kill cut off (perhaps sealed just before it)."""
    # Refused when it was sealed already: the conversation was then written whole.
    with contextlib.suppress(ValidationFailed):
        await memory.writes.seal_episode(
            ACTOR,
            space,
            {"episode_id": episode_id, "ended_at": max(s.observed_at for s in specs)},
        )
