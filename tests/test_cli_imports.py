"""The command line's modules import one another without a circle.

Two checks: the graph of every import between ``variants.cli`` modules (as
written, ``TYPE_CHECKING`` blocks and function bodies included) has no cycle;
and each module imports on its own in a fresh interpreter, without the
package's ``__init__`` having imported the others first. And the discipline
that keeps the command's fixed cost down: a plain run (hash files, print their
lines) imports nothing that only another mode or API needs.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Set

import pytest

import variants.cli

PACKAGE = "variants.cli"
FOLDER = Path(variants.cli.__file__).parent
MODULES = sorted(path.stem for path in FOLDER.glob("*.py") if path.stem != "__init__")


def imported(module: str) -> Set[str]:
    """The ``variants.cli`` modules that ``module`` imports anywhere in its source."""
    tree = ast.parse((FOLDER / f"{module}.py").read_text())
    found: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(name[len(PACKAGE) + 1 :] for name in names if name.startswith(PACKAGE + "."))
    return found & set(MODULES)


def cycle(graph: Dict[str, Set[str]]) -> List[str]:
    """A cycle in ``graph`` as a path that ends where it starts, or [] if there is none."""
    done: Set[str] = set()

    def visit(node: str, path: List[str]) -> List[str]:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return []
        for following in sorted(graph[node]):
            found = visit(following, [*path, node])
            if found:
                return found
        done.add(node)
        return []

    for node in sorted(graph):
        found = visit(node, [])
        if found:
            return found
    return []


def test_the_cycle_finder_finds_one() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_no_module_imports_itself_back() -> None:
    graph = {module: imported(module) for module in MODULES}
    assert graph["output"] >= {"streams", "progress"}  # (the graph is read at all)
    assert cycle(graph) == []


def test_streams_import_no_other_cli_module() -> None:
    assert imported("streams") == set()


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_alone(module: str) -> None:
    """With the package's ``__init__`` left out, importing the module imports only what it
    needs, in its own order: an import circle fails here (a partly initialised module)."""
    code = textwrap.dedent(
        f"""
        import importlib, sys, types
        package = types.ModuleType({PACKAGE!r})
        package.__path__ = [{str(FOLDER)!r}]
        sys.modules[{PACKAGE!r}] = package
        importlib.import_module({PACKAGE!r} + "." + {module!r})
        print(" ".join(sorted(m for m in sys.modules if m.startswith({PACKAGE!r} + "."))))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    loaded = {name[len(PACKAGE) + 1 :] for name in result.stdout.split()}
    assert module in loaded


#: What a plain run of the command line (hash files, print their lines) must not import:
#: each is for another mode (``-c``, ``--list-variants``), another API (columns), or a
#: corner of one (json: the build's record; sysconfig: the
#: free-threaded build's question; hashlib: the fallback; locale, and re with it: a file
#: name to quote in a message), or only for type checkers (typing: ``variants._typing``),
#: and costs every run its import.
NOT_FOR_A_PLAIN_RUN = {
    "typing",
    "re",
    "locale",
    "variants.cli.check",
    "variants.cli.listing",
    "variants._column",
    "json",
    "sysconfig",
    "hashlib",
    "concurrent.futures",
}


def modules_after(argv: List[str], tmp_path: Path) -> Set[str]:
    """The modules a fresh interpreter holds after ``variants.cli.main(argv)``, which must
    exit 0 and print a line per file."""
    code = textwrap.dedent(
        f"""
        import sys
        from variants.cli import main
        status = main({argv!r})
        sys.stdout.flush()
        print("\\nMODULES", " ".join(sorted(sys.modules)))
        sys.exit(status)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    return set(lines[-1].split()[1:])


def stdlib_for_threads() -> Set[str]:
    """The modules a fresh interpreter holds after importing threading and queue."""
    code = "import sys, threading, queue; print(' '.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


def test_a_plain_run_imports_only_what_it_needs(tmp_path: Path) -> None:
    names = []
    for i in range(3):
        (tmp_path / f"f{i}").write_bytes(bytes(range(i * 50)))
        names.append(f"f{i}")
    loaded = modules_after(["-a", "md5", *names], tmp_path)
    assert "variants.cli.compute" in loaded  # (the run ran)
    # What the threads a run needs bring in this interpreter is not the run's to avoid (PyPy
    # 3.9's threading imports re).
    assert (loaded - stdlib_for_threads()) & NOT_FOR_A_PLAIN_RUN == set()
    # what it needs for another mode it imports then
    listed = modules_after(["--list-variants"], tmp_path)
    assert "variants.cli.listing" in listed and "variants.cli.check" not in listed


def test_checking_imports_the_checker(tmp_path: Path) -> None:
    import hashlib

    (tmp_path / "f").write_bytes(b"abc")
    (tmp_path / "sums").write_text(f"{hashlib.md5(b'abc').hexdigest()}  f\n")
    loaded = modules_after(["-c", "sums"], tmp_path)
    assert "variants.cli.check" in loaded and "variants._column" not in loaded
