"""A Debian 13 ("trixie") tree, kept outside every clone, to run commands in as Debian 13 would.

The tree is ``debootstrap --variant=minbase trixie`` at ``/var/cache/variants/trixie`` (or
``$VARIANTS_TRIXIE_ROOT``), with ``deb`` and ``deb-src`` lines for trixie, trixie-updates and
trixie-security on the host's own Debian mirror. It serves two purposes:

* ``tools/freethreaded.py`` downloads Debian 13's python3.13 source package in it when the host
  is not Debian 13 (the interpreter itself is built on the host);
* the project's test suite can be run in it the way a Debian 13 machine would run it, with
  Debian 13's python3, pypy3, gcc, coreutils, qemu-user and cross compilers (``TEST_PACKAGES``).

From Python (stdlib only; everything needs root)::

    import trixie                                  # tools/ on sys.path
    root = trixie.prepare()                        # tree + TEST_PACKAGES; returns its Path
    rc = trixie.run_in_tree(root, ["sh", "-c", "cd /src && python3 -m venv /tmp/v"],
                            binds=[(Path("/tmp/variants-copy"), "/src")], check=False)
    trixie.versions(root)                          # {"coreutils": "9.7", ...}

From a shell::

    python3 tools/trixie.py prepare                # make the tree, install TEST_PACKAGES
    python3 tools/trixie.py run --bind /tmp/copy:/src --cwd /src -- python3 -m pytest
    python3 tools/trixie.py versions               # one "name: version" line per tool

``run_in_tree`` chroots with /proc, /sys, /dev (and /dev/pts) and the given host directories
mounted inside a private mount namespace (``unshare --mount``): the mounts are invisible to the
host and vanish with the command, whatever way it ends, and are also unmounted explicitly.
Making the tree and installing into it take a lock, are safe to interrupt (debootstrap works in a
side directory renamed into place when done; a broken dpkg run is resumed) and are no-ops when
already done.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

Log = Callable[[str], None]

CACHE_ROOT = Path("/var/cache/variants")
ROOT_ENV = "VARIANTS_TRIXIE_ROOT"
DEFAULT_ROOT = CACHE_ROOT / "trixie"
SUITE = "trixie"
FALLBACK_MIRROR = "http://deb.debian.org/debian"

#: What the project's test suite needs to run as on Debian 13 (``ensure_packages``'s default).
TEST_PACKAGES: Tuple[str, ...] = (
    "python3",
    "python3-venv",
    "python3-dev",
    "gcc",
    "coreutils",
    "pypy3",
    "pypy3-dev",
    "qemu-user",
    "gcc-aarch64-linux-gnu",
    "libc6-dev-arm64-cross",
    "gcc-riscv64-linux-gnu",
    "libc6-dev-riscv64-cross",
    "git",
    "valgrind",
)

#: The environment a command starts with inside the tree (the host's own is not passed in).
BASE_ENV: Dict[str, str] = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/root",
    "LANG": "C.UTF-8",
    "DEBIAN_FRONTEND": "noninteractive",
}


class TreeError(RuntimeError):
    """A step that makes, fills or enters the tree failed; the message says which and why."""


def log_stderr(message: str) -> None:
    """The command line's logger: progress goes to stderr, results to stdout."""
    print(message, file=sys.stderr, flush=True)


def default_root() -> Path:
    """The tree's path: ``$VARIANTS_TRIXIE_ROOT`` if set, else ``/var/cache/variants/trixie``."""
    return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


# --- the host ------------------------------------------------------------------------------


def os_release(path: Path = Path("/etc/os-release")) -> Dict[str, str]:
    """The host's /etc/os-release as a dict (empty if the file is missing)."""
    fields: Dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep:
                fields[key.strip()] = value.strip().strip('"')
    return fields


def host_codename() -> str:
    """The host's Debian codename ("bookworm", "trixie", ...), or "" if it cannot be told."""
    return os_release().get("VERSION_CODENAME", "")


