"""The styles tool tried as a user would, on a user's layout (``nox -s styles_user``, in CI).

    python tools/styles_user.py              # the wheel built, then the layout, then the runs
    python tools/styles_user.py --wheel dist/stylebench-0.1.0-py3-none-any.whl

A user's machine, made here: a fresh HOME, nothing of root's own (in a private mount namespace,
``unshare -m``, a tmpfs over /var/cache/variants, so no Debian tree and no built interpreter is
visible; PATH the system's folders and ~/.local/bin alone), the interpreters laid out as uv
lays out its Pythons (``~/.local/share/uv/python/cpython-3.12.1-linux-x86_64-gnu/bin/python3.12``,
links to this machine's pyenv CPythons 3.10-3.13) and as pyenv does
(``~/.pyenv/versions/pypy3.9-7.3.11/bin/pypy3``, a link to Debian's pypy3; the free-threaded 3.13
where it is built, its prefix bound at ``~/.pyenv/versions/3.13.5t``, since the tmpfs hides where
it is built), and the tool installed
from its wheel as pipx installs it (a venv in ~/.local/share/pipx/venvs, its command linked
into ~/.local/bin). Then, from a folder of the user's:

1. ``stylebench styles --list-modes`` must find every interpreter laid out, from where it was
   laid out (uv's, pyenv's), and its modes (PyPy's JIT on and off);
2. ``stylebench styles mine.py --effort quick --no-count`` (mine.py: examples/styles/helpers.py)
   must answer in every mode found, its results in the user's folder;
3. ``stylebench styles mine.py --python 3.12-jit=<uv's 3.12>`` must fail with one line (that
   CPython has no JIT), no traceback;
4. where uv is installed beside the Python running this (``nox -s styles_user`` installs it),
   the tool run as uvx runs it, nothing installed first: uv's ``uv`` and ``uvx`` copied into
   ~/.local/bin as uv's own installer puts them, then ``uvx --from <the wheel> stylebench
   styles mine.py --effort quick --modes 3.11`` with ``UV_OFFLINE=1`` (the wheel has no
   dependencies: uv needs no index) must answer, its results in the user's folder.

It prints the modes found and the quick run's wall time. Needs root for ``unshare -m``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.append(str(ROOT))
import stylebench  # noqa: E402

from bench.catalog import modes  # noqa: E402

#: The CPythons laid out as uv's (the study's pyenv CPythons), by label.
UV_LABELS = ("3.10", "3.11", "3.12", "3.13")
#: The user's PATH: the system's folders and ~/.local/bin (pipx's and uv's links).
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
#: The mount the layout hides (the Debian trees, the built free-threaded CPython).
HIDDEN = modes.CACHE_ROOT
#: uv's programs, copied into the user's ~/.local/bin as its installer puts them, and the mode
#: the run through uvx measures (one: the pip-installed run measured every mode already).
UV = ("uv", "uvx")
UVX_MODES = "3.11"


def version_of(program: str, attribute: str = "version_info") -> str:
    """``program``'s ``sys.version_info`` (or ``sys.pypy_version_info``) as "3.12.1"."""
    code = f"import sys; print('.'.join(map(str, sys.{attribute}[:3])))"
    said = subprocess.run([program, "-c", code], capture_output=True, text=True, check=True)
    return said.stdout.strip()


def interpreters() -> Dict[str, str]:
    """{label: real program} of the interpreters to lay out, found as the study finds them
    (before the layout hides anything): pyenv's CPythons, Debian's pypy3, the built 3.13t."""
    found: Dict[str, str] = {}
    for label in (*UV_LABELS, "pypy3", "3.13t"):
        argv, _ = modes.find(label)
        if argv and len(argv) == 1:
            found[label] = os.path.realpath(argv[0])
    missing = [x for x in (*UV_LABELS, "pypy3") if x not in found]
    if missing:
        raise SystemExit(f"this machine lacks {missing}: nothing to lay out as a user's")
    return found


