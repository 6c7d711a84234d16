"""Property test: for random histories of remember / correct and random asOf / knownAt, Engram's
answers equal an independent in-memory bi-temporal model's (tests/bitemporal_model.py): told
facts side by side, one shown per instant for an overwrite key, with the interval it is shown on.

Runs 30 examples with a fixed seed in every run (`HYPOTHESIS_PROFILE=deep` for 2000). Each example
works in a fresh space, so examples cannot see each other.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Coroutine
from datetime import datetime, timedelta
from typing import Any, TypeVar

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from graph.domain.vocabulary import ClaimStatus
from graph.runtime import Graph, Neo4jTarget, connect
from tests.bitemporal_model import BitemporalModel, Row
from tests.story import Story, day, new_story
from tests.support import NEO4J_EXAMPLES

T = TypeVar("T")
KEYS = {"pref:ui:theme": True, "pref:ui:font": True, "decision:engram:db": False}
VALUES = ["a", "b", "c"]
DAYS = st.integers(min_value=0, max_value=30)
_spaces = itertools.count()


def value_of(key: str, value: str) -> dict[str, str]:
    return {"decision": value} if key.startswith("decision") else {"value": value}


def shown_value(claim_value: dict[str, str]) -> str:
    return claim_value.get("decision") or claim_value["value"]


def engram_machine(loop: asyncio.AbstractEventLoop, graph: Graph) -> type[RuleBasedStateMachine]:
    def run(step: Coroutine[Any, Any, T]) -> T:
        return loop.run_until_complete(step)

    class EngramVersusModel(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.story: Story = run(new_story(graph, f"prop-{next(_spaces)}"))
            self.model = BitemporalModel()
            self.recorded: list[datetime] = []

        @rule(
            key=st.sampled_from(sorted(KEYS)),
            value=st.sampled_from(VALUES),
            said_on=DAYS,
            lasts=st.one_of(st.none(), st.integers(min_value=1, max_value=20)),
        )
        def remember(self, key: str, value: str, said_on: int, lasts: int | None) -> None:
            said = run(self.story.say(f"{key}={value}", at=day(said_on)))
            fields: dict[str, Any] = {"key": key, "value": value_of(key, value)}
            valid_to = day(said_on + lasts) if lasts is not None else None
            if valid_to is not None:
                fields["valid_to"] = valid_to.isoformat()
            claim = run(self.story.remember(said, **fields))
            recorded = claim.recorded_at if claim.recorded_at not in self.recorded else None
            changed = self.model.remember(
                key, value, day(said_on), valid_to, recorded, overwrite=KEYS[key]
            )
            assert changed == (recorded is not None), "corroboration differs from the model"
            if recorded is not None:
                self.recorded.append(recorded)

        @rule(key=st.sampled_from(sorted(KEYS)), data=st.data())
        def correct(self, key: str, data: st.DataObject) -> None:
            view = run(self.story.view())
            current = [c for c in self._history(key, view) if c.superseded_at is None]
            if not current:
                return
            target = data.draw(st.sampled_from(current), label="target")
            row = self._model_row(key, target)
            kind = data.draw(st.sampled_from(["SUPERSEDE", "RETRACT", "DISPUTE"]), label="kind")
            if kind != "SUPERSEDE" and target.status is not ClaimStatus.ACTIVE:
                kind = "SUPERSEDE"
            said = run(self.story.say(f"correct {key}"))
            fields: dict[str, Any] = {
                "claim_id": target.id,
                "kind": kind,
                "reason": "property test",
                "evidence": [{"observation_id": said}],
            }
            new_start: datetime | None = None
            if kind == "SUPERSEDE":
                value = data.draw(st.sampled_from(VALUES), label="value")
                fields["value"] = value_of(key, value)
                later = [
                    day(n)
                    for n in range(31)
                    if (target.valid_from is None or day(n) > target.valid_from)
                    and (target.valid_to is None or day(n) < target.valid_to)
                ]
                if later and data.draw(st.booleans(), label="from later"):
                    new_start = data.draw(st.sampled_from(later), label="valid_from")
                    fields["valid_from"] = new_start.isoformat()
            claim = run(self.story.correct(**fields))
            self.recorded.append(claim.recorded_at)
            if kind == "SUPERSEDE":
                self.model.supersede(
                    row,
                    fields["value"].get("decision") or fields["value"]["value"],
                    new_start,
                    claim.recorded_at,
                )
            else:
                status = "retracted" if kind == "RETRACT" else "disputed"
                self.model.restate(row, status, claim.recorded_at)

        @rule(data=st.data())
        def views_agree(self, data: st.DataObject) -> None:
            as_of = day(data.draw(DAYS, label="asOf day")) + timedelta(hours=12)
            known_at = None
            if self.recorded:
                instant = data.draw(st.sampled_from(self.recorded), label="knownAt")
                nudge = data.draw(st.sampled_from([-1, 0]), label="knownAt nudge")
                known_at = instant + timedelta(microseconds=nudge)
            view = run(self.story.view(as_of=as_of, known_at=known_at))
            for key in KEYS:
                engram = sorted(
                    (
                        (shown_value(c.value), c.status.value, c.valid_from, c.valid_to)
                        for c in run(self.story.memory.reads.claims_by_key(view, key))
                    ),
                    key=repr,
                )
                assert engram == self.model.visible(
                    key, as_of, view.known_at, overwrite=KEYS[key]
                ), f"{key} as of {as_of} known at {view.known_at}"

        @invariant()
        def current_rows_agree(self) -> None:
            view = run(self.story.view())
            for key in KEYS:
                engram = sorted(
                    (
                        (shown_value(c.value), c.status.value, c.valid_from, c.valid_to)
                        for c in self._history(key, view)
                        if c.superseded_at is None
                    ),
                    key=repr,
                )
                model = sorted((r.shown() for r in self.model.current(key)), key=repr)
                assert engram == model, key

        def _history(self, key: str, view: Any) -> list[Any]:
            try:
                return run(self.story.memory.reads.claim_history(view, key))
            except Exception as failure:
                if getattr(failure, "code", None) == "NOT_FOUND":
                    return []
                raise

        def _model_row(self, key: str, claim: Any) -> Row:
            shown = (shown_value(claim.value), claim.status.value, claim.valid_from, claim.valid_to)
            matches = [r for r in self.model.current(key) if r.shown() == shown]
            assert matches, f"Engram's current row {shown} is not in the model"
            return matches[0]

    return EngramVersusModel


def test_engram_answers_like_an_independent_bitemporal_model(neo4j_target: Neo4jTarget) -> None:
    loop = asyncio.new_event_loop()
    graph = loop.run_until_complete(connect(neo4j_target))
    try:
        machine = engram_machine(loop, graph)
        run_state_machine_as_test(
            machine,
            settings=settings(settings(), max_examples=NEO4J_EXAMPLES, stateful_step_count=12),
        )
    finally:
        loop.run_until_complete(graph.close())
        loop.close()