def _source_entries() -> Iterator[Tuple[List[str], str, List[str], List[str]]]:
    """(types, uri, suites, components) of each apt source on the host, both file formats."""
    apt = Path("/etc/apt")
    one_line = [apt / "sources.list", *sorted((apt / "sources.list.d").glob("*.list"))]
    for path in one_line:
        with contextlib.suppress(OSError):
            for raw in path.read_text().splitlines():
                words = re.sub(r"\[[^\]]*\]", " ", raw.split("#", 1)[0]).split()
                if len(words) >= 3 and words[0] in ("deb", "deb-src"):
                    yield [words[0]], words[1], [words[2]], words[3:]
    for path in sorted((apt / "sources.list.d").glob("*.sources")):
        with contextlib.suppress(OSError):
            for stanza in re.split(r"\n\s*\n", path.read_text()):
                fields: Dict[str, List[str]] = {}
                for line in stanza.splitlines():
                    key, sep, value = line.partition(":")
                    if sep and not line.startswith(("#", " ", "\t")):
                        fields[key.strip().lower()] = value.split()
                if fields.get("enabled", ["yes"])[0].lower() == "no":
                    continue
                for uri in fields.get("uris", []):
                    yield (
                        fields.get("types", []),
                        uri,
                        fields.get("suites", []),
                        fields.get("components", []),
                    )


def debian_mirrors() -> Tuple[str, str]:
    """(archive, security) mirror URIs taken from the host's apt sources.

    The archive mirror is the first ``deb`` source carrying the host's codename (or any suite)
    with the ``main`` component that is not a security archive; the security mirror is the one
    carrying ``<codename>-security``, else the archive's URI with ``-security`` appended. The
    fallback is deb.debian.org.
    """
    codename = host_codename()
    archive = security = ""
    for types, uri, suites, components in _source_entries():
        uri = uri.rstrip("/")
        if "deb" not in types or "main" not in components:
            continue
        if any(suite.endswith("-security") for suite in suites):
            security = security or uri
        elif not archive and (not codename or codename in suites):
            archive = uri
    archive = archive or FALLBACK_MIRROR
    return archive, security or archive + "-security"


def require_root(what: str) -> None:
    """Raise TreeError unless running as root."""
    if os.geteuid() != 0:
        raise TreeError(f"{what} needs root (apt-get, debootstrap, mount, chroot); run as root")


def _stderr_fd() -> Optional[int]:
    """Our stderr's file descriptor, where a step's own output goes (None: inherit stdout)."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by an object without one
        return None


def run(
    argv: Sequence[str],
    log: Log,
    *,
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[Path] = None,
    output: Optional[IO[bytes]] = None,
) -> None:
    """Run a command, logging it; raise TreeError if it fails or is not installed.

    ``output``, if given, receives the command's stdout and stderr; otherwise its stdout goes
    to our stderr, so that a command line's stdout holds only its result.
    """
    log("$ " + shlex.join(argv))
    try:
        stdout = output or _stderr_fd()
        stderr = subprocess.STDOUT if output else None
        subprocess.run(list(argv), env=env, cwd=cwd, stdout=stdout, stderr=stderr, check=True)
    except OSError as error:  # not installed, or cwd missing
        raise TreeError(f"cannot run {argv[0]}: {error}") from error
    except subprocess.CalledProcessError as error:
        raise TreeError(f"{shlex.join(argv)} failed with exit code {error.returncode}") from error


def missing_packages(packages: Sequence[str], root: Optional[Path] = None) -> List[str]:
    """Which of ``packages`` are not installed on the host (or in the tree at ``root``)."""
    prefix = ["chroot", str(root)] if root is not None else []
    query = [*prefix, "dpkg-query", "-W", "-f=${Package}\t${Status}\n", *packages]
    result = subprocess.run(query, capture_output=True, text=True, check=False)
    installed = {
        name.split(":")[0]
        for name, _, status in (line.partition("\t") for line in result.stdout.splitlines())
        if status == "install ok installed"
    }
    return [package for package in packages if package not in installed]


def ensure_host_packages(packages: Sequence[str], log: Log = log_stderr) -> None:
    """apt-get install on the host whichever of ``packages`` are missing (update first)."""
    missing = missing_packages(packages)
    if not missing:
        return
    require_root("installing " + " ".join(missing))
    log(f"installing on the host: {' '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "update", "-q"], log, env=env)
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], log, env=env)


@contextlib.contextmanager
def locked(path: Path, log: Log) -> Iterator[None]:
    """Hold an exclusive flock on ``path`` (created if needed) for the ``with`` block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for {path} (another build or install is running)")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def mounts_under(path: Path) -> List[str]:
    """Mount points at or below ``path`` in this mount namespace."""
    prefix = str(path.resolve()).rstrip("/")
    points = []
    with open("/proc/self/mounts") as handle:
        for line in handle:
            point = line.split()[1].encode().decode("unicode_escape")
            if point == prefix or point.startswith(prefix + "/"):
                points.append(point)
    return points


