"""Non-interference, as a property: writes above a tier are invisible to every writer below it.

Hypothesis draws mixed-tier histories — remembers, corrections and forgets by a `normal` writer
and a `secret` one who writes at `secret` — and runs each twice, in two spaces: once whole and
once without the secret writer's steps. Every answer the normal writer gets, and everything a
normal reader sees at the end (every key's history and the current claims), must be the same in
both; and the current values must be the independent model's (per key, the normal writer's
latest told value that it has not retracted or forgotten).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.domain.actor import Actor, Grant
from graph.domain.errors import EngramError
from graph.domain.inputs import parse
from graph.domain.vocabulary import Privacy, SelectorKind
from graph.memory import (
    ClaimFilter,
    CorrectInput,
    ForgetInput,
    Memory,
    ObservationInput,
    OpenEpisodeInput,
    RememberInput,
    Selector,
)
from graph.runtime import Graph, Settings
from tests.support import NEO4J_EXAMPLES
from tests.tier_worlds import normalised

OPERATOR = Actor.operator("operator")
LATER = datetime(2100, 1, 1, tzinfo=UTC)
"""Views are taken here: after every write, so the newest rows are the current ones."""
KEYS = ["pref:ui:theme", "pref:ui:font", "goal:engram:ship"]
VALUES = ["a", "b", "c"]

STEP = st.tuples(
    st.booleans(),  # by the secret writer?
    st.sampled_from(["remember", "retract", "forget"]),
    st.sampled_from(KEYS),
    st.sampled_from(VALUES),
)

_spaces = itertools.count()


@dataclass
class Run:
    memory: Memory
    space: str
    episode: str
    answers: list[str]

    def actor(self, secret: bool) -> Actor:
        tier = Privacy.SECRET if secret else Privacy.NORMAL
        return Actor(f"w{int(tier)}", {self.space: Grant(self.space, tier, write=True)})

    async def current_id(self, actor: Actor, key: str) -> str | None:
        """The current row of `key` at the actor's own tier (its line)."""
        tier = actor.tier_in(self.space)
        view = await self.memory.reads.view(actor, self.space, as_of=LATER)
        rows = await self.memory.reads.claims_by_key(view, key)
        return next((row.id for row in rows if row.privacy is tier), None)


async def _run(memory: Memory, steps: list[tuple[bool, str, str, str]]) -> Run:
    space = f"tiers-{next(_spaces)}"
    await memory.writes.create_space(OPERATOR, space, "")
    episode = await memory.writes.open_episode(OPERATOR, space, OpenEpisodeInput(title="t"))
    run = Run(memory, space, episode.id, [])
    for secret, kind, key, value in steps:
        actor = run.actor(secret)
        tier = actor.tier_in(space)
        answer: Any
        try:
            said = await memory.writes.record_observation(
                actor,
                space,
                ObservationInput(episode_id=episode.id, content=f"{key}={value}", privacy=tier),
            )
            evidence = [{"observation_id": said.id}]
            target = await run.current_id(actor, key)
            if kind == "remember":
                item = {"key": key, "value": {"value": value}, "privacy": tier}
                if key.startswith("goal:"):
                    item["value"] = {"value": value, "status": "active"}
                [claim] = await memory.writes.remember(
                    actor, space, [parse(RememberInput, {**item, "evidence": evidence})]
                )
                answer = (said.seq, claim.key, claim.revision, claim.value, claim.status)
            elif target is None:
                answer = "nothing to change"
            elif kind == "retract":
                change = {"claim_id": target, "kind": "RETRACT", "reason": "no"}
                claim = await memory.writes.correct(
                    actor, space, parse(CorrectInput, {**change, "evidence": evidence})
                )
                answer = (said.seq, claim.revision, claim.status)
            else:
                receipt = await memory.forgetting.forget(
                    actor,
                    space,
                    ForgetInput(
                        selector=Selector(kind=SelectorKind.CLAIM, id=target), reason="asked"
                    ),
                )
                answer = (said.seq, receipt.erased, receipt.made_inactive)
        except EngramError as failure:
            answer = (failure.code, failure.message)
        if not secret:
            run.answers.append(normalised(answer))
    return run


async def _normal_view(run: Run) -> tuple[str, dict[str, str]]:
    view = await run.memory.reads.view(run.actor(secret=False), run.space, as_of=LATER)
    page = await run.memory.reads.claims(view, ClaimFilter(), first=100)
    current = {c.key: c.value["value"] for c in page.claims if c.status.value == "active"}
    histories = []
    for key in KEYS:
        try:
            history = await run.memory.reads.claim_history(view, key)
        except EngramError as failure:
            histories.append(str(failure.code))
            continue
        histories.append(
            normalised(
                [
                    (
                        c.revision,
                        c.status.value,
                        c.value,
                        _iso(c.valid_from),
                        c.superseded_at is None,
                    )
                    for c in history
                ]
            )
        )
    return normalised(histories), current


def _iso(at: datetime | None) -> str | None:
    return at.isoformat() if at is not None else None


def _model(steps: list[tuple[bool, str, str, str]]) -> dict[str, str]:
    """The normal writer's current values: each remember tells a fact from its own time, so the
    latest told one shows; a retraction or a forget removes the fact shown then (an earlier one
    of the key shows again) — nothing the secret writer did counts."""
    told: dict[str, list[str]] = {}
    for secret, kind, key, value in steps:
        if secret:
            continue
        if kind == "remember":
            told.setdefault(key, []).append(value)
        elif told.get(key):
            told[key].pop()
    return {key: values[-1] for key, values in told.items() if values}


@settings(max_examples=NEO4J_EXAMPLES)
@given(steps=st.lists(STEP, min_size=1, max_size=8))
async def test_secret_writes_are_invisible_to_a_normal_writer_and_reader(
    graph: Graph, test_settings: Settings, steps: list[tuple[bool, str, str, str]]
) -> None:
    memory = Memory(graph, test_settings)
    whole = await _run(memory, steps)
    alone = await _run(memory, [s for s in steps if not s[0]])
    assert whole.answers == alone.answers
    seen_whole, seen_alone = await _normal_view(whole), await _normal_view(alone)
    assert seen_whole == seen_alone
    assert seen_whole[1] == _model(steps)
