"""The search for a user's interpreters (bench/catalog/discover.py), against made-up layouts:
uv's, pyenv's, conda's folders, PATH and a Debian tree, each interpreter a script that answers
the probe as an interpreter would (no real interpreter needed), and ``--python LABEL=PATH``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import bench_package
import pytest

bench_package.load()

from bench.catalog import discover, modes  # noqa: E402
from bench.conduct import launch  # noqa: E402
from bench.conduct import styles as conduct  # noqa: E402
from bench.conduct.options import Options  # noqa: E402


def fake(path: Path, version: List[int], real: Optional[Path] = None, **facts: Any) -> Path:
    """An executable at ``path`` answering the probe as ``version`` would; ``real``: the binary
    it says it is (two fakes saying one are one interpreter)."""
    said: Dict[str, Any] = {"implementation": "cpython", "version": version, "pypy": None,
                            "freethreaded": False, "jit_available": False, "jit_enabled": False,
                            "executable": str(real or path), **facts}  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho '{json.dumps(said)}'\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME, nothing on PATH, no Debian tree, no built 3.13t, the cache in it."""
    for name in ("PYENV_ROOT", "UV_PYTHON_INSTALL_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME",
                 "ASDF_DATA_DIR"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("VARIANTS_DEBIAN_ROOT", str(tmp_path / "debian"))
    monkeypatch.setenv("VARIANTS_FREETHREADED_CACHE", str(tmp_path / "ft"))
    return tmp_path


def test_uv_pyenv_conda_and_path_each_found_once(home: Path) -> None:
    uv = home / ".local" / "share" / "uv" / "python"
    u312 = fake(uv / "cpython-3.12.1-linux-x86_64-gnu" / "bin" / "python3.12", [3, 12, 1])
    fake(uv / "cpython-3.12.1-linux-x86_64-gnu" / "bin" / "python3", [3, 12, 1], real=u312)
    fake(uv / "cpython-3.14.0-linux-x86_64-gnu" / "bin" / "python3.14", [3, 14, 0],
         jit_available=True, jit_enabled=True)  # fmt: skip
    pypy = fake(home / ".pyenv" / "versions" / "pypy3.10-7.3.17" / "bin" / "pypy3", [3, 10, 14],
                implementation="pypy", pypy=[7, 3, 17])  # fmt: skip
    ft = fake(home / ".pyenv" / "versions" / "3.13.1t" / "bin" / "python3.13t", [3, 13, 1],
              freethreaded=True)  # fmt: skip
    fake(home / "miniconda3" / "envs" / "old" / "bin" / "python3.8", [3, 8, 10])
    fake(home / "miniconda3" / "envs" / "new" / "bin" / "python3.11", [3, 11, 9])
    fake(home / "bin" / "python3.12", [3, 12, 1], real=u312)  # uv's, linked onto PATH
    fake(home / "bin" / "pypy3.11", [3, 11, 11], implementation="pypy", pypy=[7, 3, 20])
    other = fake(home / "bin" / "python3.14", [3, 14, 2])  # another 3.14: uv's comes first
    found = discover.search()
    assert {k: (f.candidate.source, f.version) for k, f in found.found.items()} == {
        "3.14": ("uv", "3.14.0"), "3.12": ("uv", "3.12.1"), "pypy3": ("pyenv", "3.10.14"),
        "3.13t": ("pyenv", "3.13.1"), "3.11": ("conda", "3.11.9"), "pypy3.11": ("PATH", "3.11.11"),
    }  # fmt: skip
    labels = [m.label for m, _ in found.modes()]
    # the study's table's modes in its order, then the others
    assert labels == ["3.11", "3.12", "3.13t", "3.14", "3.14-jit", "pypy3", "pypy3-nojit",
                      "pypy3.11", "pypy3.11-nojit"]  # fmt: skip
    by = {m.label: m for m, _ in found.modes()}
    assert by["3.14-jit"].env == modes.JIT_ON and by["3.14-jit"].jit
    assert by["pypy3-nojit"].args == modes.JIT_OFF_ARGS and by["pypy3"].jit
    # the uv 3.14 is not the study's (the sid tree's) 3.14: launch must not enter a tree
    assert by["3.14"].interpreter == "3.14@uv" and by["3.12"].interpreter == "3.12"
    why = {c.path: w for c, w in found.skipped}
    assert why[str(home / "bin" / "python3.12")] == discover.SAME + "3.12"
    assert "needs 3.9 or newer" in why[str(home / "miniconda3/envs/old/bin/python3.8")]
    assert why[str(other)].startswith("3.14 is ")
    text = "\n".join(discover.listing(found, 0.1))
    assert "3.12 also at" in text and str(pypy) in text and str(ft) in text
    assert any(line.startswith("Debian trees: none") for line in found.empty)


def test_hard_links_to_one_binary_are_one_interpreter(home: Path) -> None:
    # a free-threaded install's python3.13 and python3.13t: one file, two names; each says
    # its own name as sys.executable (os.path.realpath keeps a hard link's)
    said = {"implementation": "cpython", "version": [3, 13, 5], "pypy": None,
            "freethreaded": True, "jit_available": False, "jit_enabled": False}  # fmt: skip
    head = json.dumps(said)[:-1] + ', "executable": '
    folder = home / ".pyenv" / "versions" / "3.13.5t" / "bin"
    folder.mkdir(parents=True)
    program = folder / "python3.13t"
    program.write_text(f'#!/bin/sh\nprintf \'%s"%s"}}\\n\' \'{head}\' "$(readlink -f "$0")"\n')
    program.chmod(0o755)
    os.link(program, folder / "python3.13")
    result = discover.search()
    assert list(result.found) == ["3.13t"] and result.found["3.13t"].candidate.path == str(program)
    skipped = {Path(c.path).name: why for c, why in result.skipped}
    assert skipped == {"python3.13": discover.SAME + "3.13t"}


def test_answers_are_cached_by_path_size_and_mtime(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = fake(home / "bin" / "python3.13", [3, 13, 0])
    assert list(discover.search().found) == ["3.13"]

    def refuse(argv: Any) -> Any:
        raise AssertionError(f"probed {argv} again")

    monkeypatch.setattr(discover, "probe", refuse)
    assert list(discover.search().found) == ["3.13"]
    fake(path, [3, 13, 1, 0])  # changed: asked again
    with pytest.raises(AssertionError, match="probed"):
        discover.search()


def test_each_binary_is_asked_once_and_a_pyenv_shim_is_read_not_run(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = home / ".pyenv"
    fake(root / "versions" / "3.12.1" / "bin" / "python3.12", [3, 12, 1])
    (root / "versions" / "3.12.1" / "bin" / "python3").symlink_to("python3.12")
    fake(root / "versions" / "3.10.13" / "bin" / "python3.10", [3, 10, 13])
    old = fake(root / "versions" / "3.8.18" / "bin" / "python3.8", [3, 8, 18])
    (old.parent / "python3").symlink_to("python3.8")
    system = fake(home / "bin" / "python3.9", [3, 9, 18])
    ran = home / "ran"
    for name in ("python3.12", "python3.10", "python3.9"):  # a shim that was run says so
        shim = root / "shims" / name
        shim.parent.mkdir(parents=True, exist_ok=True)
        shim.write_text(f'#!/bin/sh\necho "$0" >> {ran}\nexit 127\n')
        shim.chmod(0o755)
    (root / "version").write_text("# pyenv global\n3.12.1\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(root / "shims"), str(home / "bin")]))
    work = home / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    asked: List[Any] = []
    real_probe = discover.probe

    def counted(argv: Any) -> Any:
        asked.append(tuple(argv))
        return real_probe(argv)

    monkeypatch.setattr(discover, "probe", counted)
    found = discover.search()
    assert not ran.exists(), "a shim of pyenv's was run"
    assert len(set(asked)) == len(asked) == 3  # python3 is python3.12; each shim, read
    why = {c.path: w for c, w in found.skipped}
    for path in (old, old.parent / "python3"):  # not asked: the name says it
        assert why[str(path)] == (
            "Python 3.8 (by its name, python3.8): the worker needs 3.9 or newer"
        )
    assert why[str(root / "shims" / "python3.12")] == discover.SAME + "3.12"
    assert why[str(root / "shims" / "python3.10")] == discover.NOT_SELECTED + "3.12.1"
    # not in the version selected: pyenv's system, PATH without the shims
    assert found.found["3.9"].executable == str(system)
    text = "\n".join(discover.listing(found, 0.1))
    assert "shims of versions not selected (their installs are searched): python3.10" in text
    # a project's .python-version, from the working folder up, selects for its folders
    (work / ".python-version").write_text("3.10.13\n")
    (work / "sub").mkdir()
    monkeypatch.chdir(work / "sub")
    why = {c.path: w for c, w in discover.search().skipped}
    assert why[str(root / "shims" / "python3.10")] == discover.SAME + "3.10"
    assert why[str(root / "shims" / "python3.12")] == discover.NOT_SELECTED + "3.10.13"
    assert not ran.exists() and len(asked) == 3  # the answers cached: nothing asked again
    # a version pyenv resolves itself (a prefix): the shim is run
    (work / ".python-version").write_text("3.10\n")
    why = {c.path: w for c, w in discover.search().skipped}
    assert ran.exists() and why[str(root / "shims" / "python3.10")].startswith("did not answer")


def test_a_tree_interpreter_runs_through_the_entry_script(home: Path) -> None:
    root = home / "debian"
    entry = root / "enter-sid"
    entry.parent.mkdir(parents=True)
    # the entry script runs its arguments (a chroot, in the real one)
    entry.write_text(f'#!/bin/sh\nexec "{root}/sid$@"\n')
    entry.chmod(0o755)
    fake(root / "sid" / "usr" / "bin" / "python3.15", [3, 15, 0], jit_available=True,
         jit_enabled=True)  # fmt: skip
    found = discover.search().found["3.15"]
    assert found.argv == (str(entry), "/usr/bin/python3.15")
    assert found.interpreter() == modes.interpreter("3.15")  # the study's own row
    assert modes.tree_of(str(root / "sid" / "usr" / "bin" / "python3.15")) == (
        "sid", "/usr/bin/python3.15")  # fmt: skip
    assert modes.tree_of(str(home / "bin" / "python3")) is None
    # another machine's tree (the cross tests', under qemu-user) is not searched, but named
    other = "riscv64" if discover.foreign("x-riscv64") else "arm64"
    entry = root / f"enter-trixie-{other}"
    entry.write_text(f'#!/bin/sh\nexec "{root}/trixie-{other}$@"\n')
    entry.chmod(0o755)
    fake(root / f"trixie-{other}" / "usr" / "bin" / "python3.13", [3, 13, 5])
    found_all = discover.search()
    assert "3.13" not in found_all.found and list(found_all.found) == ["3.15"]
    assert f"Debian tree trixie-{other}: {other}'s, run by emulation here, not searched" in (
        found_all.empty
    )
    # a tree of this machine without an interpreter (bullseye's, a C toolchain) is named
    entry = root / "enter-bullseye"
    entry.write_text(f'#!/bin/sh\nexec "{root}/bullseye$@"\n')
    entry.chmod(0o755)
    (root / "bullseye" / "usr" / "bin").mkdir(parents=True)
    said = f"Debian tree bullseye: no python3.X nor pypy3 in {root / 'bullseye' / 'usr' / 'bin'}"
    assert said in discover.search().empty


def test_a_jit_off_by_default_is_asked_for_as_the_worker_asks_for_it(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as Debian's 3.14 answers: its JIT on only where PYTHON_JIT=1 reaches it (-I and -E hide it)
    path = home / "bin" / "python3.14"
    path.parent.mkdir(parents=True)
    said = {"implementation": "cpython", "version": [3, 14, 10], "pypy": None,
            "freethreaded": False, "jit_available": True, "executable": str(path)}  # fmt: skip
    path.write_text(
        '#!/bin/sh\non=false\n[ "$PYTHON_JIT" = 1 ] && on=true\n'
        'for a in "$@"; do case "$a" in -I|-E) on=false;; -c) break;; esac; done\n'
        f"echo '{json.dumps(said)[:-1]}, \"jit_enabled\": '$on'}}'\n"
    )
    path.chmod(0o755)
    monkeypatch.setenv("PYTHON_JIT", "0")  # the user's own setting: not the probe's question
    labels = [m.label for m, _ in discover.search().modes()]
    assert labels == ["3.14", "3.14-jit"]


def test_python_labels_are_checked_against_what_the_interpreter_is(home: Path) -> None:
    p311 = fake(home / "bin" / "python3.11", [3, 11, 2])
    with pytest.raises(ValueError, match=r"that is CPython 3.11.2, not 3.14 \(name it 3.11"):
        discover.given("3.14", str(p311))
    with pytest.raises(ValueError, match="has no JIT"):
        discover.given("3.11-jit", str(p311))
    with pytest.raises(ValueError, match="no such program"):
        discover.given("x", str(home / "nothing"))
    with pytest.raises(ValueError, match="a folder, not a program"):
        discover.given("x", str(home / "bin"))
    (home / "text").write_text("not a program")
    with pytest.raises(ValueError, match="not executable"):
        discover.given("x", str(home / "text"))
    with pytest.raises(ValueError, match="no Python interpreter: it did not answer"):
        discover.given("x", "/bin/true")
    (mode,), _ = discover.given("mine", str(p311))
    assert (mode.label, mode.interpreter, mode.jit) == ("mine", "mine", False)
    # the oldest Python the worker runs is a mode like any other; an older one, one line
    p39 = fake(home / "bin" / "python3.9", [3, 9, 18])
    (mode,), _ = discover.given("3.9", str(p39))
    assert (mode.label, mode.interpreter, mode.jit) == ("3.9", "3.9", False)
    p38 = fake(home / "bin" / "python3.8", [3, 8, 10])
    with pytest.raises(ValueError, match=r"that is CPython 3.8.10; the worker needs 3.9 or newer"):
        discover.given("3.8", str(p38))
    jit = fake(home / "bin" / "python3.14", [3, 14, 0], jit_available=True, jit_enabled=True)
    (mode,), _ = discover.given("3.14-jit", str(jit))
    assert mode.env == modes.JIT_ON and mode.jit and mode.interpreter == "3.14@--python"
    pypy = fake(home / "bin" / "pypy3", [3, 9, 16], implementation="pypy", pypy=[7, 3, 11])
    (mode,), _ = discover.given("pypy3-nojit", str(pypy))
    assert mode.args == modes.JIT_OFF_ARGS and not mode.jit


def test_a_bad_modes_or_python_is_one_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake(home / "bin" / "python3.12", [3, 12, 1])
    path = home / "mine.py"
    path.write_text("SIZES = (1,)\ndef inputs(n): return (n,)\ndef a(n): return n\n"
                    "def b(n): return n\nSTYLES = (a, b)\n")  # fmt: skip
    for argv, said in (
        (["--modes", "3.2*"], "--modes: no mode found matches '3.2*'; found: 3.12"),
        (["--python", "3.14=" + str(home / "bin" / "python3.12")], "not 3.14"),
        (["--python", "nolabel"], "--python wants LABEL=PATH"),
    ):
        options = Options.of(conduct.parser().parse_args([str(path), *argv]))
        with pytest.raises(SystemExit) as stop:
            conduct.prepare(options)
        assert said in str(stop.value) and "\n" not in str(stop.value)


@pytest.mark.skipif(os.environ.get("VARIANTS_DEBIAN_ROOT") is not None, reason="a tree given")
def test_every_study_mode_found_by_the_table_is_found_by_the_search() -> None:
    """No mode the table finds is lost: found by the search under its label, or, where the
    table's label names another interpreter than on the host (inside a Debian sid tree, as
    CI's dropin-3.14 runs, the table's ``pypy3`` is the tree's PyPy 8, which the search calls
    pypy8), its interpreter found by the search under the label its version gives."""
    search = discover.search().modes()
    found = {m.label for m, _ in search}
    paths = {os.path.realpath(f.candidate.path) for _, f in search}
    lost = []
    for row in modes.study_interpreters():
        argv = (modes.find(row.label)[0] if row.implementation != "openjdk" else None) or []
        for m in modes.modes_of(row.label) if argv else ():
            if (
                m.variants is None
                and m.label not in found
                and os.path.realpath(argv[-1]) not in paths
            ):
                lost.append(m.label)
    assert not lost, f"the search lost {lost}"


def test_the_twins_are_built_by_the_interpreter_measured(tmp_path: Path) -> None:
    from bench.catalog.columns import Column
    from bench.conduct import twins

    assert modes.find("3.12") != (["/opt/uv/python3.12"], "")
    with modes.finding({"3.12": ["/opt/uv/python3.12"]}):
        assert modes.find("3.12") == (["/opt/uv/python3.12"], "")
    assert modes.find("3.12") != (["/opt/uv/python3.12"], "")
    with pytest.raises(KeyError), modes.finding({"3.14@uv": ["/opt/uv/python3.14"]}):
        pass
    # an interpreter outside the table: named, not built
    mine = Column(modes.Mode("mine", "mine", {}, (), None, modes.INTERPRETED), "/opt/mine")
    path = tmp_path / "mine.py"
    path.write_text("")
    why = "no twins yet of an interpreter outside the study's table (mine)"
    assert twins.add([mine], ["mypyc"], path, print) == ([mine], {}, {"mine+mypyc": why})


def test_the_other_paths_of_an_interpreter_not_used_are_said_as_its_own(home: Path) -> None:
    first = fake(home / ".pyenv" / "versions" / "3.11.7" / "bin" / "python3.11", [3, 11, 7])
    system = fake(home / "bin" / "python3.11", [3, 11, 2])
    fake(home / "bin" / "python3", [3, 11, 2], real=system)
    found = discover.search()
    assert found.found["3.11"].candidate.path == str(first)
    why = {c.path: w for c, w in found.skipped}
    assert why[str(home / "bin" / "python3.11")].startswith(f"3.11 is {first}")
    assert why[str(home / "bin" / "python3")] == discover.SAME + str(system)


def test_a_jit_mode_whose_worker_has_its_jit_off_is_not_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.catalog.columns import Column

    jit = Column(modes.Mode("3.14-jit", "3.14", dict(modes.JIT_ON), (), None, "", True), "/x")
    plain = Column(modes.Mode("3.14", "3.14", {}, (), None, ""), "/x")
    pypy = Column(modes.Mode("pypy3", "pypy3", {}, (), None, "", True), "/x")
    said: Dict[str, Any] = {"jit_enabled": False}
    asked = []

    def call(column: Column, function: str, results: Path, **kwargs: Any) -> Dict[str, Any]:
        asked.append((column.label, function))
        return said

    monkeypatch.setattr(launch, "call", call)
    assert [conduct.jit_is_on(c, tmp_path) for c in (jit, plain, pypy)] == [False, True, True]
    assert asked == [("3.14-jit", "core.machine.interpreter_info")]  # the worker's own record
    said["jit_enabled"] = True
    assert conduct.jit_is_on(jit, tmp_path)


def test_the_worker_records_whether_its_jit_is_on(tmp_path: Path) -> None:
    from bench.catalog.columns import Column
    from bench.core.machine import interpreter_info

    here = Column(
        modes.Mode("here", "here", dict(modes.JIT_ON), (), None, "", True), sys.executable
    )
    info = launch.call(here, "core.machine.interpreter_info", tmp_path)
    assert info["version"] == interpreter_info()["version"]
    assert ("jit_enabled" in info) == hasattr(sys, "_jit")


def test_list_modes_read_by_a_program_that_stops_reading_ends_without_a_traceback(
    home: Path,
) -> None:
    fake(home / "bin" / "python3.12", [3, 12, 1])
    listing = subprocess.Popen(
        [sys.executable, "-m", "bench", "styles", "--list-modes"],
        cwd=bench_package.ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert listing.stdout is not None and listing.stderr is not None
    listing.stdout.close()  # as `| head -0` would: nothing read
    said = listing.stderr.read().decode()
    assert listing.wait() in (0, 1) and "Traceback" not in said and "BrokenPipe" not in said
