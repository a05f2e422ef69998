"""The compiled variants are really compiled, and their sources are the interpreted ones."""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import sys
import types
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

from variants import _catalog, registry
from variants._shell import ALGORITHMS

from conftest import jdk_pattern, load_or_skip, source_tool

COMPILED = [v.name for v in registry.VARIANTS if v.kind == "compiled"]
INTERPRETED = [v.name for v in registry.VARIANTS if v.kind == "interpreted"]


def is_extension(path: str) -> bool:
    return any(path.endswith(suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES)


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_variants_run_from_extension_modules(name: str) -> None:
    loaded = load_or_skip(name)
    for module in loaded.modules:
        assert module.__file__ and is_extension(module.__file__), module.__file__
        # no .py of the twin may shadow or stand beside the extension
        assert (
            not Path(module.__file__).with_name(module.__name__.rsplit(".", 1)[1] + ".py").exists()
        )
    for compress in loaded.compress.values():
        assert not isinstance(compress, types.FunctionType)  # not a Python function


@pytest.mark.parametrize("name", INTERPRETED)
def test_interpreted_variants_run_from_python_source(name: str) -> None:
    loaded = load_or_skip(name)
    for module in loaded.modules:
        assert module.__file__ and module.__file__.endswith(".py"), module.__file__


@pytest.mark.parametrize("name", COMPILED)
def test_twin_sources_are_the_interpreted_ones(name: str) -> None:
    """A twin's registered source variant provides the same algorithms."""
    entry = registry.variant(name)
    if entry.source is not None:
        assert registry.variant(entry.source).kind == "interpreted"
        assert set(entry.algorithms) == set(registry.variant(entry.source).algorithms)


def test_twins_are_unavailable_off_cpython_with_a_reason() -> None:
    if sys.implementation.name == "cpython":
        pytest.skip("CPython builds the twins")
    for name in COMPILED:
        reason = registry.status(name)
        assert reason is not None and sys.implementation.name in reason


def _code_without_annotations(text: str) -> str:
    """The module's code, as an AST dump, without docstrings, bare annotations and their import."""

    class Strip(ast.NodeTransformer):
        def visit_AnnAssign(self, node: ast.AnnAssign) -> Optional[ast.AST]:
            return None if node.value is None else node

        def visit_ImportFrom(self, node: ast.ImportFrom) -> Optional[ast.AST]:
            return None if node.module == "mypy_extensions" else node

        def visit_Expr(self, node: ast.Expr) -> Optional[ast.AST]:
            docstring = isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            return None if docstring else node

    return ast.dump(Strip().visit(ast.parse(text)))


@pytest.mark.parametrize("twin", [t for t in _catalog.TWINS if t.annotations], ids=str)
def test_annotated_twins_compile_their_sources_with_annotations_only(twin: _catalog.Twin) -> None:
    """The copies an annotated twin compiles are its source's modules plus annotations
    (the build renders them), and they compute the same when interpreted."""
    generator = source_tool("gen_streamlined.py")
    for core, module in _catalog.source(twin.source).modules.items():
        plain = importlib.import_module(f"variants.{module}")
        assert plain.__file__ is not None
        committed = Path(plain.__file__).read_text()
        text = generator.annotated(Path(plain.__file__).name, twin.annotations)
        assert text != committed and f": {twin.annotations}" in text
        assert _code_without_annotations(text) == _code_without_annotations(committed)
        namespace: Dict[str, Any] = {}
        exec(compile(text, f"<{module}, annotated>", "exec"), namespace)
        data = memoryview(jdk_pattern(64 * 40))
        iv = ALGORITHMS[core].iv
        assert namespace["compress"](iv, data) == plain.compress(iv, data)
