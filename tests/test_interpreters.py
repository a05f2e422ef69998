"""The table of interpreters and modes (bench/catalog/modes.py): its rows, look-ups, commands and
``find`` against made-up pyenv roots and Debian trees (no real tree or interpreter needed)."""

from __future__ import annotations

import os
from pathlib import Path

import bench_package
import pytest

bench_package.load()

from bench.catalog import modes  # noqa: E402
from bench.catalog.modes import INTERPRETERS, MODES, Mode  # noqa: E402


def test_labels_are_unique_and_modes_name_interpreters() -> None:
    labels = [row.label for row in INTERPRETERS]
    assert len(set(labels)) == len(labels)
    modes = [row.label for row in MODES]
    assert len(set(modes)) == len(modes)
    study = {row.label for row in INTERPRETERS if row.study}
    assert {row.interpreter for row in MODES} == study  # every study interpreter has a mode


def test_the_table_has_the_interpreters_the_study_asks_for() -> None:
    study = [row.label for row in modes.study_interpreters()]
    assert study == ["3.10", "3.11", "3.12", "3.13", "3.13t", "pypy3", "3.14", "3.15", "pypy8",
                     "jdk17", "jdk25"]  # fmt: skip
    assert modes.interpreter("3.9").where == "pyenv"
    assert not modes.interpreter("3.9").study
    assert modes.interpreter("pypy8").program == "pypy3"
    assert modes.interpreter("pypy8").implementation == "pypy"
    assert {row.where for row in INTERPRETERS} == {"pyenv", "host", "built", "sid"}


def test_each_study_cpython_has_a_portable_mode_of_the_native_variants() -> None:
    for row in modes.study_interpreters():
        portable = [m for m in modes.modes_of(row.label) if m.label.endswith("-portable")]
        if row.implementation == "cpython":
            assert [m.label for m in portable] == [f"{row.label}-portable"]
            assert portable[0].env == {"VARIANTS_NATIVE_PORTABLE": "1"}
            assert portable[0].variants == "native*"
            assert portable[0].jdk == modes.INTRINSICS_OFF
        else:
            assert portable == []


def test_jit_modes() -> None:
    for version in ("3.14", "3.15"):
        assert modes.mode(version).env == {}
        jit = modes.mode(f"{version}-jit")
        assert (jit.interpreter, dict(jit.env), jit.args) == (version, {"PYTHON_JIT": "1"}, ())
        assert jit.jdk == modes.COMPILED != modes.mode(version).jdk
    for pypy in ("pypy3", "pypy8"):
        off = modes.mode(f"{pypy}-nojit")
        assert (off.interpreter, off.args, off.jdk) == (pypy, ("--jit", "off"), "-Xint")
        assert modes.mode(pypy).jdk == modes.COMPILED
    # the one test of a JIT: what the conductor warms up, callgrind counts, the report pairs
    python = [m.label for m in modes.MODES if m.jit and not m.label.startswith("jdk")]
    assert python == ["3.14-jit", "3.15-jit", "pypy3", "pypy8"]
    for jdk in ("jdk17", "jdk25"):  # Server, C1 and intrinsics off compile; -Xint, Zero do not
        compiles = {m.label: m.jit for m in modes.modes_of(jdk)}
        assert compiles == {jdk: True, f"{jdk}-c1": True, f"{jdk}-nointrinsics": True,
                       f"{jdk}-xint": False, f"{jdk}-zero": False}  # fmt: skip


def test_modes_are_hashable_and_immutable() -> None:
    mode = modes.mode("3.14-jit")
    assert {mode: 1}[mode] == 1
    with pytest.raises(TypeError):
        mode.env["PYTHON_JIT"] = "0"  # type: ignore[index]


def test_unknown_labels_name_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"3\.14-jit"):
        modes.mode("3.14-jot")
    with pytest.raises(KeyError, match="pypy8"):
        modes.interpreter("pypy9")
    with pytest.raises(KeyError):
        modes.modes_of("pypy9")


