"""tools/wheels.py's parts that need no wheel built (nox -s wheels runs the whole), the nestable
entry of tools/debian.py, and the Windows rows of tests/cross/run.py."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import SOURCE_ROOT

SHOWN = """
hashlib_variants-0.1.0-pp39-pypy39_pp73-linux_x86_64.whl is consistent
with the following platform tag: "manylinux_2_17_x86_64".

The wheel references external versioned symbols in these
system-provided shared libraries: libc.so.6 with versions
{'GLIBC_2.2.5', 'GLIBC_2.14'}
"""


def _load(relative: str, name: str) -> ModuleType:
    path = SOURCE_ROOT / relative
    if not path.exists():
        pytest.skip("not a source checkout")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def wheels() -> ModuleType:
    return _load("tools/wheels.py", "wheels_tool")


def test_lowest_tag_is_what_auditwheel_show_says(wheels: ModuleType) -> None:
    assert wheels.lowest_tag(SHOWN) == "manylinux_2_17_x86_64"
    with pytest.raises(ValueError, match="names no platform tag"):
        wheels.lowest_tag("this wheel is not consistent with any tag")


def test_compiler_script_moves_only_the_named_include_folders(
    wheels: ModuleType, tmp_path: Path
) -> None:
    """The script hands the tree's gcc every argument, the interpreter's include folders (and
    only those) replaced by their copies under the stage."""
    entry = tmp_path / "entry"
    entry.write_text('printf "%s\\n" "$@"\n')  # stands in for the tree: prints the command
    cc = tmp_path / "cc"
    cc.write_text(wheels.cc_script(entry))
    cc.chmod(0o755)
    env = {
        **os.environ,
        "VARIANTS_WHEEL_INCLUDES": "/usr/include/python3.14:/opt/py/include",
        "VARIANTS_WHEEL_STAGE": "/stage",
    }
    argv = ["-I/usr/include/python3.14", "-I/usr/include", "-Ivariants/native", "-c", "a b.c"]
    said = subprocess.run([str(cc), *argv, "-I/opt/py/include"], env=env, capture_output=True)
    assert said.returncode == 0, said.stderr
    assert said.stdout.decode().splitlines() == [
        "gcc",
        "-I/stage/usr/include/python3.14",
        "-I/usr/include",  # the tree's own system headers: never the host's
        "-Ivariants/native",
        "-c",
        "a b.c",
        "-I/stage/opt/py/include",
    ]


def test_interpreters_are_the_tables_pythons(wheels: ModuleType) -> None:
    labels = wheels.labels()
    assert {"3.9", "3.13", "3.13t", "3.15", "pypy3", "pypy8"} <= set(labels)
    assert not any(label.startswith("jdk") for label in labels)


def test_summary_names_each_wheel_and_each_missing_interpreter(wheels: ModuleType) -> None:
    tag = "manylinux_2_17_x86_64"
    built = wheels.Result("3.12", "w.whl", tag, 2048, "ok", "md5: x", "1 passed")
    missing = wheels.Result("3.13t", outcome="not here: no python3.13t")
    text = wheels.summary([built, missing], "glibc 2.31", 61.2)
    assert "against glibc 2.31 (bullseye), in 61 s" in text
    assert "3.12    w.whl (2 KiB, manylinux_2_17_x86_64): ok" in text
    assert "md5: x; 1 passed" in text
    assert "3.13t   not here: no python3.13t" in text


def test_nestable_entry_differs_only_in_its_mount_propagation() -> None:
    debian = _load("tools/debian.py", "debian_tool_for_wheels")
    tree = Path("/var/cache/variants/debian/bullseye")
    plain, nestable = debian.entry_text(tree, "bullseye"), debian.entry_text(tree, "bullseye", True)
    assert "--propagation private" in plain and "make-rprivate" not in plain
    assert "--propagation unchanged" in nestable
    assert nestable.index("mount --make-rprivate /") < nestable.index("mount -t proc")
    rest = nestable.replace("unchanged", "private").replace(debian.NESTABLE_PRIVATE, "")
    assert rest == plain


def test_windows_runs_mirror_the_native_ones_less_the_assembly() -> None:
    cross = _load("tests/cross/run.py", "cross_run_for_wheels")
    runs = cross.runs()
    native = [r for r in runs if r.target == "x86-64" and r.cpu is None]
    windows = [r for r in runs if r.target == cross.WINDOWS]
    assert len(windows) == len(native)
    for mine, theirs in zip(windows, native):
        assert mine.sha.sha512 != "avx2-asm"
        assert mine.env == theirs.env and mine.md5_many == theirs.md5_many
        assert mine.label().startswith("windows  wine")
    assert cross.without_assembly(cross.Sha(sha512="avx2-asm")).sha512 == "avx2"
    assert cross.without_assembly(cross.Sha(sha512="sha512")).sha512 == "sha512"
    family = [r for r in cross.family_runs() if r.target == cross.WINDOWS]
    assert all("sha512 x86-64 AVX2 assembly" not in r.required for r in family)
    assert cross.WINDOWS not in cross.DEFAULT_TARGETS  # Wine is not CI's


def test_the_check_refuses_a_compiler_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    check = _load("tools/check_wheel.py", "check_wheel_tool")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert check.compilers() == []
    fake = tmp_path / "gcc"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert check.compilers() == ["gcc"]
    assert check.main([str(tmp_path), "--no-compiler"]) == 1
    assert "a C compiler is on PATH: gcc" in capsys.readouterr().err
