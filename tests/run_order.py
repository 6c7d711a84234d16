"""The order the test files are handed to the two workers: the longest first.

`./scripts/test` keeps a file's tests on one worker (`--dist loadfile`) and passes
`--no-loadscope-reorder`, so xdist deals the files out in collection order; `by_length` (called by
`tests/conftest.py`) sorts the collection to put the files below first, longest first, then the
rest by their number of tests. xdist's own order (by number of tests) handed out the few-test,
long files — property tests, the ingest, the servers started by the CLI and browser tests — last,
and one worker ran on alone for minutes at the end of the run.
"""

from __future__ import annotations

from collections import Counter

import pytest

LONGEST_FIRST = (
    # The long files of a two-worker run, longest first (from `--durations=0` on this 2-core
    # machine); update when a file's time changes much. A file not named here follows them.
    "test_backup.py",
    "test_resurrection.py",
    "test_write_tiers.py",
    "test_forget_properties.py",
    "test_tier_properties.py",
    "test_forget_races.py",
    "test_cardinality.py",
    "test_stream_ingest.py",
    "test_bitemporal_properties.py",
    "test_scale_runner.py",
    "test_serve_faults.py",
    "test_two_processes.py",
    "test_browser_chromium.py",
    "test_graphiql_chromium.py",
    "test_correct.py",
)


def by_length(items: list[pytest.Item]) -> None:
    """Sort `items` in place: the files of LONGEST_FIRST in its order, then the others by their
    number of tests (most first), each file's tests kept in their own order."""
    tests_in = Counter(item.path.name for item in items)
    first = {name: place for place, name in enumerate(LONGEST_FIRST)}

    def rank(item: pytest.Item) -> tuple[int, int, str]:
        name = item.path.name
        if name in first:
            return (0, first[name], name)
        return (1, -tests_in[name], name)

    items.sort(key=rank)
