"""Writing a planned `remember` batch, and the claims it answers with.

Everything goes to Neo4j as one statement (`write_batch.write_all`): the evidence texts'
observations, new entities, supersessions, claim rows, relations, evidence links, display names,
audit events. The answers are built from what was written — no second read of a large batch; a
row replaced again in the same batch is answered `SUPERSEDED` — while stored rows a telling
corroborated, replayed results and rows that got copies of a stored row's evidence are loaded
(only the database has those).

    claims = await write(ctx, planned)
"""

from __future__ import annotations

from graph.commands.remember.plan import PlannedBatch
from graph.commands.revisions import load_claims
from graph.commands.write_batch import write_all
from graph.commands.writing import WriteContext
from graph.domain.model import Claim, EvidenceLink


async def write(ctx: WriteContext, planned: PlannedBatch) -> list[Claim]:
    """Write `planned` in one statement; the claim each item answers with, in order."""
    resolved = planned.resolved
    await write_all(ctx, resolved.inline, planned.rows, planned.evidence, planned.audit)
    copied = {copy["toId"] for copy in planned.evidence.copies}
    written = {row.id: row for row in planned.rows.rows if row.id not in copied}
    by_target = {e.ref.target_id: e for e in resolved.evidence.values()}
    links: dict[str, list[EvidenceLink]] = {}
    for link in planned.evidence.links:
        if link["claimId"] in written:
            cited = by_target[link["targetId"]]
            links.setdefault(link["claimId"], []).append(cited.written_link(link, ctx.now))
    unwritten = [i for i in planned.answers if i not in written]
    loaded = await load_claims(ctx, unwritten) if unwritten else {}
    return [
        written[i].written(ctx.now, links.get(i, [])) if i in written else loaded[i]
        for i in planned.answers
    ]
