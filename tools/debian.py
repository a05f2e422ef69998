"""Debian trees to run interpreters newer than the host's in, and the free-threaded CPython 3.13.

One tool for the interpreters that the project makes itself (``bench/catalog/modes.py`` says
which exist and where each lives):

* a **Debian tree** per suite (``sid``: CPython 3.14 and 3.15, PyPy 8), made by
  ``debootstrap --variant=minbase`` into ``/var/cache/variants/debian/<suite>``
  (``$VARIANTS_DEBIAN_ROOT`` moves it), with the packages of ``PACKAGES`` installed, and an
  **entry script** beside it, ``enter-<suite>``, that runs its arguments as a command inside the
  tree: a private mount namespace (``unshare --mount``), /proc, /sys and /dev mounted, the host's
  working directories bound at the same paths (/work, /tmp, /var/tmp, pip's cache, the current
  directory and ``$VARIANTS_DEBIAN_BINDS``, colon-separated; never over the tree's system
  folders, /usr, /etc, /lib and the like, but over anything else the tree holds at that path),
  the host's resolv.conf, then ``chroot``, in the same directory, with
  the caller's environment. The mounts vanish with the command, however it ends. The host's CA
  bundle is copied into the tree after each install, so that pip there trusts what the host
  trusts (``PIP_CERT`` and the like name the same path inside).
* an **arm64 tree** per suite the aarch64 wheels need (``bullseye-arm64``, ``bookworm-arm64``,
  ``trixie-arm64``, ``sid-arm64``: a tree's name is its suite and, for a foreign one, its
  Debian architecture), made the same way by ``debootstrap --arch arm64``; its programs run
  under qemu-user, whose binfmt_misc handler (qemu-user-static's, ``fix binary``, so that it
  is found from inside any chroot) is registered first, binfmt_misc mounted if need be.
* the **free-threaded CPython 3.13** (``3.13t``), built on the host from Debian 13's python3.13
  source package (the upstream tarball in it; no Debian release ships a free-threaded build),
  downloaded with a throw-away deb-src list so that the host's apt is left alone.

Both download from the Debian archive the host's apt uses (its sources' first ``deb`` line),
or the one ``--mirror URL`` or ``$VARIANTS_DEBIAN_MIRROR`` names; with neither (a host without
apt sources) they stop and say so, rather than guess an address. Both are made with no step
by hand, are no-ops once made (a stamp in the tree says what was
installed), take a lock, and are safe to interrupt: a tree is made in ``.<suite>.partial`` and
renamed into place when complete, the interpreter is built and installed in a temporary
directory and renamed. Everything needs root (debootstrap, mount, chroot, apt-get).

From a shell::

    python3 tools/debian.py ensure sid            # make the tree (once), print its entry script
    python3 tools/debian.py ensure bookworm-arm64 # an arm64 tree, run under qemu-user
    python3 tools/debian.py run sid -- python3.14 -c 'import sys; print(sys.version)'
    /var/cache/variants/debian/enter-sid python3.15 -m venv /tmp/v315   # the same, directly
    python3 tools/debian.py versions sid          # the installed version of each package
    python3 tools/debian.py freethreaded          # print python3.13t's path, building it once
    python3 tools/debian.py freethreaded --check  # print it, or exit 1: never builds

From Python (standard library only; the noxfile loads this file)::

    debian.ensure_tree("sid")        # the tree's Path, made if missing
    debian.ensure_interpreter("3.14")  # [".../enter-sid", "/usr/bin/python3.14"], made if missing
    debian.enter_argv("sid")         # ["/var/cache/variants/debian/enter-sid"]
    debian.freethreaded(build=True)  # the Path of python3.13t
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
if "bench" not in sys.modules and str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # last: the checkout's unbuilt variants/ must not shadow any

from bench.catalog import modes  # noqa: E402  (where trees and interpreters live)

Log = Callable[[str], None]

#: Where the host's apt sources are.
APT_SOURCES = Path("/etc/apt")
#: Names the Debian archive to make trees and fetch sources from (``--mirror`` sets it); else
#: the host's apt's.
MIRROR_ENV = "VARIANTS_DEBIAN_MIRROR"


def host_mirror(apt: Path = APT_SOURCES) -> Optional[str]:
    """The Debian archive the host's apt uses (its first ``deb`` source that is not the
    security archive): a deb822 ``URIs:`` line or a one-line ``deb URI SUITE`` entry; None if
    its sources name none."""
    parts = apt / "sources.list.d"
    files = [*sorted(parts.glob("*.sources")), apt / "sources.list", *sorted(parts.glob("*.list"))]
    for path in (f for f in files if f.is_file()):
        for stanza in path.read_text(errors="replace").split("\n\n"):
            fields = dict(re.findall(r"^(Types|URIs):\s*(.+)$", stanza, re.M))
            deb = "deb" in fields.get("Types", "").split() and "URIs" in fields
            found: List[str] = fields["URIs"].split()[:1] if deb else []
            found += re.findall(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+\S+", stanza, re.M)
            for uri in map(str, found):
                if "security" not in uri and uri.startswith(("http://", "https://", "file:")):
                    return uri.rstrip("/")
    return None


def mirror(apt: Path = APT_SOURCES) -> str:
    """The Debian archive to use: ``$VARIANTS_DEBIAN_MIRROR``, else the host's apt's. With
    neither there is no guessing one (a host without apt sources may be one that must not
    reach the internet, or reaches it through a mirror of its own): TreeError saying what to
    pass."""
    given = os.environ.get(MIRROR_ENV, "").strip()
    if given:
        return given.rstrip("/")
    found = host_mirror(apt)
    if found is None:
        raise TreeError(
            f"no Debian archive to use: the host's apt sources ({apt}/sources.list, "
            f"{apt}/sources.list.d/) name none. Pass the URL of a Debian archive that has the "
            f"suite, as a sources.list's 'deb URL SUITE main' line gives it: "
            f"--mirror URL (python3 tools/debian.py ensure|freethreaded --mirror URL) or "
            f"{MIRROR_ENV}=URL in the environment (the study's and the suites' runs pass it on)"
        )
    return found


#: What each suite's tree holds: the interpreters of bench/catalog/modes.py that live there,
#: their headers and venv modules, what building the variants' C needs, and valgrind.
PACKAGES: Dict[str, Tuple[str, ...]] = {
    "sid": (
        *("python3.14", "python3.14-dev", "python3.14-venv"),
        *("python3.15", "python3.15-dev", "python3.15-venv"),
        *("pypy3", "pypy3-dev", "pypy3-venv"),
        *("gcc", "libc6-dev", "libffi-dev", "pkg-config"),
        "valgrind",  # bench/profile/callgrind.py counts instructions inside the tree
        *("openjdk-25-jdk-headless", "openjdk-25-jre-zero"),  # the JDK 25 columns, Zero too
    ),
    # The oldest Debian the archive still serves (glibc 2.31): its compilers and C libraries
    # build the wheels' extensions (tools/wheels.py), so that they ask no newer glibc of a user:
    # GCC 10 for x86-64, and its cross GCC 10 with the arm64 glibc 2.31 for aarch64.
    "bullseye": ("gcc", "libc6-dev", "gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"),
    # arm64 trees (FOREIGN: run under qemu-user through binfmt_misc): the aarch64 wheels'
    # interpreters, with their headers and venv modules, and no compiler (the cross GCC above
    # compiles; the wheels' checks want none on PATH). bullseye's PyPy is 7.3.3 (Python 3.7).
    "bullseye-arm64": ("python3.9", "python3.9-dev", "python3.9-venv"),
    "bookworm-arm64": (
        *("python3.11", "python3.11-dev", "python3.11-venv"),
        *("pypy3", "pypy3-dev", "pypy3-venv"),  # PyPy 7.3.11 (Python 3.9)
    ),
    "trixie-arm64": ("python3.13", "python3.13-dev", "python3.13-venv"),
    "sid-arm64": (
        *("python3.14", "python3.14-dev", "python3.14-venv"),
        *("python3.15", "python3.15-dev", "python3.15-venv"),
        *("pypy3", "pypy3-dev", "pypy3-venv"),  # PyPy 8 (Python 3.11)
    ),
}

#: A tree's name is its Debian suite, or the suite and a foreign architecture ("sid-arm64"):
#: that architecture's Debian, whose programs run under qemu-user (``QEMU``).
FOREIGN = {"arm64": "aarch64"}
#: qemu-user-static registers its binfmt_misc handlers (``fix binary``: found from any chroot)
#: in these files; a machine without systemd-binfmt has them written by ``ensure_binfmt``.
BINFMT = Path("/proc/sys/fs/binfmt_misc")
BINFMT_CONF = Path("/usr/lib/binfmt.d")
QEMU = ("qemu-user-static",)
#: The CPU qemu-user gives a foreign tree's programs (``QEMU_CPU``, unless the caller sets one):
#: its default, "max", with pointer authentication's own algorithm swapped for qemu's cheap
#: implementation-defined one. Debian builds arm64 packages with branch protection since
#: trixie (a PACIASP and an AUTIASP in most functions), and qemu 7.2 computes the architected
#: QARMA5 for each: python3.14 of the sid tree ran a loop 8 times slower under "max" than
#: under this (17.6 s against 2.1 s; 1.3 s with pauth off; bookworm's 3.11, built without it,
#: 1.3 s under both). Every feature of "max" stays, pointer authentication included.
EMULATED_CPU = "max,pauth-impdef=on"


def suite_arch(name: str) -> Tuple[str, Optional[str]]:
    """A tree's Debian suite and its foreign architecture (None: the host's):
    "sid-arm64" -> ("sid", "arm64")."""
    suite, _, arch = name.rpartition("-")
    if suite and arch in FOREIGN:
        return suite, arch
    return name, None


#: Where the tools that make and enter a tree live (debootstrap, chroot: sbin folders, which a
#: caller's PATH may lack).
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

#: The environment of the steps that fill a tree (not the caller's).
APT_ENV: Dict[str, str] = {
    "PATH": SYSTEM_PATH,
    "HOME": "/root",
    "LANG": "C.UTF-8",
    "DEBIAN_FRONTEND": "noninteractive",
}

#: The tree's record of what it holds, written last.
STAMP = Path("var/lib/variants-tree.json")
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


class TreeError(RuntimeError):
    """Making, filling or entering a tree, or building an interpreter, failed: the message says
    which step and why."""


def log_stderr(message: str) -> None:
    """The command line's logger: progress goes to stderr, results to stdout."""
    print(message, file=sys.stderr, flush=True)


