"""Evidence: references from a write to observations and artifacts, checked before linking.

Evidence must exist in the writing space and not be erased; its authority must be one the
observation's role allows (a user's message may be `user_stated`, an assistant's may not).

Evidence is at least as private as every claim it is linked to. A claim may rest on material
more private than itself (a `normal` fact from a `secret` contract), never on less: otherwise a
writer at the lower tier, forgetting the material it may read, would strip the support of a
claim above its tier, and a writer may change nothing it cannot read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, LiteralString

from graph.commands.claim_rows import ClaimRow
from graph.commands.references import EvidenceRef
from graph.commands.write_batch import Writes, write_all
from graph.commands.writing import WriteContext
from graph.domain.errors import Forgotten, NotFound, ValidationFailed
from graph.domain.model import ROLE_AUTHORITY, EvidenceLink
from graph.domain.timeutil import to_native
from graph.domain.vocabulary import Authority, EvidenceKind, Privacy, Role

FIND_OBSERVATIONS: LiteralString = """
UNWIND $observationIds AS id
MATCH (o:Observation {id: id})
WHERE o.spaceId = $spaceId AND o.privacy <= $maxPrivacy
RETURN o.id AS id, o.role AS role, toString(o.observedAt) AS observedAt, o.erasedAt AS erasedAt,
       o.episodeId AS episodeId, o.content AS text, null AS locator, o.privacy AS privacy
"""

FIND_ARTIFACTS: LiteralString = """
UNWIND $artifactIds AS id
MATCH (a:Artifact {id: id})
WHERE a.spaceId = $spaceId AND a.privacy <= $maxPrivacy
RETURN a.id AS id, toString(a.recordedAt) AS observedAt, a.erasedAt AS erasedAt, null AS episodeId,
       a.content AS text, a.locator AS locator, a.privacy AS privacy
