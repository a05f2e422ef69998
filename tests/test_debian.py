"""tools/debian.py: the trees' package lists and entry script (a real tree only where one was
made: then a command run through it sees the host's paths at the same places)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Optional

import bench_package
import pytest

bench_package.load()

from bench.catalog import modes  # noqa: E402


def _tool() -> ModuleType:
    path = bench_package.ROOT / "tools" / "debian.py"
    spec = importlib.util.spec_from_file_location("debian_tool", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


debian = _tool()


def test_each_tree_interpreter_is_in_its_trees_packages() -> None:
    for row in modes.INTERPRETERS:
        if row.where not in modes.HOST_PLACES and row.implementation == "openjdk":
            version = row.program.split("-")[1]  # java-25-openjdk
            for part in ("jdk-headless", "jre-zero"):  # javac, and the Zero VM
                assert f"openjdk-{version}-{part}" in debian.PACKAGES[row.where]
        elif row.where not in modes.HOST_PLACES:
            assert row.program in debian.PACKAGES[row.where]
            assert f"{row.program}-dev" in debian.PACKAGES[row.where]
            assert f"{row.program}-venv" in debian.PACKAGES[row.where]


def test_the_mirror_is_the_hosts_own(tmp_path: Path) -> None:
    parts = tmp_path / "sources.list.d"
    parts.mkdir()
    assert debian.host_mirror(tmp_path) is None
    (tmp_path / "sources.list").write_text(
        "# a comment\ndeb [arch=amd64] http://mirror.example/debian/ bookworm main\n"
    )
    assert debian.host_mirror(tmp_path) == "http://mirror.example/debian"
    (parts / "debian.sources").write_text(
        "Types: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\n\n"
        "Types: deb-src\nURIs: http://src.example/debian\n\n"
        "Types: deb\nURIs: http://near.example/debian http://far.example/debian\n"
    )
    assert debian.host_mirror(tmp_path) == "http://near.example/debian"


def test_with_no_apt_sources_it_asks_for_a_mirror_and_guesses_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(debian.MIRROR_ENV, raising=False)
    with pytest.raises(debian.TreeError, match="name none") as raised:
        debian.mirror(tmp_path)
    assert "--mirror URL" in str(raised.value) and debian.MIRROR_ENV in str(raised.value)
    assert "://" not in str(raised.value)  # no address made up
    monkeypatch.setenv(debian.MIRROR_ENV, "http://given.example/debian/")
    assert debian.mirror(tmp_path) == "http://given.example/debian"
    (tmp_path / "sources.list").write_text("deb http://host.example/debian trixie main\n")
    assert debian.mirror(tmp_path) == "http://given.example/debian"  # the caller's first
    monkeypatch.delenv(debian.MIRROR_ENV)
    assert debian.mirror(tmp_path) == "http://host.example/debian"


def test_the_mirror_option_is_passed_on_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(debian.MIRROR_ENV, raising=False)
    seen: List[Optional[str]] = []

    def run_in(suite: str, argv: List[str]) -> int:
        seen.append(os.environ.get(debian.MIRROR_ENV))
        return 0

    monkeypatch.setattr(debian, "run_in", run_in)
    assert debian.main(["run", "sid", "--mirror", "http://m.example/debian", "true"]) == 0
    assert seen == ["http://m.example/debian"]


def test_entry_script_is_sh_and_names_its_tree(tmp_path: Path) -> None:
    text = debian.entry_text(tmp_path / "a tree", "sid")
    script = tmp_path / "enter"
    script.write_text(text)
    subprocess.run(["sh", "-n", str(script)], check=True)
    assert f"tree='{tmp_path}/a tree'" in text


def test_a_foreign_trees_programs_get_the_cheap_pointer_authentication(tmp_path: Path) -> None:
    """An arm64 tree's entry gives qemu-user EMULATED_CPU unless the caller names a CPU (the
    wheels' checks name "cortex-a53"); the host's trees set none."""
    assert "QEMU_CPU" not in debian.entry_text(tmp_path, "sid")
    text = debian.entry_text(tmp_path, "sid-arm64")
    assert debian.EMULATED_CPU == "max,pauth-impdef=on"
    # what runs before the tree is entered, its root check left out, then the CPU qemu gets
    head = text.split("exec unshare", 1)[0].replace('"$(id -u)" != 0', "0 != 0")
    for given, seen in ((None, debian.EMULATED_CPU), ("cortex-a53", "cortex-a53")):
        env = {k: v for k, v in os.environ.items() if k != "QEMU_CPU"}
        env |= {"QEMU_CPU": given} if given else {}
        argv = ["sh", "-c", head + "sh -c 'echo \"$QEMU_CPU\"'\n"]
        printed = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        assert printed.stdout.strip() == seen


def test_a_tree_is_finished_only_with_its_stamp(tmp_path: Path) -> None:
    assert debian.stamp(tmp_path) == {}
    assert debian._missing(tmp_path, ["gcc"]) == ["gcc"]
    (tmp_path / debian.STAMP).parent.mkdir(parents=True)
    (tmp_path / debian.STAMP).write_text(json.dumps({"packages": ["gcc", "pypy3"]}))
    assert debian._missing(tmp_path, ["gcc", "python3.15"]) == ["python3.15"]


def test_a_made_tree_whose_package_list_grew_gets_only_the_new_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ensure_tree on a finished tree (its stamp) installs what PACKAGES added since, into
    the tree in place: no debootstrap, no tree made anew (an arm64 one takes most of an hour
    under emulation); a complete one is returned as it is."""
    monkeypatch.setenv(modes.DEBIAN_ROOT_ENV, str(tmp_path))
    tree = modes.tree_path("sid-arm64")
    (tree / debian.STAMP).parent.mkdir(parents=True)
    (tree / debian.STAMP).write_text(json.dumps({"packages": ["python3.14"]}))
    installed: List[List[str]] = []

    def install(at: Path, suite: str, packages: List[str], log: object) -> None:
        assert (at, suite) == (tree, "sid-arm64")
        installed.append(list(packages))
        held = json.loads((at / debian.STAMP).read_text())["packages"]
        (at / debian.STAMP).write_text(json.dumps({"packages": [*held, *packages]}))

    def no_command(argv: List[str], *args: object, **kwargs: object) -> None:
        raise AssertionError(f"ran {argv}")

    monkeypatch.setattr(debian, "_install", install)
    monkeypatch.setattr(debian, "run", no_command)
    monkeypatch.setattr(debian, "ensure_binfmt", lambda arch, log: None)
    monkeypatch.setattr(debian, "require_root", lambda what: None)
    monkeypatch.setitem(debian.PACKAGES, "sid-arm64", ("python3.14", "pypy3", "pypy3-dev"))
    assert debian.ensure_tree("sid-arm64", lambda message: None) == tree
    assert installed == [["pypy3", "pypy3-dev"]]
    assert modes.entry_script("sid-arm64").read_text() == debian.entry_text(tree, "sid-arm64")
    debian.ensure_tree("sid-arm64", lambda message: None)
    assert installed == [["pypy3", "pypy3-dev"]]  # complete: nothing more


