"""The styles tool's distribution (tools/stylebench.py): its stage, its metadata, and the
mechanical rewrite of bench/'s imports it rests on (tools/relative_imports.py). The built
wheel installed and run is nox -s wheels' check and nox -s styles_user's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import bench_package
import pytest

bench_package.load()

TOOLS = bench_package.ROOT / "tools"


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    sys.path.insert(0, str(TOOLS))
    try:
        import stylebench

        return stylebench
    finally:
        sys.path.remove(str(TOOLS))


@pytest.fixture(scope="module")
def rewrite() -> ModuleType:
    sys.path.insert(0, str(TOOLS))
    try:
        import relative_imports

        return relative_imports
    finally:
        sys.path.remove(str(TOOLS))


def test_imports_of_bench_become_relative_to_the_importing_module(rewrite: ModuleType) -> None:
    assert rewrite.relative("bench.catalog.modes", ["bench", "conduct"]) == "..catalog.modes"
    assert rewrite.relative("bench", ["bench", "conduct"]) == ".."
    assert rewrite.relative("bench.store", ["bench"]) == ".store"
    assert rewrite.relative("bench.catalog", ["bench", "catalog"]) == "."
    assert rewrite.relative("bench.conduct.launch", ["bench", "conduct"]) == ".launch"


def test_the_rewrite_keeps_indentation_and_refuses_import_bench(
    rewrite: ModuleType, tmp_path: Path
) -> None:
    module = tmp_path / "bench" / "conduct" / "x.py"
    module.parent.mkdir(parents=True)
    module.write_text("from bench import store\n\ndef f():\n    from bench.core.fmt import grid\n")
    assert rewrite.rewrite(module, tmp_path) == (
        "from .. import store\n\ndef f():\n    from ..core.fmt import grid\n"
    )
    module.write_text("import bench.store\n")
    with pytest.raises(SystemExit, match="cannot be made relative"):
        rewrite.rewrite(module, tmp_path)


def test_the_stage_is_the_package_under_the_tools_name(tool: ModuleType, tmp_path: Path) -> None:
    stage = tool.stage(tmp_path / "stage")
    package = stage / tool.NAME
    assert not (stage / "bench").exists()  # no generic top-level bench in site-packages
    assert (package / "__init__.py").is_file() and (package / "conduct" / "worker.py").is_file()
    assert (package / "_build_cache.py").read_text() == (
        bench_package.ROOT / "build_support" / "cache.py"
    ).read_text()
    assert not list(package.rglob("*.c")) and not list(package.rglob("*.java"))
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    project = tomllib.loads((stage / "pyproject.toml").read_text())["project"]
    assert project["name"] == tool.NAME and project["dependencies"] == []
    assert project["scripts"] == {tool.NAME: f"{tool.NAME}.__main__:entry"}
    assert (stage / "README.md").is_file()


def test_bench_imports_itself_relatively(rewrite: ModuleType) -> None:
    assert rewrite.main(["--check"]) == 0, "run python tools/relative_imports.py"


def test_the_staged_package_imports_under_its_name_alone(tool: ModuleType, tmp_path: Path) -> None:
    stage = tool.stage(tmp_path / "stage")
    code = (
        "import sys, stylebench.__main__, stylebench.report.styles\n"
        "import stylebench.conduct.worker as w\n"
        "assert w.PACKAGE == 'stylebench' and 'bench' not in sys.modules\n"
        "from stylebench.conduct import launch, styles\n"
        "print(launch.PACKAGE, styles.command_name())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(stage)},
    )
    assert done.stdout.split() == ["stylebench", "stylebench"], done.stderr