def require_root(what: str) -> None:
    """TreeError unless running as root."""
    if os.geteuid() != 0:
        raise TreeError(f"{what} needs root (debootstrap, mount, chroot, apt-get): run as root")


def caller_env() -> Dict[str, str]:
    """Our environment, with the sbin folders debootstrap, chroot and unshare live in added."""
    return {**os.environ, "PATH": os.environ.get("PATH", "") + os.pathsep + SYSTEM_PATH}


def run(
    argv: Sequence[str],
    log: Log,
    *,
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[Path] = None,
    output: Optional[IO[bytes]] = None,
) -> None:
    """Run a command, logging it; TreeError if it fails or is missing. Its output goes to
    ``output`` if given, else to our stderr (a command line's stdout holds only results)."""
    log("$ " + shlex.join(argv))
    if env is None:
        env = caller_env()
    try:
        subprocess.run(
            list(argv),
            env=env,
            cwd=cwd,
            stdout=output or sys.stderr.fileno(),
            stderr=subprocess.STDOUT if output else None,
            check=True,
        )
    except OSError as error:
        raise TreeError(f"cannot run {argv[0]}: {error}") from error
    except subprocess.CalledProcessError as error:
        raise TreeError(f"{shlex.join(argv)} failed with exit code {error.returncode}") from error


