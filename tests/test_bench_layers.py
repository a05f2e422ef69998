"""The layer order ``bench/__init__.py`` promises, read from every import of bench/ (ast).

Each part imports only the parts before it (``bench.LAYERS``), and no module imports one that
imports it back, however indirectly (an import inside a function counts: it is a circle put
off, not undone).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set, Tuple

import bench_package

bench_package.load()

import bench  # noqa: E402

BENCH = bench_package.ROOT / "bench"


def module_of(path: Path) -> str:
    parts = path.relative_to(BENCH.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_of(p): p for p in BENCH.rglob("*.py")}


def imported(path: Path) -> List[Tuple[str, int]]:
    """The bench modules ``path`` imports (anywhere in it), with their lines; a relative
    import (``from ..catalog import modes``, tools/relative_imports.py) by its full name."""
    found = []
    package = module_of(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            # ``from bench.x import y``: the module bench.x.y where there is one, else bench.x
            names = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES
                     else module for a in node.names]  # fmt: skip
        else:
            continue
        found += [(n, node.lineno) for n in names if n.startswith("bench.")]
    return found


def part(module: str) -> str:
    name = module.split(".")[1]
    return bench.PART_OF.get(name, name)


def rank(module: str) -> int:
    """Where the module's part stands in ``bench.LAYERS`` (``__main__``: over them all)."""
    p = part(module)
    return len(bench.LAYERS) if p == "__main__" else bench.LAYERS.index(p)


GRAPH: Dict[str, Set[str]] = {
    m: {n for n, _ in imported(p)} - {m} for m, p in MODULES.items() if m != "bench"
}


def test_every_module_is_in_a_part_of_the_promised_order() -> None:
    parts = {part(m) for m in GRAPH}
    assert parts - {"__main__"} == set(bench.LAYERS)
    for name in bench.LAYERS:
        assert f"``{name}``" in (bench.__doc__ or ""), f"bench/__init__.py does not say {name}"


def test_each_part_imports_only_the_parts_before_it() -> None:
    wrong = [f"{MODULES[m].relative_to(BENCH.parent)}:{line}: {part(m)} imports {n} ({part(n)})"
             for m in GRAPH for n, line in imported(MODULES[m])
             if n in MODULES and n != "bench" and rank(n) > rank(m)]  # fmt: skip
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_one_that_imports_it_back() -> None:
    def reach(start: str) -> Set[str]:
        seen: Set[str] = set()
        todo = [start]
        while todo:
            for n in GRAPH.get(todo.pop(), ()):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen

    circles = sorted(m for m in GRAPH if m in reach(m))
    assert not circles, f"in an import circle: {circles}"


def test_the_report_only_reads_records_and_writes_pages() -> None:
    # report/ starts no process: it imports nothing of conduct/ (launch, the conductor, the
    # workers), nor subprocess; what a study counts after measuring is bench.profile.counters'
    report = {m: p for m, p in MODULES.items() if m != "bench" and part(m) == "report"}
    wrong = [f"{p.relative_to(BENCH.parent)}:{line}: {n}" for m, p in report.items()
             for n, line in imported(p) if part(n) == "conduct"]  # fmt: skip
    assert not wrong, "\n".join(wrong)
    starts = [m for m, p in report.items() if "subprocess" in p.read_text()]
    assert not starts, starts


def test_the_checker_sees_a_wrong_import() -> None:
    # the parser finds function-level imports, and an upward one ranks above
    tree = imported(BENCH / "__main__.py")
    assert any(n == "bench.report.publish" for n, _ in tree)
    assert rank("bench.report.publish") > rank("bench.store") > rank("bench.core.stats")
    assert part("bench.report.stability") == "report"
    assert rank("bench.__main__") == len(bench.LAYERS)


#: The modules that read or write JSON other than result files: the protocol's lines, the list
#: of programs (``--pythons``, a user's to write too), an environment's own stamps in its cache,
#: the installed package's record (``direct_url.json``: whether the install is editable), the
#: interpreters' probes and their cache in the per-user cache (``bench.catalog.discover``).
NOT_RESULTS = {"bench.core.protocol", "bench.conduct.launch", "bench.conduct.envs",
               "bench.product.checks", "bench.catalog.discover"}  # fmt: skip


def test_result_files_and_their_folders_go_through_the_store() -> None:
    def calls(path: Path) -> Set[str]:
        return {f"{n.func.value.id}.{n.func.attr}" for n in ast.walk(ast.parse(path.read_text()))
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)}  # fmt: skip

    json_users = {m for m, p in MODULES.items() if {"json.loads", "json.dumps"} & calls(p)}
    assert json_users - NOT_RESULTS == {"bench.store", "bench.store.kept"}  # runs, kept runs
    makers = {m for m, p in MODULES.items() if "stamp()" in p.read_text()}
    assert makers == {"bench.store", "bench.core.machine"}  # new_folder, and where stamp is