def test_select_keeps_table_order_and_refuses_what_matches_nothing() -> None:
    chosen = modes.select("pypy8*, 3.14")
    assert [row.label for row in chosen] == ["3.14", "pypy8", "pypy8-nojit"]
    assert modes.select("*-portable")[0].label == "3.10-portable"
    with pytest.raises(ValueError, match="no mode matches"):
        modes.select("3.14,3.99")


def test_command_on_the_host_and_in_a_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VARIANTS_DEBIAN_ROOT", str(tmp_path))
    argv, env = modes.command(modes.mode("pypy3-nojit"), "/v/bin/python", "-c", "1")
    assert (argv, env) == (["/v/bin/python", "--jit", "off", "-c", "1"], {})
    monkeypatch.setenv("VARIANTS_DEBIAN_BINDS", "/elsewhere")
    argv, env = modes.command(modes.mode("3.15-jit"), "/v/bin/python", "-V")
    assert argv == [str(tmp_path / "enter-sid"), "/v/bin/python", "-V"]
    binds = os.pathsep.join([str(modes.CHECKOUT), "/v", "/elsewhere"])
    assert env == {"PYTHON_JIT": "1", "VARIANTS_DEBIAN_BINDS": binds}
    _, env = modes.command(modes.mode("3.15-jit"), "/v/bin/python", bound=["/c"])
    binds = os.pathsep.join([str(modes.CHECKOUT), "/v", "/c", "/elsewhere"])
    assert env["VARIANTS_DEBIAN_BINDS"] == binds  # e.g. a tree's JDK: its classes too
    assert modes.binds("3.11", "/c") == {}  # the host binds nothing
    env["PYTHON_JIT"] = "0"  # a copy: the mode keeps its own
    assert modes.mode("3.15-jit").env == {"PYTHON_JIT": "1"}


def _program(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_find_takes_the_newest_pyenv_patch_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", "")
    for name in ("3.11.2", "3.11.10", "3.11.10t", "3.110.1"):
        _program(tmp_path / "versions" / name / "bin" / "python3.11")
    assert modes.find("3.11") == ([str(tmp_path / "versions/3.11.10/bin/python3.11")], "")
    argv, why = modes.find("3.12")
    assert argv is None and "pyenv install 3.12" in why


def test_find_skips_pyenv_shims_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "none"))
    _program(tmp_path / "shims" / "python3.10")
    real = _program(tmp_path / "bin" / "python3.10")
    monkeypatch.setenv("PATH", os.pathsep.join([str(tmp_path / "shims"), str(tmp_path / "bin")]))
    assert modes.find("3.10") == ([str(real)], "")


def test_find_the_built_and_the_host_interpreters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VARIANTS_FREETHREADED_CACHE", str(tmp_path / "ft"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    argv, why = modes.find("3.13t")
    assert argv is None and "tools/debian.py freethreaded" in why
    built = _program(tmp_path / "ft" / "bin" / "python3.13t")
    assert modes.find("3.13t") == ([str(built)], "")
    assert modes.find("pypy3") == (None, "no pypy3 on PATH (Debian: apt-get install pypy3)")
    pypy = _program(tmp_path / "bin" / "pypy3")
    assert modes.find("pypy3") == ([str(pypy)], "")


def test_find_in_a_tree_needs_its_entry_script_and_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VARIANTS_DEBIAN_ROOT", str(tmp_path))
    argv, why = modes.find("3.14")
    assert argv is None and "tools/debian.py ensure sid" in why
    entry = _program(tmp_path / "enter-sid")
    argv, why = modes.find("pypy8")
    assert argv is None and "/usr/bin/pypy3" in why
    _program(tmp_path / "sid" / "usr" / "bin" / "pypy3")
    assert modes.find("pypy8") == ([str(entry), "/usr/bin/pypy3"], "")


def test_a_new_mode_is_one_row() -> None:
    row = Mode("3.14-tlbc", "3.14", {"PYTHON_TLBC": "0"}, (), None, modes.INTERPRETED)
    argv, env = modes.command(row, "python", "-V")
    assert argv[-2:] == ["python", "-V"] and env["PYTHON_TLBC"] == "0"