def test_ensure_interpreter_only_finds_what_it_does_not_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(debian.TreeError, match=r"pyenv install 3\.12"):
        debian.ensure_interpreter("3.12")
    program = tmp_path / "versions" / "3.12.4" / "bin" / "python3.12"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert debian.ensure_interpreter("3.12") == [str(program)]


#: Inside a tree (a suite run by its entry script) the tree cannot be entered again.
IN_A_TREE = Path("/var/lib/variants-tree.json").exists()
needs_tree = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0 or IN_A_TREE or modes.find("3.14")[0] is None,
    reason="needs root and the sid tree (python3 tools/debian.py ensure sid), from the host",
)


def _python_in_tree(code: str, cwd: Path, env: Optional[Dict[str, str]] = None) -> str:
    """What ``python3.14 -c code`` prints, run in the sid tree from ``cwd`` (the entry script
    written anew first, as the sessions' ensure_tree does, should this checkout's differ)."""
    debian.ensure_tree("sid")
    argv, _ = modes.find("3.14")
    assert argv is not None
    done = subprocess.run(
        [*argv, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@needs_tree
def test_a_command_in_the_tree_sees_the_host_paths(tmp_path: Path) -> None:
    (tmp_path / "probe.txt").write_text("from the host")
    code = "import os, sys; print(os.getcwd(), open('probe.txt').read(), sys.version_info[:2])"
    printed = _python_in_tree(code, tmp_path)
    assert printed.split(None, 1)[0] == str(tmp_path)
    assert "from the host (3, 14)" in printed


@needs_tree
def test_the_entry_script_needs_no_sbin_on_the_callers_path(tmp_path: Path) -> None:
    # CI's PATH had no sbin folders, where chroot lives: entering failed at once
    code = "import os; print(os.environ['PATH'])"
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    printed = _python_in_tree(code, tmp_path, env)
    assert printed.strip() == "/usr/bin:/bin"  # the command inside has the caller's PATH


@needs_tree
def test_the_current_folder_is_bound_over_what_the_tree_holds_there() -> None:
    # CI clones outside the default binds; an earlier run had left a folder at that path in the
    # tree, the folder was then not bound, and pip in the tree found no project there
    tree = debian.ensure_tree("sid")
    host = Path(tempfile.mkdtemp(prefix="variants-bind-", dir="/var/cache"))
    stale = tree / host.relative_to("/")
    try:
        (host / "probe.txt").write_text("from the host")
        stale.mkdir(parents=True)
        (stale / "left.txt").write_text("left by an earlier command")
        code = "import os; print(sorted(os.listdir()), open('probe.txt').read())"
        assert _python_in_tree(code, host).strip() == "['probe.txt'] from the host"
    finally:
        shutil.rmtree(host)
        shutil.rmtree(stale, ignore_errors=True)
