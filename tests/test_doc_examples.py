"""The `>>>` examples in the docstrings run as written (doctest): the modules whose examples are
pure. Other modules show their examples as plain code, not as doctests. Pure: no Neo4j."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parents[1]
WITH_EXAMPLES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for folder in ("graph", "api")
    for path in (ROOT / folder).rglob("*.py")
    if ">>>" in path.read_text()
)


def test_the_modules_with_doctests_are_the_pure_ones_listed_here() -> None:
    assert WITH_EXAMPLES == [
        "graph.domain.actor",
        "graph.domain.cardinality",
        "graph.domain.timeutil",
        "graph.domain.vocabulary",
        "graph.meaning.embeddings",
        "graph.reads.search_words",
        "graph.store.clock",
        "graph.store.local.browser_settings",
        "graph.store.settings",
    ]


@pytest.mark.parametrize("module", WITH_EXAMPLES)
def test_the_examples_in_a_modules_docstrings_run_as_written(module: str) -> None:
    outcome = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert outcome.attempted > 0
    assert outcome.failed == 0
