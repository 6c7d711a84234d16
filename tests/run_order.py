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
    # The files over 20 s of worker time in a clean two-worker run on this idle 2-core machine
    # (`--durations=0`, summed per file, 987 tests in 12:50), longest first. Update it when a
    # file's time changes much; a file not named here follows them.
    "test_backup.py",  # 192 s
    "test_serve_faults.py",  # 117
    "test_forget_properties.py",  # 106
    "test_write_tiers.py",  # 98
    "test_resurrection.py",  # 96
    "test_readme.py",  # 78
    "test_export.py",  # 72 (18 alone: one run's import was slow)
    "test_local_neo4j.py",  # 71
    "test_request_costs.py",  # 42
    "test_backup_watermark.py",  # 41
    "test_meaning.py",  # 39
    "test_scale_runner.py",  # 36
    "test_serve_workers.py",  # ~35 alone (one `engram serve --workers 2`)
    "test_api_auth.py",  # 28
    "test_stream_ingest.py",  # 27
    "test_browser_chromium.py",  # 26
    "test_correct.py",  # 24
    "test_told_facts_api.py",  # 23
    "test_forget_races.py",  # 23
    "test_meaning_spaces.py",  # 21
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
