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

from graph.commands.correct import CorrectInput, correct
from graph.commands.episodes import (
    ObservationInput,
    OpenEpisodeInput,
    open_episode,
    record_observation,
)
from graph.commands.remember import RememberInput, remember
from graph.commands.spaces import create_space
from graph.domain.actor import Actor, Grant
from graph.domain.errors import EngramError
from graph.domain.inputs import parse
from graph.domain.model import Privacy
from graph.erasure.forget import ForgetInput, forget
from graph.erasure.selectors import Selector, SelectorKind
from graph.reads import resources as reads
from graph.reads.listing import ClaimFilter, list_claims
from graph.reads.visibility import View
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
    graph: Graph
    space: str
    episode: str
    answers: list[str]

    def actor(self, secret: bool) -> Actor:
        tier = Privacy.SECRET if secret else Privacy.NORMAL
        return Actor(f"w{int(tier)}", {self.space: Grant(self.space, tier, write=True)})

    async def current_id(self, actor: Actor, key: str) -> str | None:
        """The current row of `key` at the actor's own tier (its line)."""
        tier = actor.tier_in(self.space)
        view = await View.open(self.graph, self.space, as_of=LATER, max_privacy=tier)
        rows = await reads.claims_by_key(self.graph, view, key)
        return next((row.id for row in rows if row.privacy is tier), None)


async def _run(graph: Graph, steps: list[tuple[bool, str, str, str]], blobs: Any) -> Run:
    space = f"tiers-{next(_spaces)}"
    await create_space(graph, space, "", actor=OPERATOR)
    episode = await open_episode(graph, space, OpenEpisodeInput(title="t"), actor=OPERATOR)
    run = Run(graph, space, episode.id, [])
    for secret, kind, key, value in steps:
        actor = run.actor(secret)
        tier = actor.tier_in(space)
        answer: Any
        try:
            said = await record_observation(
                graph,
                space,
                ObservationInput(episode_id=episode.id, content=f"{key}={value}", privacy=tier),
                actor=actor,
            )
            evidence = [{"observation_id": said.id}]
            target = await run.current_id(actor, key)
            if kind == "remember":
                item = {"key": key, "value": {"value": value}, "privacy": tier}
                if key.startswith("goal:"):
                    item["value"] = {"value": value, "status": "active"}
                [claim] = await remember(
                    graph,
                    space,
                    [parse(RememberInput, {**item, "evidence": evidence})],
                    actor=actor,
                )
                answer = (said.seq, claim.key, claim.revision, claim.value, claim.status)
            elif target is None:
                answer = "nothing to change"
            elif kind == "retract":
                change = {"claim_id": target, "kind": "RETRACT", "reason": "no"}
                claim = await correct(
                    graph, space, parse(CorrectInput, {**change, "evidence": evidence}), actor=actor
                )
                answer = (said.seq, claim.revision, claim.status)
            else:
                receipt = await forget(
                    graph,
                    space,
                    ForgetInput(
                        selector=Selector(kind=SelectorKind.CLAIM, id=target), reason="asked"
                    ),
                    actor=actor,
                    blob_root=blobs,
                )
                answer = (said.seq, receipt.erased, receipt.made_inactive)
        except EngramError as failure:
            answer = (failure.code, failure.message)
        if not secret:
            run.answers.append(normalised(answer))
    return run


async def _normal_view(run: Run) -> tuple[str, dict[str, str]]:
    view = await View.open(run.graph, run.space, as_of=LATER, max_privacy=Privacy.NORMAL)
    page = await list_claims(run.graph, view, ClaimFilter(), first=100)
    current = {c.key: c.value["value"] for c in page.claims if c.status.value == "active"}
    histories = []
    for key in KEYS:
        try:
            history = await reads.claim_history(run.graph, view, key)
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
    whole = await _run(graph, steps, test_settings.blobs)
    alone = await _run(graph, [s for s in steps if not s[0]], test_settings.blobs)
    assert whole.answers == alone.answers
    seen_whole, seen_alone = await _normal_view(whole), await _normal_view(alone)
    assert seen_whole == seen_alone
    assert seen_whole[1] == _model(steps)
