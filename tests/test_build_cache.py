"""The build's object cache (build_support/cache.py): the native kernels are compiled once and
found again by any interpreter's build from any copy of the sources; a changed flag, header
or compiler misses; a file that includes Python's headers is left to each interpreter."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from types import ModuleType
from typing import Any, List, Sequence

import bench_package
import pytest

ROOT = bench_package.ROOT


def _load(relative: str, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


cache = _load("build_support/cache.py", "variants_build_cache")
native_build = _load("variants/native/_build.py", "variants_native_build")

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

#: Two kernels (one with the project's headers, one with the system's intrinsics) and a file of
#: the C-API bridge: enough to see what is shared, in a few seconds of compiling.
KERNELS = ["md5_generic.c", "hash.c"]
BRIDGE = "capi_kernels.c"


class Compiler:
    """What install() uses of a distutils UnixCCompiler, with an interpreter's own C flags."""

    compiler_type = "unix"

    def __init__(self, flags: Sequence[str]) -> None:
        self.compiler_so = ["gcc", *flags]

    def spawn(self, argv: List[str]) -> None:
        subprocess.run(argv, check=True)

    def _compile(self, *args: object) -> None:
        raise AssertionError("a C file went around the cache")


def _copy(target: Path) -> Path:
    """A copy of the native sources at ``target``/variants/native (a clone's)."""
    shutil.copytree(ROOT / "variants" / "native", target / "variants" / "native")
    return target


def _build(
    project: Path,
    objects: Path,
    flags: Sequence[str],
    sources: Sequence[str],
    extra: Sequence[str] = native_build.COMPILE_ARGS,
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> Any:
    """Compile ``sources`` of ``project`` as setuptools does (from the project, relative
    paths), through a cache in ``objects``, for an interpreter of C flags ``flags``."""
    assert monkeypatch is not None
    monkeypatch.chdir(project)
    compiler = Compiler(flags)
    used = cache.install(compiler, objects)
    assert used is not None
    (project / "build").mkdir(exist_ok=True)  # as setuptools makes it
    include = ["-I" + sysconfig.get_paths()["include"], "-Ivariants/native"]
    for name in sources:
        source = f"variants/native/{name}"
        compiler._compile(f"build/{name}.o", source, ".c", [*include, "-c"], list(extra), [])
        assert (project / "build" / f"{name}.o").stat().st_size > 0
    return used


def test_the_kernels_are_the_native_c_without_python() -> None:
    for name in native_build.KERNEL_SOURCES:
        assert cache.is_kernel(f"variants/native/{name}", ROOT), name
    for name in [n for n in native_build.CAPI_SOURCES if n.startswith("capi")]:
        assert not cache.is_kernel(f"variants/native/{name}", ROOT), name
    assert not cache.is_kernel("variants/native/_build.py", ROOT)


def test_a_second_build_compiles_no_kernel_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects = tmp_path / "objects"
    first = _build(
        _copy(tmp_path / "one"), objects, ["-fwrapv", "-O3"], [*KERNELS, BRIDGE],
        monkeypatch=monkeypatch,
    )  # fmt: skip
    assert sorted(first.compiled) == sorted(f"variants/native/{n}" for n in [*KERNELS, BRIDGE])
    # another clone, another interpreter's flags: the kernels are found, the bridge compiled
    second = _build(
        _copy(tmp_path / "two"), objects, ["-fno-strict-overflow", "-g"], [*KERNELS, BRIDGE],
        monkeypatch=monkeypatch,
    )  # fmt: skip
    assert sorted(second.hits) == sorted(f"variants/native/{n}" for n in KERNELS)
    assert second.compiled == [f"variants/native/{BRIDGE}"]
    one, two = (tmp_path / d / "build" / f"{KERNELS[0]}.o" for d in ("one", "two"))
    assert one.read_bytes() == two.read_bytes()
    # the same interpreter again: everything is found
    third = _build(
        tmp_path / "two", objects, ["-fno-strict-overflow", "-g"], [*KERNELS, BRIDGE],
        monkeypatch=monkeypatch,
    )  # fmt: skip
    assert third.compiled == [] and len(third.hits) == 3


def test_a_changed_flag_or_header_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    objects = tmp_path / "objects"
    project = _copy(tmp_path / "one")
    kernel = [KERNELS[0]]
    assert _build(project, objects, [], kernel, monkeypatch=monkeypatch).compiled
    assert _build(project, objects, [], kernel, monkeypatch=monkeypatch).hits
    changed = _build(project, objects, [], kernel, ["-O1"], monkeypatch=monkeypatch)
    assert changed.compiled and not changed.hits
    # a comment changes no object, and finds it
    header = project / "variants" / "native" / "native.h"
    header.write_text(header.read_text() + "/* a comment */\n")
    assert _build(project, objects, [], kernel, monkeypatch=monkeypatch).hits
    header.write_text(header.read_text() + "static const int vn_cache_probe = 1;\n")
    after = _build(project, objects, [], kernel, monkeypatch=monkeypatch)
    assert after.compiled and not after.hits


def test_a_different_compiler_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    objects = tmp_path / "objects"
    project = _copy(tmp_path / "one")
    assert _build(project, objects, [], KERNELS[:1], monkeypatch=monkeypatch).compiled
    # the same gcc under another name and version string: a new compiler to the cache
    wrapper = tmp_path / "bin" / "gcc"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec {shutil.which("gcc")} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("CC", str(wrapper))
    again = _build(project, objects, [], KERNELS[:1], monkeypatch=monkeypatch)
    assert again.compiled and not again.hits


def test_one_compiler_called_by_two_names_is_one(tmp_path: Path) -> None:
    # Debian's CPython calls gcc x86_64-linux-gnu-gcc, its PyPy gcc: one compiler, one key
    gcc = shutil.which("gcc")
    assert gcc is not None
    alias = tmp_path / "another-name-for-gcc"
    alias.symlink_to(os.path.realpath(gcc))
    objects = cache.ObjectCache(tmp_path)
    assert objects.identity(str(alias)) == objects.identity("gcc")
    assert os.path.realpath(gcc) in objects.identity("gcc")


def test_a_compile_error_is_the_compilers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _copy(tmp_path / "one")
    source = project / "variants" / "native" / KERNELS[0]
    source.write_text(source.read_text() + "\nthis is not C\n")
    with pytest.raises(subprocess.CalledProcessError, match="gcc"):
        _build(project, tmp_path / "objects", [], KERNELS[:1], monkeypatch=monkeypatch)
    assert not [p for p in (tmp_path / "objects").glob("*/*") if p.suffix != ".lock"]


def test_the_cache_can_be_moved_or_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.root() == tmp_path / "xdg" / "variants"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.root() == tmp_path / "home" / ".cache" / "variants"
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "elsewhere"))
    assert cache.root() == tmp_path / "elsewhere"
    monkeypatch.setenv(cache.OBJECTS_ENV, "0")
    assert cache.install(Compiler([])) is None


def test_stale_files_are_pruned(tmp_path: Path) -> None:
    old, new = tmp_path / "ab" / "old", tmp_path / "cd" / "new"
    for path in (old, new):
        path.parent.mkdir()
        path.write_bytes(b"x")
    stale = time.time() - (cache.STALE_DAYS + 1) * 86400
    os.utime(old, (stale, stale))
    cache.prune(tmp_path)
    assert not old.exists() and new.exists()
