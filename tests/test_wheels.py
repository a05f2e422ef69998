"""tools/wheels.py's parts that need no wheel built (nox -s wheels runs the whole), the nestable
entry of tools/debian.py, and the Windows rows of tests/cross/run.py."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Dict, List

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
    assert "3.12          w.whl (2 KiB, manylinux_2_17_x86_64): ok" in text
    assert "md5: x; 1 passed" in text
    assert "3.13t         not here: no python3.13t" in text
    assert "x86_64: 1 interpreters" in text  # the one found


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
    native = [r for r in runs if r.target == "x86-64" and r.cpu is None and not r.model]
    windows = [r for r in runs if r.target == cross.WINDOWS]
    assert len(windows) == len(native)
    for mine, theirs in zip(windows, native):
        assert mine.sha.sha512 != "avx2-asm" and cross.ASSEMBLY not in mine.required
        assert set(mine.required) == set(theirs.required) - {cross.ASSEMBLY}
        assert mine.env == theirs.env and mine.md5_many == theirs.md5_many
        assert mine.label().startswith("windows  wine") and not mine.model
    assert cross.without_assembly(cross.Sha(sha512="avx2-asm")).sha512 == "avx2"
    assert cross.without_assembly(cross.Sha(sha512="sha512")).sha512 == "sha512"
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


def test_aarch64_labels_name_their_tree_and_come_first(wheels: ModuleType) -> None:
    labels = wheels.labels()
    arm = [label for label in labels if label.endswith("-aarch64")]
    assert {"3.9-aarch64", "3.11-aarch64", "3.13-aarch64", "3.14-aarch64"} <= set(arm)
    assert any(label.startswith("pypy") for label in arm)
    assert labels[: len(arm)] == arm  # the longest (emulated) first
    assert wheels.labels(["x86_64"]) == labels[len(arm) :]
    assert wheels.labels(["aarch64"]) == arm
    assert wheels.arm64("3.11-aarch64") == ("bookworm-arm64", "python3.11")
    assert wheels.arm64("3.11") is None
    with pytest.raises(KeyError, match=r"no aarch64 interpreter '3\.8'"):
        wheels.arm64("3.8-aarch64")
    tree = wheels.modes.tree_path("bullseye-arm64")
    assert wheels.host_path("3.9-aarch64", "/usr/include/python3.9") == (
        tree / "usr/include/python3.9"
    )
    assert wheels.launcher("3.9-aarch64") == [str(wheels.modes.entry_script("bullseye-arm64"))]
    assert wheels.host_path("3.11", "/usr/include") == Path("/usr/include")  # pyenv's: the host


def test_every_aarch64_tree_is_a_foreign_tree_with_its_interpreter(wheels: ModuleType) -> None:
    debian = wheels.debian
    for base, (tree, program) in wheels.ARM64.items():
        assert debian.suite_arch(tree)[1] == "arm64", base
        assert {program, f"{program}-dev", f"{program}-venv"} <= set(debian.PACKAGES[tree])
        assert not {"gcc", "cc", "clang"} & set(debian.PACKAGES[tree])  # the check wants none
    assert debian.suite_arch("sid") == ("sid", None)
    assert debian.suite_arch("sid-arm64") == ("sid", "arm64")
    assert debian.suite_arch("no-such-arch") == ("no-such-arch", None)
    assert {"gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"} <= set(debian.PACKAGES[wheels.TREE])


def test_cpu_expectations_match_the_cross_drivers(wheels: ModuleType) -> None:
    """What a wheel's dispatch must choose on qemu's models is what tests/cross/run.py's C
    driver must choose on them (the same kernels and dispatch, another caller)."""
    cross = _load("tests/cross/run.py", "cross_run_for_cpus")
    check = _load("tools/check_wheel.py", "check_wheel_for_cpus")
    driver = {
        r.cpu: r for r in cross.runs() if r.target == "aarch64" and not r.env and not r.many_only
    }
    assert {"max", "cortex-a53"} <= set(driver)
    for cpu, masked, expected, _ in wheels.CPUS:
        wanted = check.parse_kernels(expected)
        assert set(wanted) == {"md5", "sha256", "md5-many", "sha256-many", "sha1", "sha512",
                               "sha1-many", "sha512-many"}  # fmt: skip
        if masked:  # no SHA1, SHA2 nor SHA512: NEON lanes for MD5, portable for the rest
            assert {k for c, k in wanted.items() if c not in ("md5", "md5-many")} == {"portable"}
            assert (wanted["md5"], wanted["md5-many"]) == ("arm64", "neon-x8")
            continue
        run = driver[cpu.split(",")[0]]  # the model, less its properties
        assert run.md5 == "AArch64 scalar" and wanted["md5"] == "arm64"
        assert (run.md5_many, run.sha256_many) == (wanted["md5-many"], wanted["sha256-many"])
        assert (run.sha256 == "AArch64 SHA2") == (wanted["sha256"] == "sha2")
        assert (run.sha.sha1 == "AArch64 SHA1") == (wanted["sha1"] == "sha1")
        assert (run.sha.sha512 == "AArch64 SHA512") == (wanted["sha512"] == "sha512")
    assert [cpu for cpu, masked, _, tests in wheels.CPUS if tests] == ["max,pauth-impdef=on"]


def test_rounds_force_every_kernel_once(tmp_path: Path) -> None:
    check = _load("tools/check_wheel.py", "check_wheel_rounds")
    usable = {"md5": ["portable", "arm64"], "md5-many": ["portable", "neon-x4", "neon-x8"]}
    assert check.rounds(usable) == [
        {"md5": "portable", "md5-many": "portable"},
        {"md5": "arm64", "md5-many": "neon-x4"},
        {"md5-many": "neon-x8"},
    ]
    assert check.rounds({}) == []
    assert check.parse_kernels("md5=arm64, sha256 = sha2,") == {"md5": "arm64", "sha256": "sha2"}


def test_summary_gives_the_aarch64_kernels_and_each_architectures_time(
    wheels: ModuleType,
) -> None:
    arm = wheels.Result("3.11-aarch64", "a.whl", "manylinux_2_17_aarch64", 4096, "ok",
                        "md5: AArch64 scalar", "9 passed", 300.0,
                        "kernels run: md5: portable arm64",
                        ["cortex-a53: md5: AArch64 scalar"])  # fmt: skip
    x86 = wheels.Result("3.12", "w.whl", "manylinux_2_17_x86_64", 2048, "ok", "md5: x", "1 passed")
    x86.seconds = 20.0
    text = wheels.summary([arm, x86], "glibc 2.31", 330.0, "glibc 2.31")
    assert "aarch64 against glibc 2.31 (bullseye's cross GCC)" in text
    assert "3.11-aarch64  a.whl (4 KiB, manylinux_2_17_aarch64): ok" in text
    assert "kernels run: md5: portable arm64" in text
    assert "cortex-a53: md5: AArch64 scalar" in text
    assert "x86_64: 1 interpreters, 20 s" in text
    assert "aarch64: 1 interpreters, 300 s" in text
    assert arm.arch == "aarch64" and x86.arch == "x86_64"


def test_the_mask_clears_only_the_crypto_bits(wheels: ModuleType, tmp_path: Path) -> None:
    """MASK_C, built for this machine, preloaded: AT_HWCAP less the crypto extension's bits
    (their positions are AArch64's; the arithmetic is the same here), other types untouched."""
    compiler = next((c for c in ("gcc", "cc") if shutil.which(c)), None)
    if compiler is None:
        pytest.skip("no C compiler")
    source, mask = tmp_path / "mask.c", tmp_path / "mask.so"
    source.write_text(wheels.MASK_C)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(mask), str(source), "-ldl"], check=True)
    code = (
        "import ctypes; f = ctypes.CDLL(None).getauxval; f.restype = ctypes.c_ulong\n"
        "f.argtypes = [ctypes.c_ulong]; print(f(16), f(6))"  # AT_HWCAP, AT_PAGESZ
    )
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    env = {**os.environ, "LD_PRELOAD": str(mask)}
    masked = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    hwcap, page = map(int, plain.stdout.split())
    crypto = (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (7 << 17) | (1 << 21)
    assert masked.stdout.split() == [str(hwcap & ~crypto), str(page)]


def test_the_cross_compiler_script_enters_the_tree_by_chroot_alone(wheels: ModuleType) -> None:
    """The aarch64 builds' script: the same argument handling, then chroot into the bullseye
    tree (whose mounts BIND_TREE made for the build), in the caller's folder."""
    tree = Path("/var/cache/variants/debian/bullseye")
    text = wheels.cc_script(Path("/e"), compiler=wheels.CROSS_GCC, chroot=tree)
    plain = wheels.cc_script(Path("/e"), compiler=wheels.CROSS_GCC)
    last = f'exec /usr/sbin/chroot {tree} /bin/sh -c \'cd "$0" && exec "$@"\' "$PWD" '
    assert text.splitlines()[-1] == last + f'{wheels.CROSS_GCC} "$@"'
    assert plain.splitlines()[-1] == f'exec /bin/sh /e {wheels.CROSS_GCC} "$@"'
    assert text.splitlines()[:-1] == plain.splitlines()[:-1]
    assert '"$VARIANTS_WHEEL_WORK"' in wheels.BIND_TREE and "mount --rbind" in wheels.BIND_TREE


def _tiny_wheel(folder: Path) -> Path:
    """A wheel of one pure-Python module, made here (nothing downloaded)."""
    wheel = folder / "tiny-1.0-py3-none-any.whl"
    info = "tiny-1.0.dist-info"
    files = {
        "tiny.py": "X = 1\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tiny\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


@pytest.mark.parametrize("emulated", [True, False])
def test_pip_under_emulation_really_compiles_nothing(
    wheels: ModuleType, tmp_path: Path, emulated: bool
) -> None:
    """EMULATED_PIP's environment leaves what pip installs uncompiled (PIP_NO_COMPILE=1 would
    not: pip takes its 1 as the value of ``compile``); without it pip compiles."""
    pytest.importorskip("pip")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(wheels.EMULATED_PIP if emulated else {"PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    target = tmp_path / "target"
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps"]
    install += ["--target", str(target), str(_tiny_wheel(tmp_path))]
    subprocess.run(install, env=env, check=True, capture_output=True)
    assert (target / "tiny.py").is_file()
    assert bool(list(target.rglob("*.pyc"))) is not emulated


def test_the_check_tools_are_installed_once_per_interpreter_and_requirements(
    wheels: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An aarch64 check's pytest and hypothesis: installed by the kept environment's pip into
    the folder beside it, again only when the requirements change or the install failed."""
    builder = wheels.Builder(tmp_path / "out", tmp_path / "work", lambda message: None)
    monkeypatch.setattr(builder, "pip_env", lambda label: tmp_path / "wheels" / label)
    ran: List[List[str]] = []
    failing = False

    def run(argv: List[str], env: Dict[str, str], output: Path) -> str:
        ran.append(argv)
        target = Path(argv[argv.index("--target") + 1])
        (target / "pytest").mkdir()
        if failing:
            raise RuntimeError("pip failed")
        return ""

    monkeypatch.setattr(builder, "run", run)
    log = tmp_path / "log.txt"
    tools = builder.check_tools("3.14-aarch64", ["pytest>=7", "hypothesis>=6"], log)
    assert tools == tmp_path / "wheels" / f"3.14-aarch64{wheels.CHECK_TOOLS}"
    assert ran[0][:2] == [
        *wheels.launcher("3.14-aarch64"),
        str(tmp_path / "wheels" / "3.14-aarch64" / "bin" / "python"),
    ]
    assert ran[0][-2:] == ["pytest>=7", "hypothesis>=6"] and (tools / "pytest").is_dir()
    assert builder.check_tools("3.14-aarch64", ["pytest>=7", "hypothesis>=6"], log) == tools
    assert len(ran) == 1  # kept
    builder.check_tools("3.14-aarch64", ["pytest>=7", "hypothesis>=6,<7"], log)
    assert len(ran) == 2 and ran[1][-1] == "hypothesis>=6,<7"
    failing = True
    with pytest.raises(RuntimeError, match="pip failed"):
        builder.check_tools("3.14-aarch64", ["pytest>=8"], log)
    assert not tools.exists()  # nothing half-installed is kept


def test_the_repaired_wheel_is_found_among_the_other_architectures(
    wheels: ModuleType, tmp_path: Path
) -> None:
    """Both architectures' wheels of an interpreter share the output folder, and differ only by
    their platform tags: nox -s wheels's first whole run failed each x86-64 wheel built after
    its aarch64 twin ("too many values to unpack")."""
    raw = tmp_path / "raw" / "hashlib_variants-0.1.0-cp313-cp313-linux_x86_64.whl"
    stem = "hashlib_variants-0.1.0-cp313-cp313"
    aarch64 = f"{stem}-manylinux2014_aarch64.manylinux_2_17_aarch64.whl"
    x86_64 = f"{stem}-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    for name in (aarch64, x86_64, "hashlib_variants-0.1.0-cp313-cp313t-manylinux_2_17_x86_64.whl"):
        (tmp_path / name).write_bytes(b"")
    assert wheels.repaired(tmp_path, raw, "x86_64").name == x86_64
    assert (
        wheels.repaired(
            tmp_path, raw.with_name(raw.name.replace("x86_64", "aarch64")), "aarch64"
        ).name
        == aarch64
    )
    (tmp_path / x86_64).unlink()
    with pytest.raises(ValueError, match="not one x86_64 wheel"):
        wheels.repaired(tmp_path, raw, "x86_64")


def test_each_tree_has_its_own_staged_headers(wheels: ModuleType, tmp_path: Path) -> None:
    """sid's and sid-arm64's python3.14 name the same include folder, each with its own
    architecture's pyconfig.h: staged in one folder, the second build found the first's."""
    builder = wheels.Builder(tmp_path, tmp_path, lambda message: None)
    assert builder.stage_of("3.14-aarch64") == tmp_path / "headers" / "sid-arm64"
    assert builder.stage_of("3.11-aarch64") == tmp_path / "headers" / "bookworm-arm64"
    assert builder.stage_of("3.14-aarch64") != builder.stage_of("3.14")
    assert builder.stage_of("3.11") == tmp_path / "headers" / "host"
