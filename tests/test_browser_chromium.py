"""Neo4j Browser as a person uses it, in a real headless Chromium: `engram serve` prints a URL;
opened, it has the user preset and Engram's guide playing; after connecting with the password,
the guide's slides draw entities by name and the current graph without superseded edges.

Needs Debian's `chromium` and `chromium-driver` (/usr/bin): `scripts/test` installs them when it
runs as root with apt; elsewhere this test fails and says how to get them. Selenium drives the
system chromedriver and never downloads a browser or a driver.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from api.browser_guide_page import KIND_STYLES
from graph.domain.actor import Actor
from graph.domain.vocabulary import SelectorKind
from graph.memory import ForgetInput, Memory, Selector
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.story import Story, new_story
from tests.support import spawn_serve, until

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WAIT = 30.0
PERSON, ORG = KIND_STYLES["Person"][0], KIND_STYLES["Org"][0]


@pytest.fixture(scope="module")
def chromium() -> Iterator[WebDriver]:
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        pytest.fail(
            f"headless Chromium is needed and {', '.join(missing)} is missing: install Debian's "
            "packages with `apt-get install -y chromium chromium-driver` (scripts/test does it "
            "when run as root with apt)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument("--window-size=1400,1000")
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    yield driver
    driver.quit()


@pytest.fixture
def served(test_settings: Settings, tmp_path: Path) -> Iterator[str]:
    """`engram serve` (with Neo4j Browser) on a free port; yields the Browser URL it printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(
        ENGRAM_DATA_DIR=str(test_settings.data_dir),
        ENGRAM_CACHE_DIR=str(test_settings.cache_dir),
        ENGRAM_EMBED_INTERVAL="0",
    )
    served = spawn_serve(env, tmp_path / "serve.log", "--dev")
    try:
        until(served.started, within=120, failing=served.log.read_text)
        [url] = [
            line.split()[1]
            for line in served.log.read_text().splitlines()
            if line.startswith("Browser  ")
        ]
        yield url
    finally:
        served.stop()


async def small_story(graph: Graph) -> Story:
    """Alice and Bob work at Acme; Alice's job there is corrected to end, so its first revision
    is superseded; Alice then works at Globex."""
    story = await new_story(graph, "alice")
    for key, name in [
        ("entity:person:alice", "Alice"),
        ("entity:person:bob", "Bob"),
        ("entity:org:acme", "Acme Corp"),
        ("entity:org:globex", "Globex"),
    ]:
        await story.entity(key, name)
    claims = {}
    for source, target, year in [("alice", "acme", 2020), ("bob", "acme", 2019)]:
        said = await story.say(f"{source} works at {target}")
        claims[source] = await story.remember(
            said,
            type="fact",
            subject={"key": f"entity:person:{source}"},
            predicate="WORKS_AT",
            object={"key": f"entity:org:{target}"},
            valid_from=f"{year}-01-01T00:00:00Z",
        )
    await story.correct(
        claim_id=claims["alice"].id,
        kind="SUPERSEDE",
        valid_to="2023-06-30T00:00:00Z",
        reason="she left",
        evidence=[{"observation_id": await story.say("alice left Acme in June 2023")}],
    )
    said = await story.say("alice works at Globex")
    await story.remember(
        said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"key": "entity:org:globex"},
        valid_from="2023-07-01T00:00:00Z",
    )
    return story


def _wait(driver: WebDriver, what: str, check: Any) -> Any:
    return WebDriverWait(driver, WAIT).until(check, message=f"waiting for {what}")


def _run_block(driver: WebDriver, text_start: str) -> None:
    """Click the play icon of the guide's runnable block that starts with `text_start`."""
    frames_before = len(driver.find_elements(By.CSS_SELECTOR, '[data-testid="frame"]'))

    def block(d: WebDriver) -> WebElement | None:
        for pre in d.find_elements(By.CSS_SELECTOR, "pre.runnable"):
            if pre.get_attribute("textContent").strip().startswith(text_start):  # type: ignore[union-attr]
                return pre
        return None

    pre = _wait(driver, f"the block {text_start!r}", block)
    driver.execute_script("arguments[0].querySelector('i').click()", pre)
    _wait(
        driver,
        f"a frame for {text_start!r}",
        lambda d: len(d.find_elements(By.CSS_SELECTOR, '[data-testid="frame"]')) > frames_before,
    )


def _next_slide(driver: WebDriver, title: str) -> None:
    # Clicked from script: a banner or the frames above may cover the button on screen.
    next_button = driver.find_element(By.CSS_SELECTOR, '[data-testid="nextSlide"]')
    driver.execute_script("arguments[0].click()", next_button)
    _wait(driver, f"the slide {title!r}", lambda d: title in d.page_source)


def _field(driver: WebDriver, test_id: str) -> WebElement:
    return driver.find_element(By.CSS_SELECTOR, f'[data-testid="{test_id}"]')


