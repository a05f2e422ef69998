"""Parametrization over the registry: every registered variant, every algorithm it provides.

A variant that cannot be imported here is skipped with its reason, unless the
environment requires every variant (VARIANTS_REQUIRE_ALL=1, as CI sets) and the
variant is meant to run on this interpreter: then its tests fail.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Callable, List, Tuple

import pytest

from variants import registry
from variants._shell import Constructor
from variants.native import Bridge

__all__ = [
    "BRIDGES",
    "SOURCE_ROOT",
    "Constructor",
    "bridge_module",
    "jdk_pattern",
    "load_or_skip",
    "pairs",
    "run_in_threads",
    "source_tool",
]

#: The source checkout these tests belong to (the package under test is the installed one).
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def source_tool(name: str) -> ModuleType:
    """A script of the checkout's ``tools/`` loaded as a module, or a skip outside a checkout."""
    path = SOURCE_ROOT / "tools" / name
    if not path.exists():
        pytest.skip("not a source checkout")
    spec = importlib.util.spec_from_file_location(f"_tools_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def pytest_report_header(config: pytest.Config) -> str:
    """The interpreter's execution mode, so that a log says what ran: CPython's JIT (3.14+:
    on with PYTHON_JIT=1) and the GIL (free-threaded builds)."""
    jit = getattr(sys, "_jit", None)
    parts = [f"{sys.implementation.name} {sys.version.split()[0]}"]
    if jit is not None:
        parts.append(f"JIT {'on' if jit.is_enabled() else 'off'}")
    if hasattr(sys, "_is_gil_enabled"):
        parts.append(f"GIL {'on' if sys._is_gil_enabled() else 'off'}")
    return "mode: " + ", ".join(parts)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow", action="store_true", help="also run the tests marked slow (a 4 GiB message)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="marked slow: run with --slow (CI does, once)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


#: The tests that run every kernel of this CPU in this process; with both among the
#: tests that ran, the session also checks that every such kernel did run.
KERNEL_TESTS = (
    "test_native.py::test_every_kernel_agrees_with_the_portable_one",
    "test_many.py::test_every_many_kernel_on_every_batch_shape",
)
_session = {"deselected": False, "kernel_tests": False}


def pytest_deselected(items: List[pytest.Item]) -> None:
    _session["deselected"] = True


def pytest_collection_finish(session: pytest.Session) -> None:
    names = {item.nodeid.split("[")[0].rsplit("/", 1)[-1] for item in session.items}
    _session["kernel_tests"] = all(test in names for test in KERNEL_TESTS)


def kernels_not_run() -> List[str]:
    """Every kernel this CPU can run that no test ran, by native variant loaded here."""
    missing = []
    for name in ("native", "native-cffi"):
        if name not in registry.loaded():
            continue
        bridge = _bridge(name)
        ran = bridge.ran()
        for core, kernels in bridge.kernels().items():
            missing += [
                f"{name}: {core} kernel {k.id} ({k.name})"
                for k in kernels
                if k.usable and k.id not in ran[core]
            ]
    return missing


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A kernel compiled for this CPU that never ran fails the run (when the whole suite ran)."""
    if exitstatus != 0 or _session["deselected"] or not _session["kernel_tests"]:
        return
    missing = kernels_not_run()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if missing:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if reporter is not None:
            reporter.write_line("")
            for line in missing:
                reporter.write_line(f"FAILED: this CPU runs it, but no test ran {line}", red=True)
    elif reporter is not None:
        reporter.write_line("")
        for name in ("native", "native-cffi"):
            if name in registry.loaded():
                ran = _bridge(name).ran()
                kernels = "; ".join(f"{core}: {', '.join(ids)}" for core, ids in ran.items())
                reporter.write_line(f"{name} kernels run: {kernels}")


def _bridge(name: str) -> Bridge:
    bridge = registry.load(name).bridge
    assert bridge is not None, f"{name} has no native bridge"
    return bridge


def pairs() -> List[Tuple[str, str]]:
    """(variant, algorithm) for every registered variant and algorithm it provides."""
    return [(v.name, alg) for v in registry.VARIANTS for alg in v.algorithms]


#: The variants over the native kernels, one per bridge (C-API, cffi).
BRIDGES = [v.name for v in registry.VARIANTS if v.kind == "native"]


def bridge_module(name: str) -> ModuleType:
    """The bridge module behind a native variant, to test the module itself beyond the
    ``Bridge`` protocol (``Loaded.bridge``); or a skip (a failure where it is required)."""
    module = load_or_skip(name).bridge
    assert module is not None, f"{name} has no native bridge"
    assert isinstance(module, ModuleType)
    return module


def load_or_skip(name: str) -> registry.Loaded:
    """The loaded variant, or a skip (a failure when every variant is required)."""
    try:
        return registry.load(name)
    except registry.VariantUnavailable as exc:
        entry = registry.variant(name)
        if registry.require_all() and entry.supported():
            pytest.fail(f"variant {name!r} is required but unavailable: {exc}")
        pytest.skip(f"variant {name!r} unavailable: {exc}")


@pytest.fixture(params=[v.name for v in registry.VARIANTS])
def loaded(request: pytest.FixtureRequest) -> registry.Loaded:
    """Each registered variant, loaded."""
    return load_or_skip(request.param)


@pytest.fixture(params=[pytest.param(p, id="-".join(p)) for p in pairs()])
def pair(request: pytest.FixtureRequest) -> Tuple[str, str]:
    """Each (variant, algorithm) pair."""
    name, algorithm = request.param
    load_or_skip(name)
    return name, algorithm


@pytest.fixture
def algorithm(pair: Tuple[str, str]) -> str:
    return pair[1]


@pytest.fixture
def constructor(pair: Tuple[str, str]) -> Constructor:
    """The constructor of one algorithm of one variant."""
    name, algorithm = pair
    return registry.load(name).constructors[algorithm]


def run_in_threads(work: Callable[[], object], threads: int) -> None:
    """Run ``work`` in ``threads`` threads at once and wait for them all."""
    workers = [threading.Thread(target=work) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()


def jdk_pattern(length: int) -> bytes:
    """The JDK digest tests' data: byte i is i & 0xff."""
    return bytes(i & 0xFF for i in range(length))
