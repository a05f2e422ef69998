"""The native variant on CPython: the kernels behind a C-API extension type (``capi.c``).

``constructors()`` are the extension's own functions (``_capi.md5`` and one for each
algorithm of ``variants/_algorithms.py``), with hashlib's signature; the objects they make are
``HASH`` instances with hashlib's interface. The GIL is released for inputs of 2 KiB and more, as
hashlib does. The registry loads this module as the bridge
(``variants.native.Bridge``) of the ``native`` variant on CPython.
"""

from __future__ import annotations

from variants._shell import Constructor, HashObject, State
from variants._typing import TYPE_CHECKING
from variants.native._kernels import ALGORITHMS, KernelTable

if TYPE_CHECKING:
    from typing import Any, Dict, Iterable, List, Optional, Sequence

    from variants._column import Column

try:
    import variants.native._capi as _capi
except ImportError as exc:  # not built here (no C compiler at install time), or not CPython
    raise ImportError(f"the C extension variants.native._capi was not built ({exc})") from exc

__all__ = [
    "GIL_MINSIZE",
    "HASH",
    "absorb_many",
    "block_function",
    "block_functions",
    "column_from",
    "column_rows",
    "constructors",
    "describe",
    "digest_column",
    "digest_files",
    "digest_many",
    "digest_many_with",
    "kernel",
    "kernels",
    "ran",
]

HASH = _capi.HASH
#: The constructors as module attributes too (``capi.md5``), one an algorithm.
globals().update({name: getattr(_capi, name) for name in ALGORITHMS})
#: Inputs this long or longer are hashed with the GIL released (hashlib's threshold).
GIL_MINSIZE: int = _capi.GIL_MINSIZE


def _run(core: int, index: int, state: State, data: memoryview) -> State:
    result: State = _capi.compress(core, index, state, data)
    return result


def _run_many(
    algorithm: int, messages: Iterable[object], hexdigest: bool, threads: int, index: int
) -> List[Any]:
    return _capi.digest_many(algorithm, messages, hexdigest, threads, index)


_table = KernelTable(_capi.kernels(), _capi.chosen, _run, _run_many, _capi.ran)
kernels = _table.kernels
kernel = _table.kernel
ran = _table.ran
describe = _table.describe
block_function = _table.block_function
block_functions = _table.block_functions
digest_many = _table.digest_many
digest_many_with = _table.digest_many_with


def digest_files(algorithm: str, names: Sequence[bytes], small: int, threads: int = 1) -> List[Any]:
    """Per file name, read (on ``threads`` threads) and hashed in C without the GIL: its digest
    if it is a regular file of at most ``small`` bytes, an errno if it cannot be opened or
    read, else None."""
    return _capi.digest_files(ALGORITHMS[algorithm], names, small, threads)


def digest_column(algorithm: str, column: object, hexdigest: bool, threads: int) -> Column:
    """The digests of the rows of ``column`` read and hashed in C, in lanes, without the GIL
    (see ``variants._column``)."""
    result: Column = _capi.digest_column(ALGORITHMS[algorithm], column, hexdigest, threads)
    return result


def column_rows(column: object) -> Sequence[Optional[bytes]]:
    """The rows of ``column`` read in C (None for a null row): ``variants._column.RowIO``."""
    rows: Sequence[Optional[bytes]] = _capi.column_rows(column)
    return rows


def column_from(algorithm: str, digests: List[Any], hexdigest: bool) -> Column:
    """A Column of ``digests`` (binary, or None) of ``algorithm``: ``variants._column.RowIO``."""
    result: Column = _capi.column_from(ALGORITHMS[algorithm], digests, hexdigest)
    return result


def absorb_many(hashes: Sequence[HashObject], chunks: Sequence[object]) -> None:
    """``hashes[i].update(chunks[i])`` for every i, through the lanes: several streams at once.

    The objects must be distinct and of one core (MD5; SHA-1; SHA-224 and SHA-256; SHA-384
    and the SHA-512s).
    """
    _capi.absorb_many(tuple(hashes), tuple(chunks))


def constructors() -> Dict[str, Constructor]:
    """hashlib-compatible constructors by algorithm name (the extension's functions, one an
    algorithm of variants/_algorithms.py)."""
    return {name: getattr(_capi, name) for name in ALGORITHMS}
