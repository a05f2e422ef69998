"""nox sessions: tests on every interpreter, lint.

    nox -s tests          # CPython 3.10-3.13 and PyPy 3.9, each in its own virtualenv
    nox -s tests-3.12     # one interpreter
    nox -s lint           # ruff, mypy --strict, generated code up to date

The pyenv interpreters are found without any setup: nox only sees them when
PYENV_VERSION names them, so this file sets it from ``$(pyenv root)/versions``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import nox

CPYTHONS = ["3.10", "3.11", "3.12", "3.13"]
PYPY = "pypy3.9"
INTERPRETERS = [*CPYTHONS, PYPY]

nox.options.sessions = ["lint", "tests"]
nox.options.error_on_missing_interpreters = True


def _pyenv_root() -> Path:
    root = os.environ.get("PYENV_ROOT")
    if not root:
        try:
            root = subprocess.run(
                ["pyenv", "root"], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            root = str(Path.home() / ".pyenv")
    return Path(root)


def _expose_pyenv_versions() -> None:
    """Put every pyenv CPython 3.x on PYENV_VERSION, newest patch release of each minor."""
    versions = _pyenv_root() / "versions"
    if not versions.is_dir():
        return
    newest: Dict[str, Tuple[int, str]] = {}
    for entry in versions.iterdir():
        match = re.fullmatch(r"(3\.\d+)\.(\d+)", entry.name)
        if match and (entry / "bin").is_dir():
            minor, patch = match.group(1), int(match.group(2))
            if minor not in newest or patch > newest[minor][0]:
                newest[minor] = (patch, entry.name)
    names: List[str] = [name for _, name in newest.values()]
    current = [v for v in os.environ.get("PYENV_VERSION", "").split(":") if v]
    os.environ["PYENV_VERSION"] = ":".join(dict.fromkeys([*current, *sorted(names)]))
    shims = str(_pyenv_root() / "shims")
    if shims not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = shims + os.pathsep + os.environ.get("PATH", "")


_expose_pyenv_versions()


@nox.session(python=INTERPRETERS)
def tests(session: nox.Session) -> None:
    """The test suite against an installed copy of the package."""
    session.install(".[test]")
    # Run from the tests folder so that the installed package, not the
    # source tree, is the one imported.
    session.chdir("tests")
    session.run("python", "-m", "pytest", *session.posargs, env={"PYTHONDONTWRITEBYTECODE": "1"})


@nox.session(python="3.12")
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict, and the generated sources up to date."""
    session.install("ruff", "mypy", "nox", "pytest", "hypothesis")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("python", "tools/gen_streamlined.py", "--check")