@contextlib.contextmanager
def locked(path: Path, log: Log) -> Iterator[None]:
    """An exclusive flock on ``path`` (created if needed) for the ``with`` block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for {path} (another process is making the same thing)")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def remove_tree(path: Path, log: Log) -> None:
    """rm -rf ``path``, refusing while anything is mounted below it (a bound /dev or /work)."""
    if not path.exists() and not path.is_symlink():
        return
    prefix = str(path.resolve()).rstrip("/") + "/"
    with open("/proc/self/mounts") as mounts:
        mounted = [line.split()[1] for line in mounts if (line.split()[1] + "/").startswith(prefix)]
    if mounted:
        raise TreeError(f"not removing {path}: still mounted there: {', '.join(mounted)}")
    log(f"removing {path}")
    shutil.rmtree(path)


def ensure_host_packages(packages: Sequence[str], log: Log) -> None:
    """apt-get install on the host whichever of ``packages`` are missing."""
    query = ["dpkg-query", "-W", "-f=${Package} ${Status}\n", *packages]
    listed = subprocess.run(query, capture_output=True, text=True, check=False).stdout
    have = {line.split()[0] for line in listed.splitlines() if line.endswith(" installed")}
    missing = [package for package in packages if package not in have]
    if missing:
        require_root("installing " + " ".join(missing))
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive", "PATH": SYSTEM_PATH}
        run(["apt-get", "update", "-q"], log, env=env)
        run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], log, env=env)


def ensure_binfmt(arch: str, log: Log) -> None:
    """The kernel runs ``arch``'s programs under qemu-user: qemu-user-static installed, the
    binfmt_misc file system mounted and its handler registered (what systemd-binfmt does at
    boot, done here where no systemd runs: containers, CI). TreeError if the kernel has no
    binfmt_misc."""
    machine = FOREIGN[arch]
    if (BINFMT / f"qemu-{machine}").exists():
        return
    require_root(f"running {arch} programs under qemu-user")
    ensure_host_packages(QEMU, log)
    if not (BINFMT / "register").exists():
        if "binfmt_misc" not in Path("/proc/filesystems").read_text():
            raise TreeError("this kernel has no binfmt_misc: no foreign tree can run here")
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], log)
    if not (BINFMT / f"qemu-{machine}").exists():
        line = (BINFMT_CONF / f"qemu-{machine}.conf").read_text().strip()
        log(f"registering qemu-{machine} with binfmt_misc")
        (BINFMT / "register").write_text(line + "\n")


# --- entering a tree -----------------------------------------------------------------------

#: The entry script; {tree} and {suite} are filled in. Inside ``unshare --mount`` it mounts the
#: kernel's file systems, binds each host directory (never over the tree's /usr, /etc, /lib and
#: the like; over anything else at that path in the tree), then chroots into the same directory.
ENTRY = r"""#!/bin/sh
# Runs its arguments (default: a shell) inside the Debian {suite} tree {tree},
# with the host's working directories at the same paths. Written by tools/debian.py.
tree={tree}
if [ "$(id -u)" != 0 ]; then
    echo "$0: entering $tree needs root (unshare --mount, chroot)" >&2
    exit 126