def remove_tree(path: Path, log: Log) -> None:
    """rm -rf ``path``, refusing if anything is mounted under it (a bind mount of / or /dev)."""
    if not path.exists():
        return
    mounted = mounts_under(path)
    if mounted:
        raise TreeError(f"not removing {path}: still mounted there: {', '.join(mounted)}")
    log(f"removing {path}")
    shutil.rmtree(path)


# --- making and filling the tree -----------------------------------------------------------


def sources_deb822(archive: str, security: str) -> str:
    """The tree's /etc/apt/sources.list.d/debian.sources: binaries and sources of trixie."""
    return (
        "Types: deb deb-src\n"
        f"URIs: {archive}\n"
        f"Suites: {SUITE} {SUITE}-updates\n"
        "Components: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
        "\n"
        "Types: deb deb-src\n"
        f"URIs: {security}\n"
        f"Suites: {SUITE}-security\n"
        "Components: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
    )


def _configure_tree(tree: Path, archive: str, security: str) -> None:
    """Point the new tree's apt at trixie (deb and deb-src) and keep services from starting."""
    apt = tree / "etc" / "apt"
    (apt / "sources.list.d").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list.d" / "debian.sources").write_text(sources_deb822(archive, security))
    with contextlib.suppress(FileNotFoundError):
        (apt / "sources.list").unlink()  # debootstrap's one-line copy of the first stanza
    policy = tree / "usr" / "sbin" / "policy-rc.d"  # the chroot convention: start no daemons
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)


def ensure_tree(root: Optional[Path] = None, log: Log = log_stderr) -> Path:
    """Make the minbase trixie tree at ``root`` (default ``default_root()``) unless it exists.

    Returns the tree's path. debootstrap runs in ``<root>.partial`` inside a private mount
    namespace, and the directory is renamed to ``root`` only when it is complete, so an
    interrupted run leaves nothing that a later one mistakes for a tree.
    """
    root = root or default_root()
    if (root / "etc" / "apt" / "sources.list.d" / "debian.sources").exists():
        return root
    require_root(f"making the Debian 13 tree {root}")
    with locked(root.parent / f".{root.name}.lock", log):
        if (root / "etc" / "apt" / "sources.list.d" / "debian.sources").exists():
            return root
        if root.exists():
            raise TreeError(f"{root} exists but is not a finished tree: remove it and retry")
        ensure_host_packages(["debootstrap", "util-linux"], log)
        partial = root.parent / f"{root.name}.partial"
        remove_tree(partial, log)
        archive, security = debian_mirrors()
        log(f"making a Debian 13 tree: debootstrap --variant=minbase {SUITE} {root} {archive}")
        started = time.monotonic()
        run(
            ["unshare", "--mount", "--propagation", "private", "--",
             "debootstrap", "--variant=minbase", SUITE, str(partial), archive],
            log,
        )  # fmt: skip
        _configure_tree(partial, archive, security)
        partial.rename(root)
        log(f"made {root} in {time.monotonic() - started:.0f} s")
    return root


