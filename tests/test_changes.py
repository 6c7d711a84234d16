"""`changes`: what began, ended or was corrected between two instants — in valid time ("what
changed about Mara in 2022") or recorded time ("what did we learn since yesterday") — and
forgettings as tombstones only, over GraphQL and from a terminal."""

from __future__ import annotations

from typing import Any

import httpx

from graph.runtime import Neo4jTarget, Settings
from tests.http import gql
from tests.support import engram_env, run_engram

CHANGES = """
query($from: DateTime!, $to: DateTime!, $axis: Axis!, $about: EntityRefInput, $knownAt: DateTime) {
  changes(space: "mara", from: $from, to: $to, axis: $axis, about: $about, knownAt: $knownAt) {
    changes { kind at claim { text status } previous { text status }
              forgotten { selectorKind claims observations entities } }
    truncated
  }
}
"""


def job(org: str, start: str, end: str | None = None) -> dict[str, Any]:
    return {
        "type": "FACT",
        "subject": {"name": "Mara Lind", "kind": "PERSON"},
        "predicate": "WORKS_AT",
        "object": {"name": org, "kind": "ORG"},
        "validFrom": start,
        "validTo": end,
        "evidence": [{"text": f"Mara: {org} from {start[:7]}"}],
    }


async def remember(client: httpx.AsyncClient, *items: dict[str, Any]) -> list[dict[str, Any]]:
    answer = await gql(
        client,
        """mutation($inputs: [RememberInput!]!) { rememberMany(space: "mara", inputs: $inputs) {
             claims { id recordedAt } errors { code message } } }""",
        {"inputs": list(items)},
    )
    assert answer["data"]["rememberMany"]["errors"] == [], answer
    return answer["data"]["rememberMany"]["claims"]  # type: ignore[no-any-return]


async def changes(client: httpx.AsyncClient, **variables: Any) -> list[tuple[Any, ...]]:
    answer = await gql(client, CHANGES, variables)
    assert "errors" not in answer, answer
    found = []
    for change in answer["data"]["changes"]["changes"]:
        said = change["claim"]["text"] if change["claim"] else change["forgotten"]
        found.append((change["kind"], change["at"][:10], said))
    return found


async def test_what_changed_about_mara_in_valid_time_follows_her_timeline_whatever_the_order(
    client: httpx.AsyncClient,
) -> None:
    await gql(client, 'mutation { createSpace(name: "mara") { space { id } } }')
    await remember(client, job("Globex", "2024-03-01T00:00:00Z"))
    await remember(
        client,
        job("Acme", "2020-01-01T00:00:00Z"),
        job("Initech", "2022-01-01T00:00:00Z", "2022-07-01T00:00:00Z"),
    )
    in_2022 = await changes(
        client,
        **{"from": "2022-01-01T00:00:00Z", "to": "2023-01-01T00:00:00Z"},
        axis="VALID",
        about={"name": "Mara Lind"},
    )
    assert in_2022 == [
        ("ENDED", "2022-01-01", "Mara Lind works at Acme"),
        ("BEGAN", "2022-01-01", "Mara Lind works at Initech"),
        ("ENDED", "2022-07-01", "Mara Lind works at Initech"),
        ("BEGAN", "2022-07-01", "Mara Lind works at Acme"),
    ]
    all_time = await changes(
        client,
        **{"from": "2000-01-01", "to": "2100-01-01"},
        axis="VALID",
        about={"name": "Mara Lind"},
    )
    assert [(kind, at) for kind, at, _ in all_time][-2:] == [
        ("ENDED", "2024-03-01"),
        ("BEGAN", "2024-03-01"),
    ]


async def test_what_was_learned_corrected_and_forgotten_in_recorded_time(
    client: httpx.AsyncClient,
) -> None:
    await gql(client, 'mutation { createSpace(name: "mara") { space { id } } }')
    [acme] = await remember(client, job("Acme", "2020-01-01T00:00:00Z"))
    since = acme["recordedAt"]
    await remember(client, job("Acme", "2020-01-01T00:00:00Z", "2023-01-01T00:00:00Z"))
    [secret] = await remember(
        client, {**job("Globex", "2023-02-01T00:00:00Z"), "privacy": "SECRET"}
    )
    forgot = await gql(
        client,
        """mutation($id: ID!) { forget(space: "mara", selector: {kind: CLAIM, id: $id},
             reason: "asked") { errors { code } } }""",
        {"id": secret["id"]},
    )
    assert forgot["data"]["forget"]["errors"] == []
    learned = await changes(
        client, **{"from": since, "to": "2100-01-01T00:00:00Z"}, axis="RECORDED"
    )
    kinds = [(kind, said) for kind, _, said in learned]
    assert ("BEGAN", "Mara Lind works at Acme") in kinds
    assert ("CORRECTED", "Mara Lind works at Acme") in kinds, "the telling that replaced it"
    [forgotten] = [said for kind, _, said in learned if kind == "FORGOTTEN"]
    assert forgotten == {
        "selectorKind": "CLAIM",
        "claims": 1,
        "observations": 1,
        "entities": 1,
    }, "how many went, never what"
    assert all("Globex" not in str(said) for _, _, said in learned)
    about = await changes(
        client,
        **{"from": since, "to": "2100-01-01T00:00:00Z"},
        axis="RECORDED",
        about={"name": "Mara Lind"},
    )
    assert "FORGOTTEN" not in [kind for kind, _, _ in about], "no tombstone about anyone"


async def test_engram_changes_prints_what_began_and_ended_from_a_terminal(
    client: httpx.AsyncClient, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    await gql(client, 'mutation { createSpace(name: "mara") { space { id } } }')
    await remember(
        client, job("Globex", "2024-03-01T00:00:00Z"), job("Acme", "2020-01-01T00:00:00Z")
    )
    env = engram_env(test_settings, neo4j_target)
    done = run_engram(
        env,
        "changes",
        "--space",
        "mara",
        "--from",
        "2024-01",
        "--to",
        "2025-01-01",
        "--axis",
        "valid",
        "--about",
        "Mara Lind",
    )
    assert (done.returncode, done.stderr) == (0, "")
    header, ended, began = done.stdout.splitlines()
    assert header == ("2 changes in mara, 2024-01-01 – 2025-01-01 (valid time, known at now)")
    assert ended.startswith(
        "2024-03-01  ENDED      Mara Lind works at Acme — valid from 2020-01-01"
    )
    assert began.startswith(
        "2024-03-01  BEGAN      Mara Lind works at Globex — valid from 2024-03-01"
    )
