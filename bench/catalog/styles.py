"""A user's own coding styles: a styles file, its cases, their check and their timers.

A *styles file* is a plain Python module anywhere on disk (``python -m bench styles FILE``)::

    SIZES = (16, 1024)             # the problem sizes (ints, at least one)
    def inputs(size): ...          # the arguments of a call at that size: a tuple
    def helpers(xs, ys): ...       # two or more implementations of one function;
    def inlined(xs, ys): ...       # the first is the baseline
    STYLES = (helpers, inlined)
    TITLE = "helpers or inlined"   # optional: the report's and the picture's title
    def EQUAL(result, baseline):   # optional: how results compare (default: ==)
    FRESH = True                   # optional: fresh inputs per call (True, or the sizes)

Each (style, size) is a case of the study (``StyleCase``, kept as
``styles/<stem>/<style>/<size>``): a group is a size, its styles measured interleaved under
every mode. Before a style is timed
its result must equal the baseline's (``check``: ``EQUAL(result, baseline)`` where the file
has one, else ``==``): at every size when a worker lists the file, and again at the case's
size in every worker process before its timer is made. A style that differs (said where:
``difference``), raises, or changes its inputs (``changed``: they are compared before and after
the call) is named with the size; the others run. A file with ``FRESH`` gets fresh inputs for
every call of the sizes it names, made before the timed loop starts (``make_timer``).

Standard library only; runs under CPython 3.9+ and PyPy, without the ``variants`` package.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import pickle
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from ..core.timing import TimeFunc, loop_timer
from .cases import STYLES, Case

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
    #: The file's ``EQUAL(result, baseline) -> bool`` (None: ``==``).
    equal: Optional[Callable[[Any, Any], Any]] = None
    #: The sizes whose every call gets inputs of its own (``FRESH``: True for every size).
    fresh: FrozenSet[int] = frozenset()

    def fresh_at(self, size: int) -> bool:
        return size in self.fresh

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
    if path.is_dir():
        raise ConventionError(f"{path}: a folder; give the styles file in it (a .py)")
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
    equal = getattr(module, "EQUAL", None)
    if equal is not None and not callable(equal):
        wrong.append(
            f"EQUAL must be a function EQUAL(result, baseline) -> bool, not {shown(equal)}"
        )
    fresh: Any = getattr(module, "FRESH", False)
    fresh_sizes = set(sizes) if fresh is True and isinstance(sizes, (tuple, list)) else set()
    if isinstance(fresh, (tuple, list, set, frozenset)) and all(
        isinstance(n, int) and not isinstance(n, bool) for n in fresh
    ):
        fresh_sizes = set(fresh)
        if isinstance(sizes, (tuple, list)) and fresh_sizes - set(sizes):
            wrong.append(f"FRESH names sizes not in SIZES: {sorted(fresh_sizes - set(sizes))}")
    elif not isinstance(fresh, bool):
        wrong.append(f"FRESH must be True, False or a tuple of sizes, not {shown(fresh)}")
    if wrong:
        raise ConventionError(f"{path} does not follow the styles convention: " + "; ".join(wrong))
    assert sizes is not None and inputs is not None and styles is not None
    return StylesFile(
        Path(path).resolve(),
        title or Path(path).stem,
        tuple(sizes),
        inputs,
        tuple(styles),
        equal,
        frozenset(fresh_sizes),
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


def snapshot(args: Tuple[Any, ...]) -> Optional[Tuple[Any, ...]]:
    """A deep copy of a call's arguments, to compare with them after the call (None: they
    cannot be copied, and a change to them cannot be seen)."""
    try:
        return copy.deepcopy(args)
    except Exception:
        return None


def same(a: Any, b: Any) -> Optional[bool]:
    """Whether ``a`` and ``b`` are equal by ``==`` (``a is b`` first, as lists compare their
    items), else by their pickles (a NumPy array's ``==`` is an array); None: neither says."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:
        pass
    try:
        return pickle.dumps(a) == pickle.dumps(b)
    except Exception:
        return None


def unchanged(before: Any, after: Any) -> Optional[bool]:
    """Whether an argument is as its deep copy taken before a call: ``same``, else (an object
    whose ``==`` is its identity, never equal to a copy) their pickles; None: neither says."""
    if same(before, after):
        return True
    try:
        return pickle.dumps(before) == pickle.dumps(after)
    except Exception:
        return None


def changed(before: Optional[Tuple[Any, ...]], after: Tuple[Any, ...]) -> List[int]:
    """The arguments (numbered from 1) that a call changed: ``before`` a deep copy of them
    taken before it (``snapshot``), ``after`` the arguments themselves after it."""
    if before is None:
        return []
    return [i + 1 for i, (a, b) in enumerate(zip(before, after)) if unchanged(a, b) is False]


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def relative(a: Any, b: Any) -> float:
    """|a - b| relative to the larger of the two (0 where both are 0; NaN against a number:
    infinite)."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return 0.0 if math.isnan(a) and math.isnan(b) else math.inf
    scale = max(abs(a), abs(b))
    return abs(a - b) / scale if scale else 0.0


def difference(got: Any, want: Any) -> str:
    """Where a result differs from the baseline's: for a sequence (a list, a tuple, a NumPy
    array, ...) its first differing index with both values, the lengths if they differ, and
    for numbers the largest relative difference; for a dict its first differing key; else
    both values (each shortened to SHOWN)."""
    whole = f"it returns {shown(got)}, the baseline {shown(want)}"
    where = ""
    if isinstance(got, dict) and isinstance(want, dict):
        extra = [k for k in got if k not in want]
        missing = [k for k in want if k not in got]
        differs = [k for k in got if k in want and not same(got[k], want[k])]
        parts = [f"keys not in the baseline's: {shown(extra)}" if extra else "",
                 f"keys missing: {shown(missing)}" if missing else "",
                 f"at key {shown(differs[0])}: {shown(got[differs[0]])}, the baseline "
                 f"{shown(want[differs[0]])}" if differs else ""]  # fmt: skip
        where = "; ".join(p for p in parts if p)
    elif not isinstance(got, (str, bytes, dict)) and hasattr(got, "__len__"):
        try:
            a, b = list(got), list(want)
        except Exception:
            a, b = [], []
        if a or b:
            parts = [] if len(a) == len(b) else [f"length {len(a)}, the baseline's {len(b)}"]
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if not same(x, y)), None)
            if first is not None:
                parts.append(
                    f"first differs at index {first}: {shown(a[first])}, the baseline "
                    f"{shown(b[first])}"
                )
            elif min(len(a), len(b)):
                parts.append(f"equal over the first {min(len(a), len(b))}")
            numbers = [(i, x, y) for i, (x, y) in enumerate(zip(a, b))
                       if is_number(x) and is_number(y)]  # fmt: skip
            if any(isinstance(x, float) or isinstance(y, float) for _, x, y in numbers):
                i, x, y = max(numbers, key=lambda n: relative(n[1], n[2]))
                parts.append(f"the largest relative difference {relative(x, y):.3g} (index {i})")
            where = "; ".join(parts)
    if not where:
        return whole
    if len(shown(got)) < SHOWN and len(shown(want)) < SHOWN:
        return f"{whole} ({where})"
    return f"it returns a {type(got).__name__} that differs from the baseline's: {where}"


#: What a message about a changed input tells the file to do.
FRESH_HINT = (
    "its timed calls would run on inputs changed by the calls before (set FRESH = True in the "
    "file for fresh inputs per call, or copy them in the style)"
)


def truth(value: Any) -> Optional[bool]:
    """What an ``EQUAL`` answered: a bool, or a NumPy bool (a 0-d value of kind ``b``:
    ``numpy.isclose(a, b).all()``); None for anything else (None itself: a ``return``
    forgotten; an array: an ``all()`` forgotten; a string), which ``bool`` would read as an
    answer."""
    if isinstance(value, bool):
        return value
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind == "b" and getattr(value, "shape", None) == ():
        try:
            return bool(value)
        except Exception:
            return None
    return None


def check(found: StylesFile, name: str, size: int) -> Optional[str]:
    """Why style ``name`` may not be timed at ``size`` (its result is not the baseline's, it
    raises, or it changes its inputs where they are not made fresh per call), or None: each
    call on inputs of its own."""
    fresh = found.fresh_at(size)
    try:
        args = arguments(found, size)
    except ConventionError as exc:
        return str(exc)
    except Exception as exc:
        return f"the file's inputs({size}) raises {raised(exc)}"
    before = None if fresh else snapshot(args)
    try:
        want = found.style(found.baseline)(*args)
    except Exception as exc:
        return f"the baseline {found.baseline} raises at size {size}: {raised(exc)}"
    moved = changed(before, args)
    if moved:
        return (
            f"the baseline {found.baseline} changes its inputs at size {size} (argument "
            f"{', '.join(map(str, moved))} of inputs({size})): {FRESH_HINT}"
        )
    if name == found.baseline:
        return None
    args = arguments(found, size)  # as above: it returned a tuple
    before = None if fresh else snapshot(args)
    try:
        got = found.style(name)(*args)
    except Exception as exc:
        return f"at size {size} it raises {raised(exc)}"
    moved = changed(before, args)
    if moved:
        return (
            f"at size {size} it changes its inputs (argument {', '.join(map(str, moved))} of "
            f"inputs({size})): {FRESH_HINT}"
        )
    if found.equal is not None:
        try:
            said = found.equal(got, want)
        except Exception as exc:
            return f"at size {size} the file's EQUAL(result, baseline) raises {raised(exc)}"
        agrees = truth(said)
        if agrees is None:
            missing = " (a return missing?)" if said is None else ""
            return (
                f"at size {size} the file's EQUAL(result, baseline) returns {shown(said)}"
                f"{missing}, not True or False: make it return a bool (all(...), "
                "numpy.allclose(...))"
            )
        if not agrees:
            return (
                f"at size {size} EQUAL(result, baseline) says it differs: {difference(got, want)}"
            )
        return None
    try:
        agrees = bool(got == want)
    except Exception as exc:
        return (
            f"at size {size} its result cannot be compared with the baseline's by == "
            f"({raised(exc)}): define EQUAL(result, baseline) -> bool in the file "
            "(numpy.allclose for arrays)"
        )
    if not agrees:
        said = difference(got, want)
        close = "relative difference" in said or (is_number(got) and is_number(want))
        hint = "; if close is equal enough, define EQUAL(result, baseline) -> bool in the file"
        return f"at size {size} {said}{hint if close else ''}"
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
    once (in this process, outside the timed loop); at a size of ``FRESH``, a set of arguments
    per call, all made before the clock starts (``loops`` of them held at once)."""
    mine = StyleCase.of(case)
    style = found.style(mine.style)
    if found.fresh_at(mine.size):
        namespace: Dict[str, Any] = {"style": style, "make": lambda: arguments(found, mine.size)}
        setup = "fn, following = style, iter([make() for _ in _range(loops)]).__next__"
        return loop_timer(setup, "fn(*following())", namespace, clock, case.name)
    namespace = {"style": style, "args": arguments(found, mine.size)}
    return loop_timer("fn, a = style, args", "fn(*a)", namespace, clock, case.name)
