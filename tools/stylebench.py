"""The styles tool's own distribution, ``stylebench``: staged, built and checked as a user gets it.

    python tools/stylebench.py --out dist              # sdist and wheel into dist/, then checked
    python tools/stylebench.py --out dist --no-check   # built only

bench/ imports itself relatively (tools/relative_imports.py), so it installs under the tool's
own name: the stage is bench/'s Python files copied as the package ``stylebench`` (no generic
top-level ``bench`` in site-packages), build_support/cache.py beside them as
``stylebench/_build_cache.py`` (the per-user cache the twins use), and tools/stylebench/'s
``pyproject.toml`` and ``README.md``. ``python -m build`` makes the sdist from the stage and
the wheel from the sdist (pure Python: ``py3-none-any``).

**The check**, as a user: a fresh virtual environment outside the clone, the wheel installed
with pip, then, from an empty working folder, ``stylebench styles FILE --effort quick --modes
3.11,3.13`` on a copy of examples/styles/helpers.py: it must answer (exit 0, a report under
``results/`` in that folder), and nothing of it may be written into the environment.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Sequence

ROOT = Path(__file__).resolve().parent.parent
#: The distribution's and the package's name (checked free on PyPI: pip download says 404).
NAME = "stylebench"
#: The files of the distribution beside the package.
META = ROOT / "tools" / NAME
#: The example the check runs, and its modes (the pyenv CPythons every machine of this project has).
EXAMPLE = ROOT / "examples" / "styles" / "helpers.py"
CHECK_MODES = "3.11,3.13"


def stage(into: Path) -> Path:
    """The distribution's source tree at ``into``: the package and its metadata."""
    shutil.rmtree(into, ignore_errors=True)
    package = into / NAME
    for source in sorted((ROOT / "bench").rglob("*.py")):
        target = package / source.relative_to(ROOT / "bench")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    shutil.copy2(ROOT / "build_support" / "cache.py", package / "_build_cache.py")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(META / name, into / name)
    return into


def build(stage_dir: Path, out: Path) -> List[Path]:
    """The sdist, and the wheel built from it, into ``out``: their paths."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"{NAME}-*"):
        old.unlink()
    # from the stage: a clone's own build/ folder (the native build's) would stand for the
    # build package where -m looks first, the working folder
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(stage_dir)],
        check=True,
        cwd=stage_dir,
    )
    made = sorted(out.glob(f"{NAME}-*"))
    if not any(p.name.endswith("-py3-none-any.whl") for p in made):
        raise SystemExit(f"no pure-Python wheel of {NAME} in {out}: {[p.name for p in made]}")
    return made


def install(wheel: Path, venv: Path) -> Path:
    """A fresh virtual environment at ``venv`` with ``wheel`` installed: its bin folder."""
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
    subprocess.run([*pip, str(wheel)], check=True)
    return venv / "bin"


def check(wheel: Path, work: Path, modes: str = CHECK_MODES) -> None:
    """The wheel installed as a user installs it and run on an example (SystemExit if not)."""
    venv = work / "venv"
    bin_dir = install(wheel, venv)
    site = list(venv.glob("lib/python*/site-packages"))
    tops = sorted(p.name for p in site[0].iterdir()) if site else []
    if "bench" in tops or NAME not in tops:
        raise SystemExit(f"site-packages holds {tops}: want {NAME}, and no top-level bench")
    folder = work / "user"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    mine = folder / "mine.py"
    shutil.copy2(EXAMPLE, mine)
    argv = [str(bin_dir / NAME), "styles", mine.name, "--effort", "quick", "--modes", modes,
            "--no-count", "--no-plots"]  # fmt: skip
    print("$ " + " ".join(argv), flush=True)
    done = subprocess.run(argv, cwd=folder)
    reports = sorted((folder / "results" / "styles").glob("*/report.md"))
    if done.returncode or not reports:
        raise SystemExit(
            f"{NAME} styles did not answer (exit {done.returncode}, reports {reports})"
        )
    written = [p for p in venv.rglob("*") if p.is_dir() and p.name in ("results", ".bench-import")]
    if written:
        raise SystemExit(f"{NAME} wrote into its environment: {written}")
    print(f"{NAME}: the wheel installed and answered: {reports[0]}")


def main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "dist")
    p.add_argument(
        "--work", type=Path, help="where to stage and check (default: a temporary folder)"
    )
    p.add_argument("--no-check", action="store_true")
    p.add_argument("--modes", default=CHECK_MODES, help="the modes the check runs")
    args = p.parse_args(list(argv))
    work = args.work or Path(tempfile.mkdtemp(prefix=f"{NAME}-"))
    try:
        made = build(stage(work / "stage"), args.out.absolute())
        print("built: " + ", ".join(p.name for p in made))
        if not args.no_check:
            check(next(p for p in made if p.suffix == ".whl"), work / "check", args.modes)
    finally:
        if not args.work:  # a folder of its own: gone with the check's venv and results
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
