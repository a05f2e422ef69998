"""A user's own coding styles: a styles file, its cases, their check and their timers.

A *styles file* is a plain Python module anywhere on disk (``python -m bench styles FILE``)::

    SIZES = (16, 1024)             # the problem sizes (ints, at least one)
    def inputs(size): ...          # the arguments of a call at that size: a tuple
    def helpers(xs, ys): ...       # two or more implementations of one function;
    def inlined(xs, ys): ...       # the first is the baseline
    STYLES = (helpers, inlined)
    TITLE = "helpers or inlined"   # optional: the report's and the picture's title

Each (style, size) is a case of the study (``StyleCase``, kept as
``styles/<stem>/<style>/<size>``): a group is a size, its styles measured interleaved under
every mode. Before a style is timed
its result must equal the baseline's (``check``): at every size when a worker lists the file,
and again at the case's size in every worker process before its timer is made. A style that
differs or raises is named with the size and what it returned or raised; the others run.

Standard library only; runs under CPython 3.9+ and PyPy, without the ``variants`` package.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bench.catalog.cases import STYLES, Case
from bench.core.timing import TimeFunc, loop_timer

#: How long a value's repr may be in a message.
SHOWN = 80


@dataclass(frozen=True)
class StyleCase:
    """One case of a styles file: a style (a function of the file) at a size. The store keeps
    it as every case is kept (``Case``: the ``styles`` benchmark, the file's stem, the style,
    the size); ``of`` reads it back."""

    stem: str  # the file's
    style: str
    size: int

    @property
    def case(self) -> Case:
        """The case as the store keeps it (its ``name`` is what workers and runs say)."""
        return Case(STYLES, self.stem, self.style, self.size)

    @classmethod
    def of(cls, case: Case) -> StyleCase:
        assert case.benchmark == STYLES, f"{case.name} is not a styles file's case"
        return cls(case.algorithm, case.variant, case.length)


class ConventionError(ValueError):
    """A styles file that does not follow the convention: nothing of it is measured."""


@dataclass(frozen=True)
class StylesFile:
    """A loaded styles file: its sizes, inputs and styles (the first the baseline)."""

    path: Path
    title: str
    sizes: Tuple[int, ...]
    inputs: Callable[[int], Tuple[Any, ...]]
    styles: Tuple[Callable[..., Any], ...]

    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(s.__name__ for s in self.styles)

    @property
    def baseline(self) -> str:
        return self.names[0]

    def style(self, name: str) -> Callable[..., Any]:
        return self.styles[self.names.index(name)]

    def case(self, name: str, size: int) -> StyleCase:
        return StyleCase(self.stem, name, size)

    def cases(self, names: Sequence[str]) -> List[Case]:
        """Every case of the styles ``names``, size by size, in the file's order, as the store
        keeps them."""
        return [self.case(n, size).case for size in self.sizes for n in self.names if n in names]

    def describe(self, name: str) -> str:
        doc = (self.style(name).__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""


def shown(value: Any) -> str:
    """``repr(value)``, shortened to SHOWN characters."""
    try:
        text = repr(value)
    except Exception as exc:  # a repr that raises is still said
        text = f"<{type(value).__name__} whose repr raises {type(exc).__name__}>"
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def raised(exc: BaseException) -> str:
    """``ValueError: no``: the exception's type and message, shortened."""
    text = str(exc)
    text = text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def module_name(path: Path) -> str:
    """The name a styles file is imported by, the same for its compiled twins
    (``bench.conduct.twins``: an extension module is found by its name)."""
    return f"_bench_styles_{Path(path).stem.replace('-', '_').replace('.', '_')}"