def lay_out(home: Path, found: Dict[str, str], wheel: Path) -> Dict[str, str]:
    """The user's HOME: uv's and pyenv's folders of links, the tool installed as pipx does.
    {label: where it was laid out ("uv", "pyenv")}."""
    where: Dict[str, str] = {}
    uv = home / ".local" / "share" / "uv" / "python"
    pyenv = home / ".pyenv" / "versions"
    for label, program in found.items():
        version = version_of(program)
        if label in UV_LABELS:
            link = uv / f"cpython-{version}-linux-x86_64-gnu" / "bin" / f"python{label}"
            where[label] = "uv"
        elif label == "pypy3":
            pypy = version_of(program, "pypy_version_info")
            link = pyenv / f"pypy{version.rsplit('.', 1)[0]}-{pypy}" / "bin" / "pypy3"
            where.update({"pypy3": "pyenv", "pypy3-nojit": "pyenv"})
        else:  # the free-threaded 3.13: its whole prefix, as pyenv installs one
            where[label] = "pyenv"
            install(Path(program).parent.parent, pyenv / f"{version}t")
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(program)
    venv = home / ".local" / "share" / "pipx" / "venvs" / stylebench.NAME
    bin_dir = stylebench.install(wheel, venv)
    local = home / ".local" / "bin"
    local.mkdir(parents=True, exist_ok=True)
    (local / stylebench.NAME).symlink_to(bin_dir / stylebench.NAME)
    return where


def install(prefix: Path, at: Path) -> None:
    """An interpreter's prefix (bin/, lib/) seen at ``at`` as an install of the user's: bound
    there (``mount --bind``, in the private namespace) where it lives under the folder the
    layout hides (the built 3.13t, under /var/cache/variants: a link to it would lead under the
    tmpfs), else a link. CPython finds its library from where its binary is, so it runs there
    as from its own prefix."""
    at.parent.mkdir(parents=True, exist_ok=True)
    if prefix.resolve().is_relative_to(HIDDEN.resolve()):
        at.mkdir()
        subprocess.run(["mount", "--bind", str(prefix), str(at)], check=True)
    else:
        at.symlink_to(prefix)


def uv_programs() -> List[Path]:
    """uv's ``uv`` and ``uvx`` beside the Python running this (a venv's, where pip installed
    uv), else on PATH; none: no uvx check."""
    found = []
    for name in UV:
        beside = Path(sys.executable).parent / name
        path = str(beside) if beside.is_file() else shutil.which(name)
        if not path:
            return []
        found.append(Path(path))
    return found


def through_uvx(home: Path, work: Path, wheel: Path, env: Dict[str, str]) -> str:
    """The tool run once as ``uvx --from WHEEL`` runs it, offline, in the user's folder (the
    user's uv in ~/.local/bin, as its installer puts it): what it said, or SystemExit."""
    for program in uv_programs():
        shutil.copy2(program, home / ".local" / "bin" / program.name)
    before = set((work / "results" / "styles").glob("*/summary.json"))
    argv = ["uvx", "--from", str(wheel), stylebench.NAME, "styles", "mine.py", "--effort", "quick",
            "--modes", UVX_MODES, "--no-count", "--no-plots"]  # fmt: skip
    print("$ UV_OFFLINE=1 " + " ".join(argv), flush=True)
    done = subprocess.run(argv, cwd=work, env={**env, "UV_OFFLINE": "1"})
    made = sorted(set((work / "results" / "styles").glob("*/summary.json")) - before)
    if done.returncode or len(made) != 1:
        raise SystemExit(f"uvx --from {wheel.name} {stylebench.NAME} did not answer "
                         f"(exit {done.returncode}, new runs {made})")  # fmt: skip
    columns = sorted({r["mode"] for r in json.loads(made[0].read_text())["ratios"]})
    if columns != [UVX_MODES]:
        raise SystemExit(f"the uvx run answered in {columns}, not {UVX_MODES}")
    # the environment uvx made for the tool, in uv's cache: which Python hosts it
    hosts = []
    for cfg in sorted((home / ".cache" / "uv").glob("archive-v0/*/pyvenv.cfg")):
        said = dict(line.split(" = ", 1) for line in cfg.read_text().splitlines() if " = " in line)
        hosts.append(f"Python {said.get('version_info')} from {said.get('home')}")
    host = f", its host {', '.join(hosts)}" if hosts else ""
    return f"uvx --from the wheel, offline, answered in {columns[0]} ({made[0].parent.name}{host})"


