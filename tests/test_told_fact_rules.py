"""The pure rules of told facts, without Neo4j (the fast tier): what a new telling does to the
facts told before it (`graph.commands.telling`) and which told fact a view shows
(`graph.domain.timeline`), against an independent model written from ENGRAM.md §2
(tests/told_model.py) — for any arrival order.

500 seeded histories of 2–8 facts (open, closed, overlapping, out of order; two tiers;
retractions; batches), each replayed in up to 24 arrival orders; `HYPOTHESIS_PROFILE=deep` runs
more. The same histories run against Neo4j over GraphQL in tests/test_told_facts_api.py.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph.commands.claim_rows import ClaimContent, ClaimRow
from graph.commands.rekeying import rekeyed
from graph.commands.revisions import told_fact
from graph.commands.telling import Corroborates, told_at_same_start
from graph.domain.intervals import Interval
from graph.domain.model import canonical_json
from graph.domain.timeline import Told, held, segments, shown
from graph.domain.vocabulary import ClaimStatus, MemoryType, Privacy
from tests.told_model import TIERS, VALUES, KeyModel, Telling, batching, histories, probes

pytestmark = pytest.mark.fast

DAY0 = datetime(2020, 1, 1, tzinfo=UTC)
TICK0 = datetime(2030, 1, 1, tzinfo=UTC)


def day(n: float) -> datetime:
    return DAY0 + timedelta(days=n)


def tick(n: int) -> datetime:
    return TICK0 + timedelta(seconds=n)


@dataclass
class Store:
    """The rows the write path would hold for one key, planned by the pure planner."""

    rows: list[ClaimRow] = field(default_factory=list)
    made: int = 0
    corroborated: dict[str, list[datetime]] = field(default_factory=dict)
    """When a telling corroborated a row (the evidence it linked records that time)."""

    def tell(self, telling: Telling, at: int, seq: int) -> None:
        line = [r for r in self.rows if r.superseded_at is None and r.privacy == telling.tier]
        content = ClaimContent("subject", "WORKS_AT", None, telling.value)
        start = None if telling.start is None else day(telling.start)
        end = None if telling.end is None else day(telling.end)
        decision = told_at_same_start(line, content, Interval(start, end))
        if isinstance(decision, Corroborates):
            self.corroborated.setdefault(decision.row.id, []).append(tick(at))
            return
        for old in decision.rows:
            old.superseded_at = tick(at)
        self._add(telling, at, seq, ClaimStatus.ACTIVE)

    def retract(self, telling: Telling, at: int) -> None:
        for row in self.rows:
            if row.superseded_at is None and self._says(row, telling):
                row.superseded_at = tick(at)
                self._add(telling, at, 0, ClaimStatus.RETRACTED)
                return

    def values(self, whens: list[float], *, tier: int, known: int) -> list[str | None]:
        """What the view at `tier`, known at `known`, shows at each of `whens`."""
        believed = [
            r
            for r in self.rows
            if r.privacy <= tier
            and r.recorded_at is not None
            and r.recorded_at <= tick(known)
            and (r.superseded_at is None or tick(known) < r.superseded_at)
        ]
        told = [told_fact(r) for r in believed]
        said = {r.id: r.value() for r in believed}
        found = [shown(told, day(when)) for when in whens]
        return [None if f is None or not f.asserting else said[f.id] for f in found]

    def _says(self, row: ClaimRow, telling: Telling) -> bool:
        return (
            row.value() == telling.value
            and row.privacy == telling.tier
            and row.valid_from == (None if telling.start is None else day(telling.start))
            and row.valid_to == (None if telling.end is None else day(telling.end))
        )

    def _add(self, telling: Telling, at: int, seq: int, status: ClaimStatus) -> None:
        self.made += 1
        self.rows.append(
            ClaimRow(
                id=f"row-{self.made}",
                space_id="space",
                key="fact:person/subject:WORKS_AT",
                revision=self.made,
                type=MemoryType.FACT,
                status=status,
                privacy=Privacy(telling.tier),
                confidence=0.9,
                importance=0.5,
                actor="test",
                subject_id="subject",
                predicate="WORKS_AT",
                value_json=canonical_json(telling.value),
                valid_from=None if telling.start is None else day(telling.start),
                valid_to=None if telling.end is None else day(telling.end),
                told_seq=seq,
                recorded_at=tick(at),
            )
        )


def replay(facts: list[Telling], batches: list[int]) -> tuple[KeyModel, Store, int]:
    """Tell `facts` in order, grouped into batches of the given sizes (one tick each)."""
    model, store = KeyModel(), Store()
    at = 0
    position = 0
    for size in batches:
        at += 1
        for seq, telling in enumerate(facts[position : position + size]):
            model.tell(telling, at)
            store.tell(telling, at, seq)
        position += size
    return model, store, at


HISTORIES = max(500, settings().max_examples)
"""At least 500 histories; `HYPOTHESIS_PROFILE=deep` runs its own count if larger."""


@settings(max_examples=HISTORIES)
@given(facts=histories(), data=st.data())
def test_every_arrival_order_shows_what_the_model_shows_at_every_instant_tier_and_known_at(
    facts: list[Telling], data: st.DataObject
) -> None:
    chance = data.draw(st.randoms(use_true_random=False), label="orders")
    orders = [list(facts)] + [chance.sample(facts, len(facts)) for _ in range(23)]
    sizes = batching(len(facts), data.draw)
    whens = probes(facts)
    answers = None
    for place, order in enumerate(orders):
        model, store, last = replay(order, sizes)
        # Every past knownAt of the first orders; the final answers of every order.
        for known in range(1, last + 1) if place < 2 else (last,):
            for tier in TIERS:
                expected = [model.value(w, tier=tier, known=known) for w in whens]
                assert store.values(whens, tier=tier, known=known) == expected
        now = [store.values(whens, tier=tier, known=last) for tier in TIERS]
        assert answers is None or now == answers, "the answer depends on the arrival order"
        answers = now


@st.composite
def crowded_histories(draw: st.DrawFn) -> list[Telling]:
    """Histories with more facts at starts already told (other values, tiers or ends), in
    any order: under `MANY` they stand side by side, under `ONE` the later replaces."""
    facts = draw(histories())
    again = st.tuples(st.sampled_from(facts), st.sampled_from(VALUES), st.sampled_from(TIERS))
    for earlier, value, tier in draw(st.lists(again, max_size=6)):
        end = draw(st.sampled_from([earlier.end, None, (earlier.start or 0) + 7]))
        facts.append(Telling(value, earlier.start, end, tier))
    return draw(st.permutations(facts))


@settings(max_examples=HISTORIES)
@given(facts=crowded_histories())
def test_facts_told_under_many_then_rekeyed_to_one_show_what_one_from_the_start_shows(
    facts: list[Telling],
) -> None:
    model, by_value = KeyModel(), dict[str, Store]()
    for at, telling in enumerate(facts, start=1):
        model.tell(telling, at)
        by_value.setdefault(canonical_json(telling.value), Store()).tell(telling, at, 0)
    rows, told_at = [], {}
    for value, store in by_value.items():
        for row in store.rows:
            if row.superseded_at is None:
                rows.append(dataclasses.replace(row, id=f"{value}/{row.id}"))
                told_at[rows[-1].id] = store.corroborated.get(row.id, [])
    rekeyed_at = len(facts) + 1

    kept = rekeyed(rows, {row.id: "fact:person/subject:WORKS_AT" for row in rows}, told_at)

    one = Store()
    for seq, standing in enumerate(kept):
        restated = standing.row.restated(id=f"re-{seq}", revision=seq + 1, told_seq=seq)
        one.rows.append(dataclasses.replace(restated, recorded_at=tick(rekeyed_at)))
    for tier in TIERS:
        expected = [model.value(w, tier=tier, known=len(facts)) for w in probes(facts)]
        assert one.values(probes(facts), tier=tier, known=rekeyed_at) == expected


@settings(max_examples=300)
@given(facts=histories(), data=st.data())
def test_a_retraction_removes_the_told_fact_it_names_and_nothing_else(
    facts: list[Telling], data: st.DataObject
) -> None:
    model, store, last = replay(facts, [1] * len(facts))
    believed = [h.telling for h in model.held if h.until is None]
    gone = data.draw(st.sampled_from(believed), label="retracted")
    model.retract(gone, last + 1)
    store.retract(gone, last + 1)
    for tier in TIERS:
        for known in (last, last + 1):
            expected = [model.value(w, tier=tier, known=known) for w in probes(facts)]
            assert store.values(probes(facts), tier=tier, known=known) == expected


def test_a_closed_stint_interrupts_an_open_value_which_resumes_after_it() -> None:
    acme = Told("acme", day(0), None, tick(2))
    initech = Told("initech", day(10), day(20), tick(1))
    assert [(s.start, s.end, s.fact.id) for s in segments([acme, initech])] == [
        (day(0), day(10), "acme"),
        (day(10), day(20), "initech"),
        (day(20), None, "acme"),
    ]
    assert held(acme, [acme, initech], day(25)) == Interval(day(20), None)
    assert held(acme, [acme, initech], day(5)) == Interval(day(0), day(10))


def test_globex_from_march_and_acme_from_2020_give_acme_until_march_in_either_order() -> None:
    for first, second in ((tick(1), tick(2)), (tick(2), tick(1))):
        globex = Told("globex", datetime(2024, 3, 1, tzinfo=UTC), None, first)
        acme = Told("acme", datetime(2020, 1, 1, tzinfo=UTC), None, second)
        assert shown([globex, acme], datetime(2025, 1, 1, tzinfo=UTC)) == globex
        assert shown([globex, acme], datetime(2022, 1, 1, tzinfo=UTC)) == acme
        assert held(acme, [globex, acme], datetime(2022, 1, 1, tzinfo=UTC)) == Interval(
            datetime(2020, 1, 1, tzinfo=UTC), datetime(2024, 3, 1, tzinfo=UTC)
        )


def test_a_retracted_fact_never_hides_an_asserted_one() -> None:
    asserted = Told("old", day(0), None, tick(1))
    retracted = Told("new", day(10), None, tick(2), asserting=False)
    assert shown([asserted, retracted], day(20)) == asserted
    assert shown([retracted], day(20)) == retracted


def test_the_same_start_told_again_corroborates_or_replaces() -> None:
    store = Store()
    store.tell(Telling("Acme", 0, None, 1), 1, 0)
    store.tell(Telling("Acme", 0, None, 1), 2, 0)
    assert len(store.rows) == 1, "the same value and end corroborate"
    store.tell(Telling("Acme", 0, 30, 1), 3, 0)
    assert [(r.valid_to, r.superseded_at) for r in store.rows] == [
        (None, tick(3)),
        (day(30), None),
    ], "another end replaces the fact told at that start"
    assert store.values([40], tier=1, known=3) == [None]