"""


@dataclass(frozen=True)
class ResolvedEvidence:
    ref: EvidenceRef
    label: str
    authority: Authority
    observed_at: datetime
    privacy: Privacy
    episode_id: str | None = None
    text: str | None = None
    locator: str | None = None

    def written_link(self, link: dict[str, Any], recorded_at: datetime) -> EvidenceLink:
        """The evidence a read would show for `link` (planned by `EvidencePlan.link`), written
        at `recorded_at`."""
        return EvidenceLink(
            kind=EvidenceKind(link["kind"]),
            authority=Authority(link["props"]["authority"]),
            recorded_at=recorded_at,
            note=link["props"]["note"],
            observation_id=self.ref.observation_id,
            artifact_id=self.ref.artifact_id,
            episode_id=self.episode_id,
            text=self.text,
            locator=self.locator,
            observed_at=self.observed_at,
        )


def authority_of(ref: EvidenceRef, role: Role, what: str, field: str) -> Authority:
    """The authority cited: given, or the first the source's role allows; VALIDATION for one
    the role does not allow (an assistant's message is never `user_stated`)."""
    allowed = ROLE_AUTHORITY[role]
    authority = ref.authority or allowed[0]
    if authority not in allowed:
        raise ValidationFailed(
            f"evidence from a {role} {what} cannot have authority {authority} "
            f"(allowed: {', '.join(allowed)})",
            field=f"{field}.authority",
        )
    return authority


def cited_ids(refs: list[tuple[EvidenceRef, str]]) -> tuple[list[str], list[str]]:
    """The observation and artifact ids `(ref, field)` pairs cite (text cites none)."""
    observation_ids = sorted({r.observation_id for r, _ in refs if r.observation_id})
    artifact_ids = sorted({r.artifact_id for r, _ in refs if r.artifact_id})
    return observation_ids, artifact_ids


async def resolve_evidence(
    ctx: WriteContext, refs: list[tuple[EvidenceRef, str]]
) -> dict[str, ResolvedEvidence]:
    """Check every cited observation/artifact (`(ref, field)` pairs, the field naming the
    input in errors); keyed by target id. Evidence text is not looked up here
    (`inline_evidence.record_inline` records it)."""
    observation_ids, artifact_ids = cited_ids(refs)
    observations: list[dict[str, Any]] = []
    artifacts: list[dict[str, Any]] = []
    if observation_ids:
        observations = await ctx.run(FIND_OBSERVATIONS, observationIds=observation_ids)
    if artifact_ids:
        artifacts = await ctx.run(FIND_ARTIFACTS, artifactIds=artifact_ids)
    return resolved_evidence(ctx, refs, observations, artifacts)


def resolved_evidence(
    ctx: WriteContext,
    refs: list[tuple[EvidenceRef, str]],
    observations: list[dict[str, Any]],
    artifacts: list[dict[str, Any]],
) -> dict[str, ResolvedEvidence]:
    """`resolve_evidence` from the rows `FIND_OBSERVATIONS` and `FIND_ARTIFACTS` found."""
    found: dict[str, dict[str, Any]] = {}
    for row in observations:
        found[row["id"]] = {**row, "label": "Observation"}
    for row in artifacts:
        found[row["id"]] = {**row, "label": "Artifact", "role": Role.DOCUMENT.value}
    resolved: dict[str, ResolvedEvidence] = {}
    for ref, field in refs:
        if ref.text is not None:
            continue
        what = "observation" if ref.observation_id else "artifact"
        target = found.get(ref.target_id)
        if target is None:
            raise NotFound(f"no {what} {ref.target_id!r} in space {ctx.space!r}", field=field)
        row = target
        if row["erasedAt"] is not None:
            raise Forgotten(f"{what} {ref.target_id!r} was forgotten", field=field)
        resolved[ref.target_id] = ResolvedEvidence(
            ref,
            row["label"],
            authority_of(ref, Role(row["role"]), what, field),
            to_native(row["observedAt"]),
            Privacy(int(row["privacy"])),
            row.get("episodeId"),
            row.get("text"),
            row.get("locator"),
        )
    return resolved


@dataclass
class EvidencePlan:
    """Evidence edges to create in one transaction."""

    links: list[dict[str, Any]]
    copies: list[dict[str, str]]

    def __init__(self) -> None:
        self.links = []
        self.copies = []

    def link(
        self,
        claim: ClaimRow,
        kind: EvidenceKind,
        evidence: ResolvedEvidence,
        *,
        authority: Authority | None = None,
    ) -> None:
        if evidence.privacy < claim.privacy:
            what = evidence.label.lower()
            raise ValidationFailed(
                f"{what} {evidence.ref.target_id!r} is {evidence.privacy.name.lower()}, less "
                f"private than the claim ({claim.privacy.name.lower()}) it "
                "would support: evidence is at least as private as its claim (record it at the "
                "claim's privacy)",
                field="evidence",
            )
        self.links.append(
            {
                "claimId": claim.id,
                "label": evidence.label,
                "kind": kind.value,
                "targetId": evidence.ref.target_id,
                "props": {
                    "authority": (authority or evidence.authority).value,
                    "note": evidence.ref.note,
                    "spaceId": claim.space_id,
                    "privacy": int(claim.privacy),
                },
            }
        )

    def copy_support(self, old: ClaimRow, to_id: str) -> None:
        """The new row `to_id` keeps the supporting evidence of the row `old` it re-states. A
        stored row's edges are copied when the plan is written (after this plan's own links);
        a row planned in this same transaction has no stored edges to copy, so its planned
        links and the copies into it are repeated for the new row (one Cypher statement would
        not see the edges it creates itself)."""
        from_id = old.id
        if old.recorded_at is not None:
            self.copies.append({"fromId": from_id, "toId": to_id})
            return
        supported = EvidenceKind.SUPPORTED_BY.value
        planned = [k for k in self.links if k["claimId"] == from_id and k["kind"] == supported]
        for link in planned:
            self.links.append({**link, "claimId": to_id, "props": dict(link["props"])})
        for copy in [c for c in self.copies if c["toId"] == from_id]:
            self.copies.append({"fromId": copy["fromId"], "toId": to_id})

    def add_to(self, writes: Writes, ctx: WriteContext) -> None:
        writes.observation_links.extend(k for k in self.links if k["label"] == "Observation")
        writes.artifact_links.extend(k for k in self.links if k["label"] == "Artifact")
        writes.copies.extend(self.copies)

    async def write(self, ctx: WriteContext) -> None:
        await write_all(ctx, self)