def _newest_frame(driver: WebDriver) -> WebElement:
    return driver.find_element(By.CSS_SELECTOR, '[data-testid="frame"]')


def _drawn(driver: WebDriver) -> dict[str, str]:
    """The nodes drawn in the newest frame: caption → fill colour, once every node drawn has its
    caption and two looks in a row see the same (the force layout places the captions)."""
    last: dict[str, str] = {}

    def settled(d: WebDriver) -> dict[str, str] | Literal[False]:
        nonlocal last
        now = _captions(d)
        done = bool(now) and "" not in now and now == last
        last = now
        return now if done else False

    found: dict[str, str] = WebDriverWait(
        driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)
    ).until(settled, message="waiting for a drawn graph with its captions placed")
    return found


def _captions(driver: WebDriver) -> dict[str, str]:
    shown = {}
    for node in _newest_frame(driver).find_elements(By.CSS_SELECTOR, "svg g.node"):
        texts = node.find_elements(By.TAG_NAME, "text")
        caption = " ".join(t.get_attribute("textContent") or "" for t in texts).strip()
        body = node.find_element(By.CSS_SELECTOR, "circle.b-outline")
        shown[caption] = (body.get_attribute("fill") or "").upper()
    return shown


def _relationships(driver: WebDriver) -> int:
    return len(_newest_frame(driver).find_elements(By.CSS_SELECTOR, "svg g.relationship"))


def _table(driver: WebDriver, expected: str) -> str:
    """The text of the newest frame once it shows `expected`."""
    _wait(driver, f"a table with {expected!r}", lambda d: expected in _newest_frame(d).text)
    return _newest_frame(driver).text


async def test_the_printed_browser_url_plays_the_guide_and_draws_the_current_graph_by_name(
    memory: Memory,
    graph: Graph,
    neo4j_target: Neo4jTarget,
    test_settings: Settings,
    served: str,
    chromium: WebDriver,
    tmp_path: Path,
) -> None:
    story = await small_story(graph)
    secret = await story.say("my bank PIN is 4321")
    await memory.forgetting.forget(
        Actor.operator("test"),
        "alice",
        ForgetInput(selector=Selector(kind=SelectorKind.OBSERVATION, id=secret), reason="asked"),
    )
    driver = chromium
    driver.get(served)
    port = neo4j_target.uri.rsplit(":", 1)[1]
    # The form is ready once Browser has read the Bolt address from the URL (a discovery step).
    _wait(
        driver,
        "the connect form with Engram's Bolt address",
        lambda d: port in (_field(d, "boltaddress").get_attribute("value") or ""),
    )
    assert _field(driver, "username").get_attribute("value") == "neo4j", "the user is preset"
    _field(driver, "password").send_keys(neo4j_target.password or "")
    driver.execute_script("arguments[0].click()", _field(driver, "connect"))
    _wait(driver, "the connection", lambda d: "You are connected as user" in d.page_source)
    _wait(driver, "the guide", lambda d: "Engram in Neo4j Browser" in d.page_source)
    for block in (":style", ":config", ":params"):
        _run_block(driver, block)

    _next_slide(driver, "A space's current graph")
    _run_block(driver, "MATCH (s:Space {name: $space})")
    current = _drawn(driver)
    driver.save_screenshot(str(tmp_path / "browser-current-graph.png"))
    assert current == {
        "Alice": PERSON,
        "Bob": PERSON,
        "Acme Corp": ORG,
        "Globex": ORG,
    }, "names, not ids, coloured by kind"
    assert _relationships(driver) == 2, "Alice→Globex, Bob→Acme: no superseded or ended job"

    _next_slide(driver, "One person's neighbourhood as of a date")
    _run_block(driver, "MATCH (s:Space {name: $space})")
    assert set(_drawn(driver)) == {"Alice", "Acme Corp", "Bob"}, "as the world was in mid-2022"
    assert _relationships(driver) == 2

    _next_slide(driver, "The evidence behind a relation")
    _run_block(driver, "MATCH (s:Space {name: $space})")
    assert {"Alice", "Acme Corp"} <= set(_drawn(driver))
    assert len(_drawn(driver)) == 5, "Alice, Acme, the claim and its two observations"

    _next_slide(driver, "What was known before a correction")
    _run_block(driver, "MATCH (s:Space {name: $space})")
    assert set(_drawn(driver)) == {"Alice", "Acme Corp"}, "Globex was learned after it"
    assert _relationships(driver) == 1, "the superseded Acme edge is back, as it was known then"

    _next_slide(driver, "A relation's history")
    _run_block(driver, "MATCH (s:Space {name: $space})")
    assert "2023-06-30T00:00:00Z" in _table(driver, "she left")

    _next_slide(driver, "What a tombstone records")
    _run_block(driver, "MATCH (s:Space {name: $space})")
    assert "4321" not in _table(driver, "OBSERVATION")
