"""The benches run from the install `scripts/serve` makes plus the `bench` extra, as the README
says: every package a bench module imports is a runtime dependency or in that extra, never a
test-only one."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parent.parent
OWN = {"graph", "api", "bench", "migrations"}


def _distribution(requirement: str) -> str:
    found = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert found is not None
    return found[0].lower().replace("_", "-")


def imported_top_levels(directory: Path) -> set[str]:
    names: set[str] = set()
    for path in directory.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - OWN - set(sys.stdlib_module_names) - {"__future__"}


def test_every_package_a_bench_imports_comes_with_the_serve_install_or_the_bench_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_distribution(r) for r in project["dependencies"]}
    declared |= {_distribution(r) for r in project["optional-dependencies"]["bench"]}
    providers = metadata.packages_distributions()
    missing = {
        module: providers.get(module)
        for module in sorted(imported_top_levels(ROOT / "bench"))
        if not {_distribution(d) for d in providers.get(module, [])} & declared
    }
    assert missing == {}


def test_the_bench_extra_is_what_the_graphql_variants_the_soak_and_the_scale_plot_need() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["bench"] == [
        "httpx==0.28.1",
        "httpx2==2.16.2",
        "matplotlib==3.11.2",
    ]
    assert {"httpx", "httpx2", "matplotlib"} <= imported_top_levels(ROOT / "bench")
    assert ".venv/bin/pip install --editable '.[bench]'" in (ROOT / "README.md").read_text()
