"""How a person reads the domain's records: dates, valid intervals, quotes, evidence order — the
words the Markdown export and `engram explain` share."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, time

from graph.domain.model import Claim, EvidenceLink
from graph.domain.vocabulary import EvidenceKind

QUOTE_CHARS = 280


def when(value: datetime) -> str:
    """A date, with the time of day only when it is not midnight UTC."""
    value = value.astimezone(UTC)
    if value.time() == time(0, 0):
        return value.date().isoformat()
    return value.strftime("%Y-%m-%d %H:%M UTC")


def interval(claim: Claim) -> str:
    """` — valid 2020-01-01 – 2023-06-30`, ` — valid from 2020-01-01`, or nothing."""
    if claim.valid_from is None and claim.valid_to is None:
        return ""
    if claim.valid_to is None:
        return f" — valid from {when(claim.valid_from)}" if claim.valid_from else ""
    start = when(claim.valid_from) if claim.valid_from else "…"
    return f" — valid {start} – {when(claim.valid_to)}"


def quote(text: str) -> str:
    """One line of text, clipped, in typographic quotes."""
    flat = " ".join(text.split())
    if len(flat) > QUOTE_CHARS:
        flat = flat[: QUOTE_CHARS - 1].rstrip() + "…"
    return f"“{flat}”"


def supported_first(links: Iterable[EvidenceLink]) -> list[EvidenceLink]:
    """Evidence in reading order: what supports a claim, then what contradicts or corrects it,
    each oldest observation first."""
    return sorted(
        links,
        key=lambda link: (
            link.kind is not EvidenceKind.SUPPORTED_BY,
            link.observed_at or link.recorded_at,
            link.kind,
        ),
    )