def load_module(path: Path) -> types.ModuleType:
    """The file imported as a module of its own (its folder first on sys.path, for its
    neighbours); the file's own errors propagate (SyntaxError, ImportError, ...). A compiled
    twin (``<stem>.so``) is imported as an extension module of the same name."""
    path = Path(path).resolve()
    if not path.is_file():
        raise ConventionError(f"{path}: no such file")
    name = module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConventionError(f"{path}: not a Python file (it should end in .py)")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def validate(path: Path, module: types.ModuleType) -> StylesFile:
    """The module as a StylesFile, or ConventionError saying every thing missing or wrong."""
    wrong: List[str] = []
    sizes = getattr(module, "SIZES", None)
    if sizes is None:
        wrong.append("SIZES is missing (a tuple of ints, the problem sizes)")
    elif (
        not isinstance(sizes, (tuple, list))
        or not sizes
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in sizes)
    ):
        wrong.append(f"SIZES must be a non-empty tuple of ints >= 0, not {shown(sizes)}")
    elif len(set(sizes)) != len(sizes):
        wrong.append(f"SIZES has a size twice: {shown(sizes)}")
    inputs = getattr(module, "inputs", None)
    if inputs is None:
        wrong.append("inputs is missing (def inputs(size): return the arguments as a tuple)")
    elif not callable(inputs):
        wrong.append(f"inputs must be a function of the size, not {shown(inputs)}")
    styles = getattr(module, "STYLES", None)
    if styles is None:
        wrong.append("STYLES is missing (a tuple of two or more functions, the baseline first)")
    elif not isinstance(styles, (tuple, list)) or len(styles) < 2:
        wrong.append(f"STYLES must be a tuple of two or more functions, not {shown(styles)}")
    elif not all(callable(s) and hasattr(s, "__name__") for s in styles):
        bad = [shown(s) for s in styles if not (callable(s) and hasattr(s, "__name__"))]
        wrong.append(f"STYLES must hold functions; these are not: {', '.join(bad)}")
    else:
        names = [s.__name__ for s in styles]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            wrong.append(f"STYLES has two functions named {', '.join(twice)}")
        odd = [n for n in names if "/" in n or not n]
        if odd:
            wrong.append(f"a style's name may not be empty nor hold '/': {odd}")
    title = getattr(module, "TITLE", None)
    if title is not None and not isinstance(title, str):
        wrong.append(f"TITLE must be a string, not {shown(title)}")
    if wrong:
        raise ConventionError(f"{path} does not follow the styles convention: " + "; ".join(wrong))
    assert sizes is not None and inputs is not None and styles is not None
    return StylesFile(
        Path(path).resolve(), title or Path(path).stem, tuple(sizes), inputs, tuple(styles)
    )


def load(path: Path) -> StylesFile:
    """The styles file at ``path``: imported and validated."""
    return validate(path, load_module(path))


def arguments(found: StylesFile, size: int) -> Tuple[Any, ...]:
    """``inputs(size)`` as a tuple of arguments (ConventionError if it is not one)."""
    args = found.inputs(size)
    if not isinstance(args, tuple):
        raise ConventionError(f"inputs({size}) must return a tuple of arguments, not {shown(args)}")
    return args


def check(found: StylesFile, name: str, size: int) -> Optional[str]:
    """Why style ``name`` may not be timed at ``size`` (its result is not the baseline's, or it
    raises), or None: each call on inputs of its own."""
    try:
        want = found.style(found.baseline)(*arguments(found, size))
    except ConventionError:
        raise
    except Exception as exc:
        return f"the baseline {found.baseline} raises at size {size}: {raised(exc)}"
    if name == found.baseline:
        return None
    try:
        got = found.style(name)(*arguments(found, size))
    except Exception as exc:
        return f"at size {size} it raises {raised(exc)}"
    try:
        same = bool(got == want)
    except Exception as exc:
        return f"at size {size} its result cannot be compared with the baseline's: {raised(exc)}"
    if not same:
        return f"at size {size} it returns {shown(got)}, the baseline {shown(want)}"
    return None


def failures(found: StylesFile) -> Dict[str, str]:
    """Each style whose result differs from the baseline's (or raises) at some size: why, at
    the first such size (the baseline's own failure makes every style fail)."""
    wrong: Dict[str, str] = {}
    for size in found.sizes:
        for name in found.names:
            if name not in wrong:
                why = check(found, name, size)
                if why:
                    wrong[name] = why
    return wrong


def make_timer(found: StylesFile, case: Case, clock: str = "cpu") -> TimeFunc:
    """The time function of a styles case: ``style(*args)`` per operation, the arguments made
    once (in this process, outside the timed loop)."""
    mine = StyleCase.of(case)
    namespace = {"style": found.style(mine.style), "args": arguments(found, mine.size)}
    return loop_timer("fn, a = style, args", "fn(*a)", namespace, clock, case.name)
