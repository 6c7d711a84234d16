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
    # The files longer than a minute of worker time in a two-worker run (`--durations=0`, summed
    # per file, on this 2-core machine under load: about twice an idle machine's), longest first.
    # Update it when a file's time changes much; a file not named here follows them.
    "test_backup.py",  # 1156 s, 884 of them the bulk round trip
    "test_forget_properties.py",  # 508
    "test_write_tiers.py",  # 448
    "test_resurrection.py",  # 465 before restores stopped changing the schema
    "test_bitemporal_properties.py",  # 381
    "test_tier_properties.py",  # 376
    "test_cardinality.py",  # 346
    "test_serve_faults.py",  # 318
    "test_backup_watermark.py",  # 282
    "test_cli.py",  # 271
    "test_import_interrupted.py",  # 245
    "test_local_neo4j.py",  # 158
    "test_readme.py",  # 176 (85 alone): the README's blocks on one server, a restore among them
    "test_api_auth.py",  # 136
    "test_forget_races.py",  # 131
    "test_memory_cli.py",  # 126
    "test_correct.py",  # 98
    "test_browser_chromium.py",  # 93
    "test_stream_ingest.py",  # 89
    "test_request_costs.py",  # 83
    "test_remember_cli.py",  # 82
    "test_meaning.py",  # 77
    "test_scale_runner.py",  # 75
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