def user_env(home: Path) -> Dict[str, str]:
    keep = {k: os.environ[k] for k in ("LANG", "LC_ALL", "TERM", "TMPDIR") if k in os.environ}
    path = os.pathsep.join([str(home / ".local" / "bin"), *SYSTEM_PATH])
    return {**keep, "HOME": str(home), "PATH": path, "USER": "user"}


def inside(home: Path, wheel: Path) -> int:
    """In the private mount namespace: the tmpfs over the cache, the layout, the three runs."""
    found = interpreters()
    where = lay_out(home, found, wheel)  # before the tmpfs: a prefix under it is bound first
    if HIDDEN.is_dir():
        subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(HIDDEN)], check=True)
    env = user_env(home)
    work = home / "work"
    work.mkdir()
    shutil.copy2(stylebench.EXAMPLE, work / "mine.py")
    tool = stylebench.NAME
    listed = subprocess.run([tool, "styles", "--list-modes"], cwd=work, env=env,
                            capture_output=True, text=True)  # fmt: skip
    print(listed.stdout, listed.stderr, sep="", flush=True)
    rows = {}
    for line in listed.stdout.splitlines()[1:]:
        if not line.startswith("  ") or line.startswith("   "):
            break
        head, _, rest = line.strip().partition("   ")
        for label in head.split(", "):
            rows[label] = rest.split()
    wanted = {*where, *(["3.13t"] if "3.13t" in found else [])}
    lost = sorted(x for x in wanted if x not in rows)
    if listed.returncode or lost:
        raise SystemExit(f"--list-modes did not find {lost} (exit {listed.returncode})")
    wrong = {x: r for x, r in rows.items() if x in where and where[x] not in r}
    if wrong:
        raise SystemExit(f"found elsewhere than laid out: {wrong}")
    start = time.perf_counter()
    done = subprocess.run([tool, "styles", "mine.py", "--effort", "quick", "--no-count"], cwd=work,
                          env=env)  # fmt: skip
    took = time.perf_counter() - start
    (summary,) = (work / "results" / "styles").glob("*/summary.json")
    # the modes that answered: those with a ratio (the stylebench-summary schema, version 1)
    columns = sorted({r["mode"] for r in json.loads(summary.read_text())["ratios"]})
    if done.returncode or sorted(columns) != sorted(rows):
        raise SystemExit(f"the quick run answered in {columns}, found {sorted(rows)} "
                         f"(exit {done.returncode})")  # fmt: skip
    uv312 = next((home / ".local/share/uv/python").glob("cpython-3.12.*/bin/python3.12"))
    jit = subprocess.run([tool, "styles", "mine.py", "--python", f"3.12-jit={uv312}"], cwd=work,
                         env=env, capture_output=True, text=True)  # fmt: skip
    said = (jit.stdout + jit.stderr).strip()
    if jit.returncode == 0 or "has no JIT" not in said or len(said.splitlines()) != 1:
        raise SystemExit(f"--python 3.12-jit= on a CPython without a JIT said: {said!r}")
    uvx = (
        through_uvx(home, work, wheel, env)
        if uv_programs()
        else "uv not installed here: no uvx run"
    )
    print(f"\nuser layout: {len(rows)} modes found ({', '.join(sorted(rows))}); the quick run "
          f"took {took:.0f} s of wall time; a -jit label without a JIT: {said}; {uvx}")  # fmt: skip
    return 0


def main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--wheel", type=Path, help="the tool's wheel (default: built here first)")
    p.add_argument("--inside", type=Path, help=argparse.SUPPRESS)  # the HOME, in the namespace
    args = p.parse_args(list(argv))
    if args.inside:
        return inside(args.inside, args.wheel)
    work = Path(tempfile.mkdtemp(prefix="styles-user-"))
    made = [] if args.wheel else stylebench.build(stylebench.stage(work / "stage"), work / "dist")
    wheel = args.wheel or next(p for p in made if p.suffix == ".whl")
    home = work / "home"
    home.mkdir()
    argv_: List[str] = ["unshare", "-m", "--propagation", "private", sys.executable, __file__,
                        "--inside", str(home), "--wheel", str(wheel.absolute())]  # fmt: skip
    try:
        return subprocess.run(argv_).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