def ensure_packages(
    root: Optional[Path] = None,
    packages: Sequence[str] = TEST_PACKAGES,
    log: Log = log_stderr,
) -> None:
    """Install into the tree whichever of ``packages`` it lacks (apt-get update first).

    A dpkg run that was interrupted before is finished first (``dpkg --configure -a``).
    """
    root = ensure_tree(root, log)
    if not missing_packages(packages, root):
        return
    with locked(root.parent / f".{root.name}.lock", log):
        missing = missing_packages(packages, root)
        if not missing:
            return
        log(f"installing into {root}: {' '.join(missing)}")
        started = time.monotonic()
        run_in_tree(root, ["dpkg", "--configure", "-a"], log=log, to_stderr=True)
        run_in_tree(root, ["apt-get", "update", "-q"], log=log, to_stderr=True)
        install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
        run_in_tree(root, install, log=log, to_stderr=True)
        run_in_tree(root, ["apt-get", "clean"], log=log, to_stderr=True)
        log(f"installed {len(missing)} packages in {time.monotonic() - started:.0f} s")


def prepare(root: Optional[Path] = None, log: Log = log_stderr) -> Path:
    """The tree ready for the test suite: ``ensure_tree`` then ``ensure_packages``."""
    root = ensure_tree(root, log)
    ensure_packages(root, TEST_PACKAGES, log)
    return root


# --- running in the tree -------------------------------------------------------------------


def _mount_script(
    tree: Path, binds: Sequence[Tuple[Path, str]], cwd: str, command: Sequence[str]
) -> str:
    """The sh script run by ``unshare --mount``: mount, chroot and run, unmount on any exit."""
    q = shlex.quote
    t = str(tree)
    mounts = [
        f"mount -t proc proc {q(t + '/proc')}",
        f"mount -t sysfs sysfs {q(t + '/sys')}",
        f"mount --bind /dev {q(t + '/dev')}",
        f"mount -t devpts -o newinstance,ptmxmode=0666 devpts {q(t + '/dev/pts')}",
    ]
    points = ["/proc", "/sys", "/dev", "/dev/pts"]
    for host, inside in binds:
        mounts.append(f"mount --bind {q(str(host))} {q(t + inside)}")
        points.append(inside)
    unmount = " ; ".join(f"umount -l {q(t + p)} 2>/dev/null" for p in reversed(points))
    enter = shlex.join(["chroot", t, "/bin/sh", "-c", 'cd "$1" && shift && exec "$@"', "sh", cwd])
    return "\n".join(
        [
            "set -e",
            f"trap {q(unmount)} EXIT",
            "trap 'exit 130' INT TERM",
            *mounts,
            "set +e",
            f"{enter} {shlex.join(command)}",
        ]
    )


def run_in_tree(
    root: Path,
    command: Sequence[str],
    binds: Sequence[Tuple[Path, str]] = (),
    cwd: str = "/",
    env: Optional[Mapping[str, str]] = None,
    check: bool = True,
    log: Log = log_stderr,
    to_stderr: bool = False,
) -> int:
    """Run ``command`` chrooted in the tree at ``root`` and return its exit code.

    ``binds`` are (host directory, path inside the tree) pairs, bind-mounted read-write for
    the command's duration (the inside path is made if missing and removed after if it was made
    here and is empty). ``cwd`` is the directory inside the tree to start in. The command gets
    ``BASE_ENV`` plus ``env``, not the host's environment; the host's resolv.conf is copied in
    so apt can reach the mirror. With ``check`` a non-zero exit raises TreeError. With
    ``to_stderr`` the command's stdout goes to our stderr (for steps whose output is a log).
    """
    require_root(f"running a command in {root}")
    tree = root.resolve()
    if not (tree / "bin" / "sh").exists():
        raise TreeError(f"{tree} is not a Debian tree (no /bin/sh): call ensure_tree first")
    made: List[Path] = []
    for host, inside in binds:
        if not inside.startswith("/") or ".." in inside.split("/"):
            raise TreeError(f"the path inside the tree must be absolute, without '..': {inside}")
        if not Path(host).is_dir():
            raise TreeError(f"{host} is not a directory")
        point = tree / inside.lstrip("/")
        if not point.exists():
            point.mkdir(parents=True)
            made.append(point)
    with contextlib.suppress(OSError):
        shutil.copy("/etc/resolv.conf", tree / "etc" / "resolv.conf")
    script = _mount_script(tree, [(Path(h).resolve(), i) for h, i in binds], cwd, command)
    bound = "".join(f" [{h} at {i}]" for h, i in binds)
    log(f"[{tree.name}]{bound} $ {shlex.join(command)}")
    try:
        result = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script],
            env={**BASE_ENV, **(env or {})},
            stdout=_stderr_fd() if to_stderr else None,
            check=False,
        )
    finally:
        for point in reversed(made):
            with contextlib.suppress(OSError):
                point.rmdir()
    if check and result.returncode != 0:
        raise TreeError(
            f"{shlex.join(command)} failed in {tree} with exit code {result.returncode}"
        )
    return result.returncode


