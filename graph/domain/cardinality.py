"""Predicate cardinality: how many current values a fact's subject has for one predicate.

    >>> default_cardinality("WORKS_AT", literal=False)
    <Cardinality.ONE: 'one'>
    >>> default_cardinality("KNOWS", literal=False)
    <Cardinality.MANY: 'many'>

A `ONE` predicate holds one current value per subject: its facts share one key (subject +
predicate), so a new value supersedes the old one from its `validFrom` on and the old one is kept
as history for the time before. A `MANY` predicate's facts have a key per value (subject +
predicate + object), so values coexist. A space may declare a rule per predicate; without one,
literal values and the common single-valued predicates below are `ONE`, and relations between
entities are `MANY`. A rule declared after a predicate's facts re-keys them
(`graph.commands.rekeying`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from graph.domain import memory_types as mt
from graph.domain.model import canonical_json
from graph.domain.vocabulary import Cardinality

SINGLE_VALUED = frozenset(
    {
        "AGE",
        "AUTHOR",
        "BIRTH_DATE",
        "BORN_IN",
        "BORN_ON",
        "CAPITAL",
        "CEO",
        "DIED_IN",
        "DIED_ON",
        "EMAIL",
        "EMPLOYER",
        "HEADQUARTERED_IN",
        "HEAD_OF_GOVERNMENT",
        "HEAD_OF_STATE",
        "HQ_IN",
        "JOB_TITLE",
        "LIVES_IN",
        "MANAGER",
        "MARRIED_TO",
        "PHONE",
        "REPORTS_TO",
        "ROLE",
        "SPOUSE",
        "STATUS",
        "TIMEZONE",
        "WORKS_AT",
    }
)
"""Predicates that are `ONE` unless a space declares otherwise (`WORKS_AT`: the current
employer; a second employer at once is a `MANY` rule the space declares)."""

MAX_VALUE_PART = 64


def default_cardinality(predicate: str, *, literal: bool) -> Cardinality:
    """The rule without a declaration: literal values and `SINGLE_VALUED` are `ONE`."""
    return Cardinality.ONE if literal or predicate in SINGLE_VALUED else Cardinality.MANY


def value_part(value: Any) -> str:
    """The key part naming a literal value of a `MANY` predicate: its text when short, else a
    readable head and a digest (so two long values never share a key)."""
    text = value if isinstance(value, str) else canonical_json(value)
    slug = "-".join(text.lower().split()).replace(":", "%3A")
    if 0 < len(slug) <= MAX_VALUE_PART:
        return f"value/{slug}"
    digest = hashlib.sha256(canonical_json(value).encode()).hexdigest()[:16]
    return f"value/{slug[:40]}~{digest}"


def fact_key_under(
    cardinality: Cardinality, subject_key: str, predicate: str, object_key: str | None, value: Any
) -> str:
    """The key a fact derives under `cardinality`: subject + predicate for `ONE`; one more
    part, the object (or the value), for `MANY`."""
    one = mt.fact_key(subject_key, predicate, None)
    if cardinality is Cardinality.ONE:
        return one
    if object_key is not None:
        return mt.fact_key(subject_key, predicate, object_key)
    return f"{one}:{value_part(value)}"
