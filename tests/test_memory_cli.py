"""`engram search` finds a space's visible claims from a terminal; `engram forget` erases what
one selector names, and the next search no longer finds it."""

from __future__ import annotations

from graph.runtime import Graph, Neo4jTarget, Settings
from tests.story import new_story
from tests.support import engram_env, run_engram


async def test_search_then_forget_from_a_terminal(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    story = await new_story(graph)
    said = await story.say("I prefer a dark theme in every editor")
    theme = await story.remember(said, key="pref:ui:theme", value={"value": "dark"})
    env = engram_env(test_settings, neo4j_target)

    found = run_engram(env, "search", "dark theme", "--space", "alice")
    assert (found.returncode, found.stderr) == (0, "")
    [line] = found.stdout.splitlines()
    score, rest = line.split("  ", 1)
    assert float(score) > 0
    assert (
        rest
        == f"pref:ui:theme (revision 1, active)  {' '.join(theme.text.split())}  [text, evidence]"
    )

    public = run_engram(env, "search", "dark theme", "--space", "alice", "--tier", "public")
    assert (public.returncode, public.stdout) == (0, "no visible claim matches\n")

    both = run_engram(
        env,
        "forget",
        "--space",
        "alice",
        "--claim",
        theme.id,
        "--observation",
        said,
        "--reason",
        "x",
    )
    assert both.returncode == 2
    assert "name exactly one of --claim" in both.stderr

    forgot = run_engram(
        env, "forget", "--space", "alice", "--claim", theme.id, "--reason", "she asked"
    )
    assert (forgot.returncode, forgot.stderr) == (0, "")
    assert forgot.stdout.startswith("forgot (1 claims, 1 observations); 0 claims left without")

    again = run_engram(env, "search", "dark theme", "--space", "alice")
    assert (again.returncode, again.stdout) == (0, "no visible claim matches\n")
