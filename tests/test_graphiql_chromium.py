"""GraphiQL as a person uses it, offline, in a real headless Chromium: `engram serve --dev`
prints the GraphQL URL; opened, it draws GraphiQL's editor on Engram's example query (not
"Loading…"), runs it against the people story, and asks nothing of any origin but Engram's.

Chromium here resolves no host name but the loopback address (`--host-resolver-rules`), as on a
machine offline; a page that still loaded a CDN would never leave "Loading…". Needs Debian's
`chromium` and `chromium-driver`, as tests/test_browser_chromium.py says.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from api.graphiql_page import EXAMPLE_QUERY
from graph.runtime import Graph, Settings
from tests.people_story import people_story
from tests.support import spawn_serve, until
from tests.test_browser_chromium import CHROMEDRIVER, CHROMIUM

WAIT = 30.0


@pytest.fixture(scope="module")
def offline_chromium() -> Iterator[WebDriver]:
    """Headless Chromium that can reach 127.0.0.1 and no other host."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        pytest.fail(
            f"headless Chromium is needed and {', '.join(missing)} is missing: install Debian's "
            "packages with `apt-get install -y chromium chromium-driver`"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument("--window-size=1400,1000")
    options.add_argument("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    yield driver
    driver.quit()


@pytest.fixture
def served_dev(test_settings: Settings, tmp_path: Path) -> Iterator[list[str]]:
    """`engram serve --dev` on a free port; yields the lines it printed before serving."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(
        ENGRAM_DATA_DIR=str(test_settings.data_dir),
        ENGRAM_CACHE_DIR=str(test_settings.cache_dir),
        ENGRAM_EMBED_INTERVAL="0",
        ENGRAM_BROWSER="false",
    )
    served = spawn_serve(env, tmp_path / "serve.log", "--dev")
    try:
        until(served.started, within=120, failing=served.log.read_text)
        yield served.log.read_text().splitlines()
    finally:
        served.stop()


def _wait(driver: WebDriver, what: str, check: Any) -> Any:
    return WebDriverWait(driver, WAIT).until(check, message=f"waiting for {what}")


def _editor_text(driver: WebDriver, pane: str) -> str:
    text: str = driver.execute_script(
        f"const editor = document.querySelector('{pane} .CodeMirror');"
        "return editor ? editor.CodeMirror.getValue() : '';"
    )
    return text


async def test_graphiql_draws_its_editor_offline_on_the_example_query_and_runs_it(
    graph: Graph, served_dev: list[str], offline_chromium: WebDriver, tmp_path: Path
) -> None:
    await people_story(graph)
    [graphql_line] = [line for line in served_dev if line.startswith("GraphQL  ")]
    url, note = graphql_line.split(maxsplit=2)[1:]
    assert note == "(GraphiQL on)"
    assert any(
        line.startswith("dev mode: GraphiQL and introspection are on; no API key is asked")
        for line in served_dev
    )
    driver = offline_chromium
    driver.get(url)
    _wait(driver, "the query editor", lambda d: _editor_text(d, ".graphiql-query-editor"))
    assert _editor_text(driver, ".graphiql-query-editor") == EXAMPLE_QUERY
    assert "Loading…" not in driver.find_element(By.ID, "graphiql").text
    driver.execute_script("document.querySelector('.graphiql-execute-button').click()")
    _wait(driver, "the answer", lambda d: '"related"' in _editor_text(d, ".graphiql-response"))
    driver.save_screenshot(str(tmp_path / "graphiql.png"))
    answer = json.loads(_editor_text(driver, ".graphiql-response"))
    assert "errors" not in answer
    assert sorted(node["entity"]["name"] for node in answer["data"]["related"]["nodes"]) == [
        "Alice",
        "Carol",
        "Engram",
        "Globex",
    ]

    origin = url.removesuffix("/graphql")
    fetched: list[str] = driver.execute_script(
        "return performance.getEntriesByType('resource').map(entry => entry.name);"
    )
    assert fetched, "the page's own assets and its requests to /graphql"
    assert [name for name in fetched if not name.startswith(origin + "/")] == []
    logged = driver.get_log("browser")
    problems = [entry["message"] for entry in logged if entry["level"] == "SEVERE"]
    assert problems == [], "no refused script, no blocked request, no error"