fi
[ "$#" -gt 0 ] || set -- /bin/sh
# unshare, mount and chroot live in sbin folders that the caller's PATH may lack (as CI's did):
# they are looked up with those folders appended; the command inside gets the caller's PATH.
caller_path=${{PATH:-/usr/local/bin:/usr/bin:/bin}}
PATH=$caller_path:{system_path}
export PATH
{emulated}exec unshare --mount --propagation {propagation} -- /bin/sh -c '
set -e
tree=$1
caller_path=$2
shift 2
{private}mount -t proc proc "$tree/proc"
mount --rbind /sys "$tree/sys"
mount --rbind /dev "$tree/dev"
if [ -f /etc/resolv.conf ]; then
    touch "$tree/etc/resolv.conf" && mount --bind /etc/resolv.conf "$tree/etc/resolv.conf"
fi
here=$(pwd)
old_ifs=$IFS
IFS=:
set -f
dirs="/work:/tmp:/var/tmp:${{HOME:-/root}}/.cache/pip:$here:${{VARIANTS_DEBIAN_BINDS:-}}"
bound=
for dir in $dirs; do
    case "$dir" in /*) ;; *) continue ;; esac
    [ -d "$dir" ] || continue
    # never over the system folders of the tree, nor into the tree itself
    case "$dir" in
        /|/usr|/usr/*|/etc|/etc/*|/bin|/bin/*|/sbin|/sbin/*|/lib|/lib/*|/lib32|/lib32/*) continue ;;
        /lib64|/lib64/*|/libx32|/libx32/*|/boot|/boot/*|/proc|/proc/*|/sys|/sys/*) continue ;;
        /dev|/dev/*|/run|/run/*|/var) continue ;;
    esac
    case "$dir/" in "$tree"/*) continue ;; esac
    # a folder under one bound already is there; whatever the tree holds at the path (an earlier
    # command may have left a folder there: the clone path of CI once) is covered, not trusted
    inside=no
    for done_dir in $bound; do
        case "$dir/" in "$done_dir"/*) inside=yes ;; esac
    done
    [ "$inside" = no ] || continue
    mkdir -p "$tree$dir"
    mount --rbind "$dir" "$tree$dir"
    bound=${{bound:+$bound:}}$dir
done
IFS=$old_ifs
set +f
exec chroot "$tree" /bin/sh -c "PATH=\$1; shift; cd \"\$0\" 2>/dev/null || cd /; exec \"\$@\"" \
    "$here" "$caller_path" "$@"
' enter "$tree" "$caller_path" "$@"
"""


#: A nestable entry's first step: its mounts private where / is a mount point (the host); inside
#: another tree's chroot it is not, but that tree's namespace is private already.
NESTABLE_PRIVATE = "mount --make-rprivate / 2>/dev/null || true\n"


#: A foreign tree's entry: the CPU its programs get under qemu-user (``EMULATED_CPU``).
EMULATED_ENTRY = "QEMU_CPU=${{QEMU_CPU:-{cpu}}}\nexport QEMU_CPU\n"


def entry_text(tree: Path, suite: str, nestable: bool = False) -> str:
    """The entry script of the tree at ``tree``; ``nestable``: one that also works from inside
    another tree (whose chroot's / is no mount point, which ``unshare --propagation private``
    needs)."""
    return ENTRY.format(
        tree=shlex.quote(str(tree)),
        suite=suite,
        system_path=SYSTEM_PATH,
        propagation="unchanged" if nestable else "private",
        private=NESTABLE_PRIVATE if nestable else "",
        emulated=EMULATED_ENTRY.format(cpu=EMULATED_CPU) if suite_arch(suite)[1] else "",
    )


def _in_tree(tree: Path, suite: str, argv: Sequence[str]) -> List[str]:
    """argv that runs ``argv`` in the tree at ``tree`` (its entry script given inline)."""
    return ["/bin/sh", "-c", entry_text(tree, suite), "enter", *argv]


def enter_argv(suite: str) -> List[str]:
    """The argv prefix that runs a command inside ``suite``'s tree (made by ensure_tree)."""
    entry = modes.entry_script(suite)
    if not entry.exists():
        raise TreeError(f"no {suite} tree: python3 {Path(__file__).name} ensure {suite}")
    return [str(entry)]


def run_in(suite: str, argv: Sequence[str], env: Optional[Mapping[str, str]] = None) -> int:
    """Run ``argv`` inside ``suite``'s tree (the tree made first if need be); its exit code.
    The command gets our environment plus ``env``, and the current directory."""
    ensure_tree(suite)
    done = subprocess.run([*enter_argv(suite), *argv], env={**os.environ, **(env or {})})
    return done.returncode


# --- making a tree --------------------------------------------------------------------------


def stamp(tree: Path) -> Dict[str, object]:
    """What the tree at ``tree`` says it holds (empty: not a finished tree)."""
    try:
        loaded: Dict[str, object] = json.loads((tree / STAMP).read_text())
    except (OSError, ValueError):
        return {}
    return loaded


def _missing(tree: Path, packages: Sequence[str]) -> List[str]:
    held = stamp(tree).get("packages")
    have = set(held) if isinstance(held, list) else set()
    return [package for package in packages if package not in have]


def _configure(tree: Path, suite: str) -> None:
    """apt of the new tree: ``suite`` from the mirror, with an archive snapshot's expired
    Release accepted, no daemons started, no documentation unpacked."""
    apt = tree / "etc" / "apt"
    (apt / "sources.list").write_text(f"deb {mirror()} {suite_arch(suite)[0]} main\n")
    (apt / "apt.conf.d" / "99variants").write_text(
        'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\n'
    )
    (tree / "etc" / "dpkg" / "dpkg.cfg.d" / "99variants").write_text(
        "path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\n"
        "path-exclude /usr/share/locale/*\n"
    )
    policy = tree / "usr" / "sbin" / "policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)


def _install(tree: Path, suite: str, packages: Sequence[str], log: Log) -> None:
    """apt-get install ``packages`` in the tree at ``tree`` and record them in its stamp."""
    steps = [
        ["dpkg", "--configure", "-a"],  # finish a run that was interrupted
        ["apt-get", "update", "-q"],
        ["apt-get", "install", "-y", "-q", *packages],
        ["apt-get", "clean"],
    ]
    for step in steps:
        run(_in_tree(tree, suite, step), log, env=APT_ENV, cwd=Path("/"))
    if Path(CA_BUNDLE).is_file():  # pip in the tree trusts what the host trusts
        bundle = tree / CA_BUNDLE.lstrip("/")
        bundle.parent.mkdir(parents=True, exist_ok=True)  # a tree without ca-certificates
        shutil.copyfile(CA_BUNDLE, bundle)
    query = ["dpkg-query", "-W", "-f=${Package} ${Version}\n", *packages]
    listed = subprocess.run(
        _in_tree(tree, suite, query), env=APT_ENV, cwd="/", capture_output=True, text=True
    ).stdout
    versions = dict(line.split(" ", 1) for line in listed.splitlines() if " " in line)
    before = stamp(tree)
    held, known = before.get("packages"), before.get("versions")
    record = {
        "suite": suite,
        "mirror": host_mirror(tree / "etc" / "apt"),  # the tree's own sources
        "packages": sorted({*(held if isinstance(held, list) else []), *packages}),
        "versions": {**(known if isinstance(known, dict) else {}), **versions},
    }
    (tree / STAMP).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def _write_entry(tree: Path, suite: str) -> Path:
    """The tree's entry script, (re)written when its text differs; its path."""
    entry = modes.entry_script(suite)
    text = entry_text(tree, suite)
    if not entry.exists() or entry.read_text() != text:
        partial = entry.with_name(f".{entry.name}.new")
        partial.write_text(text)
        partial.chmod(0o755)
        partial.rename(entry)
    return entry


def ensure_tree(suite: str = "sid", log: Log = log_stderr) -> Path:
    """``suite``'s tree with its PACKAGES installed and its entry script written: made if
    missing (about a minute of debootstrap, then the installs; several under emulation, for a
    foreign tree), completed if a package is missing, else returned at once. Its Path. A
    foreign tree ("sid-arm64") has its qemu-user handler registered first, made or not (a
    reboot forgets it)."""
    tree = modes.tree_path(suite)
    packages = PACKAGES.get(suite, ())
    entry = modes.entry_script(suite)
    debian_suite, arch = suite_arch(suite)
    if arch:  # before debootstrap, whose second stage runs the tree's programs
        ensure_binfmt(arch, log)
    ready = stamp(tree) and not _missing(tree, packages) and entry.exists()
    if ready and entry.read_text() == entry_text(tree, suite):
        return tree
    require_root(f"making the Debian {suite} tree {tree}")
    with locked(tree.parent / f".{suite}.lock", log):
        started = time.monotonic()
        if not stamp(tree):
            if tree.exists():
                raise TreeError(f"{tree} exists but is not a finished tree: remove it")
            archive = mirror()  # before anything is installed or made
            ensure_host_packages(["debootstrap"], log)
            partial = tree.parent / f".{suite}.partial"
            remove_tree(partial, log)
            log(f"making the Debian {suite} tree in {partial}")
            debootstrap = ["debootstrap", "--variant=minbase", *(["--arch", arch] if arch else [])]
            debootstrap += [debian_suite, str(partial), archive]
            # its second stage runs the tree's programs: under EMULATED_CPU for a foreign one
            cpu = {"QEMU_CPU": os.environ.get("QEMU_CPU", EMULATED_CPU)} if arch else {}
            unshared = ["unshare", "--mount", "--propagation", "private", "--", *debootstrap]
            run(unshared, log, env={**caller_env(), **cpu})
            log(f"  debootstrap took {time.monotonic() - started:.0f} s")
            _configure(partial, suite)
            _install(partial, suite, packages, log)
            partial.rename(tree)
        elif _missing(tree, packages):
            _install(tree, suite, _missing(tree, packages), log)
        _write_entry(tree, suite)
        log(f"{suite} tree ready at {tree} in {time.monotonic() - started:.0f} s")
    return tree


def versions(suite: str) -> Dict[str, str]:
    """The installed version of each of the tree's packages, from its stamp."""
    found = stamp(modes.tree_path(suite)).get("versions")
    return dict(found) if isinstance(found, dict) else {}


# --- sources and the free-threaded CPython 3.13 --------------------------------------------


def download_source(package: str, suite: str, dest: Path, log: Log) -> None:
    """``apt-get source --download-only package`` from ``suite`` into ``dest``, with a
    throw-away deb-src list and index (the host's apt is left alone; any host release)."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="variants-apt-") as tmp:
        state = Path(tmp)
        (state / "lists" / "partial").mkdir(parents=True)
        (state / "parts").mkdir()
        (state / "sources.list").write_text(f"deb-src {mirror()} {suite} main\n")
        options = [
            "-o", f"Dir::Etc::SourceList={state / 'sources.list'}",
            "-o", f"Dir::Etc::SourceParts={state / 'parts'}",
            "-o", f"Dir::State::Lists={state / 'lists'}",
            "-o", "Acquire::Check-Valid-Until=false",
        ]  # fmt: skip
        run(["apt-get", *options, "update", "-q"], log)
        run(["apt-get", *options, "source", "--download-only", package], log, cwd=dest)


FREETHREADED = modes.interpreter("3.13t")
SOURCE = ("python3.13", "trixie")  # Debian 13's package: upstream's tarball, unpatched

#: Standard-library modules the free-threaded interpreter must import.
REQUIRED_MODULES = ("ssl", "_hashlib", "zlib", "_ctypes", "sqlite3", "bz2", "lzma", "venv")

#: Host packages its build needs: the toolchain and the headers of those modules (and a few
#: more: readline, curses, dbm, uuid).
BUILD_PACKAGES = (
    *("build-essential", "pkg-config", "xz-utils", "libssl-dev", "zlib1g-dev", "libffi-dev"),
    *("libbz2-dev", "liblzma-dev", "libsqlite3-dev", "libreadline-dev", "libncurses-dev"),
    *("uuid-dev", "libgdbm-dev", "libgdbm-compat-dev"),
)

#: Run by a candidate interpreter: None-or-problem, as one line.
PROBE = """
import sys, sysconfig
missing = []
for name in sys.argv[1:]:
    try:
        __import__(name)
    except ImportError:
        missing.append(name)
if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 13):
    print("is not CPython 3.13")
elif sysconfig.get_config_var("Py_GIL_DISABLED") != 1 or sys._is_gil_enabled():
    print("is not free-threaded (the GIL is on)")
elif missing:
    print("cannot import " + ", ".join(missing))
"""


def _problem(python: Path) -> str:
    """ "" if ``python`` is a usable free-threaded CPython 3.13, else what is wrong with it."""
    try:
        done = subprocess.run(
            [str(python), "-I", "-c", PROBE, *REQUIRED_MODULES],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"does not run: {error}"
    if done.returncode:
        return f"exits {done.returncode}: {done.stderr.strip()[-300:]}"
    return done.stdout.strip()


def freethreaded(build: bool = True, log: Log = log_stderr) -> Path:
    """The free-threaded CPython 3.13's executable (bench/catalog/modes.py finds it), built
    into its prefix if missing and ``build`` (5 to 9 minutes here). TreeError if there is none
    (or the build fails)."""
    argv, why = modes.find(FREETHREADED.label)
    problem = _problem(Path(argv[0])) if argv else why
    if not problem and argv:
        return Path(argv[0])
    if not build:
        raise TreeError(f"no usable {FREETHREADED.program}: {problem}")
    require_root(f"building {FREETHREADED.program}")
    prefix = modes.freethreaded_prefix().absolute()
    with locked(prefix.parent / f".{prefix.name}.lock", log):
        python = prefix / "bin" / FREETHREADED.program
        if not (python.exists() and not _problem(python)):
            _build(prefix, log)
    return python


def _build(prefix: Path, log: Log) -> None:
    """Download, configure, make, install into a staging directory, check and rename."""
    started = time.monotonic()
    parent = prefix.parent
    parent.mkdir(parents=True, exist_ok=True)
    for stale in parent.glob(f".build-{prefix.name}-*"):  # left by an interrupted build
        remove_tree(stale, log)
    ensure_host_packages(BUILD_PACKAGES, log)
    package, suite = SOURCE
    download_source(package, suite, parent / "src", log)
    tarballs = sorted(
        (parent / "src").glob(f"{package}_*.orig.tar.xz"),
        key=lambda path: [int(part) for part in re.findall(r"\d+", path.name.split("_")[1])],
    )
    if not tarballs:
        raise TreeError(f"apt-get source left no {package}_*.orig.tar.xz in {parent / 'src'}")
    work = Path(tempfile.mkdtemp(prefix=f".build-{prefix.name}-", dir=parent))
    build_log = parent / f"{prefix.name}-build.log"
    log(f"building {prefix} from {tarballs[-1].name} (each step's output: {build_log})")
    try:
        with build_log.open("wb") as output:
            run(["tar", "-xJf", str(tarballs[-1]), "-C", str(work)], log, output=output)
            sources = [path for path in work.iterdir() if (path / "configure").exists()]
            if len(sources) != 1:
                raise TreeError(f"{tarballs[-1].name} holds no one source tree with ./configure")
            source = sources[0]
            configure = ["./configure", "--disable-gil", f"--prefix={prefix}"]
            for step in (
                [*configure, "--with-ensurepip=install"],
                ["make", f"-j{os.cpu_count() or 1}"],
                ["make", "install", f"DESTDIR={work / 'stage'}"],
            ):
                run(step, log, cwd=source, output=output)
        staged = work / "stage" / prefix.relative_to(prefix.anchor)
        problem = _problem(staged / "bin" / FREETHREADED.program)
        if problem:
            raise TreeError(f"the built {FREETHREADED.program} {problem}; see {build_log}")
        if prefix.exists():
            prefix.rename(work / "previous")
        staged.rename(prefix)
    except TreeError as error:
        tail = build_log.read_text(errors="replace").splitlines()[-20:]
        raise TreeError(f"{error}\n" + "\n".join(tail)) from None
    finally:
        remove_tree(work, log)
    log(f"built {prefix} in {time.monotonic() - started:.0f} s")


def ensure_interpreter(label: str, log: Log = log_stderr) -> List[str]:
    """The argv that starts interpreter ``label`` of bench/catalog/modes.py, after making its
    tree or building it if it is one of those this tool makes (others are only found)."""
    row = modes.interpreter(label)
    if row.where == "built":
        freethreaded(log=log)
    elif row.where not in modes.HOST_PLACES:
        ensure_tree(row.where, log)
    argv, why = modes.find(label)
    if argv is None:
        raise TreeError(why)
    return argv


# --- command line ---------------------------------------------------------------------------


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ensure = commands.add_parser("ensure", help="make a tree (once); print its entry script")
    ensure.add_argument("suite", choices=sorted(PACKAGES))
    inside = commands.add_parser("run", help="run a command inside a tree (made if missing)")
    inside.add_argument("suite", choices=sorted(PACKAGES))
    inside.add_argument("argv", nargs="+", help="the command (after --)")
    listing = commands.add_parser("versions", help="the versions of a tree's packages")
    listing.add_argument("suite", choices=sorted(PACKAGES))
    ft = commands.add_parser("freethreaded", help="print python3.13t's path, built once")
    ft.add_argument("--check", action="store_true", help="never build: exit 1 if missing")
    for making in (ensure, inside, ft):
        making.add_argument(
            "--mirror",
            metavar="URL",
            help=f"the Debian archive to download from (default: ${MIRROR_ENV}, else the "
            "host's apt sources)",
        )
    args = parser.parse_args(argv)
    if getattr(args, "mirror", None):
        os.environ[MIRROR_ENV] = args.mirror
    # On SIGTERM unwind as on ^C: subprocess.run then kills the running step.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        if args.command == "ensure":
            ensure_tree(args.suite)
            print(modes.entry_script(args.suite))
        elif args.command == "run":
            return run_in(args.suite, args.argv)
        elif args.command == "versions":
            for name, version in sorted(versions(args.suite).items()):
                print(f"{name} {version}")
        else:
            print(freethreaded(build=not args.check))
    except TreeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1 if args.command == "freethreaded" and args.check else 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
