"""The key of the instruction counts' cache (bench/profile/count_cache.py): the bench sources that
make a count, found by walking their imports, and not the rest of bench/.

A change to the report or the conductor keeps the counts a second clone reuses; a change to what
the measured interpreter runs, or to the driver that starts it, counts again; and the import walk
finds every module the counting modules load, however they import it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import bench_package
import pytest

bench_package.load()

from bench.conduct import launch  # noqa: E402
from bench.profile import count_cache  # noqa: E402

BENCH = bench_package.ROOT / "bench"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the checkout's bench/ (named bench, as the walk reads the package's own name)."""
    return Path(shutil.copytree(BENCH, tmp_path / "bench", ignore=shutil.ignore_patterns("*.pyc")))


def edit(path: Path, line: str) -> None:
    path.write_text(path.read_text() + line + "\n")


def test_the_key_has_the_counting_modules_and_not_the_report() -> None:
    sources = {p.as_posix() for p in count_cache.counting_sources()}
    made = {"conduct/worker.py", "profile/marks.py", "profile/callgrind.py", "catalog/cases.py",
            "core/timing.py", "profile/__init__.py", "store/__init__.py"}  # fmt: skip
    assert {f"bench/{m}" for m in made} <= sources
    not_made = {"bench/report/pages.py", "bench/conduct/conductor.py", "bench/__main__.py",
                "bench/profile/count_cache.py", "bench/profile/bytecode.py"}  # fmt: skip
    assert not sources & not_made
    assert not any(s.startswith(("bench/report/", "bench/product/")) for s in sources)
    assert count_cache.counting_tools()[0] == count_cache.counting_digest()


@pytest.mark.parametrize(
    "changed",
    ["report/pages.py", "report/readme.py", "conduct/conductor.py", "conduct/effort.py",
     "profile/counters.py", "__main__.py"],
)  # fmt: skip
def test_a_change_outside_the_counting_modules_keeps_the_key(copy: Path, changed: str) -> None:
    before = count_cache.counting_digest(copy)
    edit(copy / changed, "# a change that makes no count")
    assert count_cache.counting_digest(copy) == before


@pytest.mark.parametrize(
    "changed",
    ["profile/marks.py", "conduct/worker.py", "profile/callgrind.py", "catalog/cases.py",
     "catalog/targets.py", "core/timing.py", "core/machine.py", "catalog/modes.py",
     "conduct/launch.py", "__init__.py", "profile/__init__.py"],
)  # fmt: skip
def test_a_change_to_a_counting_module_changes_the_key(copy: Path, changed: str) -> None:
    before = count_cache.counting_digest(copy)
    edit(copy / changed, "# a change to what a count runs")
    assert count_cache.counting_digest(copy) != before


@pytest.mark.parametrize(
    ("line", "joined"),
    [
        ("    from ..report import pages", "report/pages.py"),  # relative, in a function
        ("    from ..report.stability import main", "report/stability.py"),
        ("    import bench.product.peers", "product/peers.py"),  # by the package's name
        ("    from bench.conduct import effort", "conduct/effort.py"),
    ],
)
def test_a_module_a_counting_module_comes_to_import_joins_the_key(
    copy: Path, line: str, joined: str
) -> None:
    """However a counting module imports it (inside a function too), the module joins the key,
    and so does what it imports in turn."""
    assert Path("bench", joined) not in count_cache.counting_sources(copy)
    edit(copy / "core/timing.py", f"\n\ndef later() -> None:\n{line}\n")
    assert Path("bench", joined) in count_cache.counting_sources(copy)
    before = count_cache.counting_digest(copy)
    edit(copy / joined, "# now a counting module's")
    assert count_cache.counting_digest(copy) != before
    beyond = count_cache.imports_of(joined.removesuffix(".py").replace("/", "."), copy)
    assert beyond <= set(count_cache.counting_modules(copy))


def test_the_walk_covers_every_bench_module_the_counting_modules_load(tmp_path: Path) -> None:
    """What a worker really loads of bench/ with the counting modules (imported the way the
    worker is, from a folder linking the package) is in the key."""
    folder = launch.import_folder(tmp_path)
    script = (
        "import importlib, json, sys\n"
        f"for name in {list(count_cache.COUNTING)!r}: importlib.import_module('bench.' + name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'bench')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, check=True
    )
    loaded = {m.removeprefix("bench").removeprefix(".") for m in json.loads(done.stdout)}
    assert {"conduct.worker", "profile.marks", "store", "core.timing"} <= loaded
    missing = loaded - set(count_cache.counting_modules())
    assert not missing, f"loaded by the counting modules but not in the key: {sorted(missing)}"


def test_the_walk_reads_relative_imports_from_a_package_and_a_module(copy: Path) -> None:
    assert "store" in count_cache.imports_of("profile", copy)  # ``from .. import store``
    assert {"core.timing", "catalog.targets", "catalog.cases"} <= count_cache.imports_of(
        "profile.marks", copy
    )
    assert "core.machine" in count_cache.imports_of("core.timing", copy)  # ``from .machine``
    with pytest.raises(FileNotFoundError):
        count_cache.imports_of("profile.nothing", copy)