def _capture(root: Path, command: str) -> str:
    """The stdout of a shell command in the tree (stderr folded in), stripped."""
    script = _mount_script(root.resolve(), [], "/", ["sh", "-c", command + " 2>&1"])
    result = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script],
        env=BASE_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip()


#: What ``versions`` reports: a name and the shell command whose first line tells it.
VERSION_COMMANDS: Tuple[Tuple[str, str], ...] = (
    ("debian", "cat /etc/debian_version"),
    ("python3", "python3 --version"),
    ("pypy3", "pypy3 --version | tr '\\n' ' '"),
    ("gcc", "gcc --version"),
    ("aarch64-linux-gnu-gcc", "aarch64-linux-gnu-gcc --version"),
    ("riscv64-linux-gnu-gcc", "riscv64-linux-gnu-gcc --version"),
    ("qemu-aarch64", "qemu-aarch64 --version"),
    ("coreutils (md5sum)", "md5sum --version"),
    ("git", "git --version"),
    ("valgrind", "valgrind --version"),
)


def versions(root: Optional[Path] = None) -> Dict[str, str]:
    """Each tool's version line in the tree, by name (``VERSION_COMMANDS``)."""
    require_root("reading versions in the tree")
    root = root or default_root()
    return {
        name: (_capture(root, command).splitlines() or ["(nothing)"])[0]
        for name, command in VERSION_COMMANDS
    }


# --- command line --------------------------------------------------------------------------


def _parse_bind(text: str) -> Tuple[Path, str]:
    host, sep, inside = text.partition(":")
    return Path(host), (inside if sep else str(Path(host).resolve()))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``prepare`` | ``run [--bind HOST[:INSIDE]]... [--cwd DIR] -- CMD...`` | ``versions``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root", type=Path, help=f"the tree (default ${ROOT_ENV} or {DEFAULT_ROOT})"
    )
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("prepare", help="make the tree and install the test packages; print its path")
    runner = sub.add_parser("run", help="run a command in the tree (after prepare)")
    runner.add_argument(
        "--bind",
        action="append",
        default=[],
        type=_parse_bind,
        metavar="HOST[:INSIDE]",
        help="bind-mount a host directory (at the same path unless INSIDE is given)",
    )
    runner.add_argument("--cwd", default="/", help="directory inside the tree to run in")
    runner.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    sub.add_parser("versions", help="print the versions of the tree's tools")
    args = parser.parse_args(argv)
    root: Path = args.root or default_root()
    # On SIGTERM unwind like on ^C, so run_in_tree removes the mount points it made.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        if args.action == "prepare":
            print(prepare(root))
        elif args.action == "run":
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            if not command:
                parser.error("run needs a command after --")
            return run_in_tree(prepare(root), command, args.bind, args.cwd, check=False)
        else:
            for name, version in versions(root).items():
                print(f"{name}: {version}")
    except TreeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
