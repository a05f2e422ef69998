"""The compiled variants are really compiled, and their sources are the interpreted ones."""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
from pathlib import Path
from typing import Tuple

import pytest

from variants import registry
from variants._tables import MD5_IV, SHA256_IV

from conftest import jdk_pattern, load_or_skip

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


@pytest.mark.parametrize(
    ("annotated", "plain", "iv"),
    [("md5_i64", "md5_bytes", MD5_IV), ("sha256_i64", "sha256_bytes", SHA256_IV)],
)
def test_native_int_sources_agree_when_interpreted(
    annotated: str, plain: str, iv: Tuple[int, ...]
) -> None:
    """The i64 annotations change nothing for the interpreter."""
    pytest.importorskip("mypy_extensions")
    typed = importlib.import_module(f"variants.streamlined.{annotated}")
    untyped = importlib.import_module(f"variants.streamlined.{plain}")
    data = memoryview(jdk_pattern(64 * 40))
    assert typed.compress(iv, data) == untyped.compress(iv, data)
    assert typed.__file__ is not None and typed.__file__.endswith(".py")
