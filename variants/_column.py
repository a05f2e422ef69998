"""Whole columns at once: what ``digest_column`` does for every variant.

Every variant offers ``digest_column(name, column, *, hexdigest=False,
threads=1)`` and ``md5_column``, ``sha256_column`` and so on for each algorithm: the
digests of the rows of ``column`` as a column. ``column`` is one of

- an Arrow array (anything with ``__arrow_c_array__``: pyarrow, nanoarrow,
  arro3, ...) or chunked array (``__arrow_c_stream__``: pyarrow's chunked
  arrays, a Polars Series, a DuckDB result's column), of ``binary``,
  ``string``, ``large_binary``, ``large_string``, ``binary_view``,
  ``string_view`` or ``fixed_size_binary``, sliced or not; a null row gives
  a null digest;
- a NumPy array of dtype ``S`` (each element a message, without its
  trailing NUL bytes, as NumPy shows it) or any 2-D C-contiguous buffer of
  uint8 (each row a message, whole).

The result (``Column``) holds the digests in one buffer, with no Python
object per row: it exports the Arrow PyCapsule interface as
``fixed_size_binary(digest_size)``, or ``string`` with ``hexdigest=True``, so
``pyarrow.array(r)`` and ``polars.Series(r)`` take it without a copy, and the
buffer protocol (``numpy.asarray(r)``: shape ``(rows, digest_size)`` of
uint8, or ``(rows,)`` of ``S`` in hex); ``r.to_pylist()`` gives bytes (or
str) and None, as ``[hashlib.new(name, m).digest() for m in rows]`` would.

And it is a sequence of those values: ``len(r)``, ``r[i]`` (negative from the
end), iteration, ``digest in r`` (None: is a row null). A slice, ``r[a:b:c]``,
is a column again, of those rows (their digests copied), as a list's slice is
a list: it exports Arrow and the buffer protocol like ``r``.

The native variant's C-API bridge reads the column in C and hashes it in SIMD
lanes without the GIL (``variants/native/column.c``); every other variant
loops over its constructor here, reading the rows and making the result with
that same C when it is built (``RowIO``: the caller passes it, from
``variants.native.column_io()``), else (buffers only) in Python. This module
imports no variant's modules: what it needs of the native one comes as that
argument.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Protocol, Sequence, Union, overload

from variants._shell import ALGORITHMS as SPECS
from variants._shell import Constructor

__all__ = ["Column", "DigestColumn", "RowIO", "loop"]

#: A provider's own: (algorithm, column, hexdigest, threads) -> a Column, raising
#: TypeError or ValueError for a column it does not take, before any hashing.
DigestColumn = Callable[[str, object, bool, int], "Column"]

#: The digest sizes, by algorithm.
SIZES = {name: spec.digest_size for name, spec in SPECS.items()}


class Column(Protocol):
    """A column of digests (see the module's docstring)."""

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def hexdigest(self) -> bool: ...
    @property
    def null_count(self) -> int: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Column: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __contains__(self, value: object) -> bool: ...
    def to_pylist(self) -> List[Any]: ...


class RowIO(Protocol):
    """C that reads a column's rows and makes a column of digests (the native variant's
    C-API module, where it is built: ``variants.native.column_io()``)."""

    def column_rows(self, column: object) -> Sequence[Optional[bytes]]:
        """The rows of ``column`` (None for a null one); TypeError or ValueError if it is not
        a column, before any work."""

    def column_from(self, algorithm: str, digests: List[Any], hexdigest: bool) -> Column:
        """A column of ``digests`` (binary digests of ``algorithm``, or None for a null row)."""


def loop(
    algorithm: str,
    constructor: Constructor,
    column: object,
    hexdigest: bool,
    threads: int,
    io: Optional[RowIO] = None,
) -> Column:
    """The digests of ``column``'s rows one by one with ``constructor``, the rows read and the
    result made by ``io`` (None: by the Python here, which reads buffers only)."""
    from variants import _many

    rows: Sequence[Optional[bytes]] = (
        io.column_rows(column) if io is not None else _buffer_rows(column)
    )
    present = [row for row in rows if row is not None]
    digests: List[Any] = _many.loop(constructor, present, False, threads)
    if len(present) != len(rows):
        found = iter(digests)
        digests = [None if row is None else next(found) for row in rows]
    if io is not None:
        return io.column_from(algorithm, digests, hexdigest)
    return ListColumn(algorithm, digests, hexdigest)


_ACCEPTED = (
    "an Arrow array or chunked array (an object with __arrow_c_array__ or __arrow_c_stream__), "
    "a NumPy array of dtype S, or a 2-D C-contiguous uint8 array"
)


def rejected(column: object, why: str = "") -> TypeError:
    """The TypeError for a column that is none of those accepted."""
    return TypeError(
        f"digest_column() takes {_ACCEPTED}, not {type(column).__name__}{': ' if why else ''}{why}"
    )


def _buffer_rows(column: object) -> List[Optional[bytes]]:
    """The rows of a buffer column (each without its trailing NUL bytes if it is NumPy's S);
    TypeError or ValueError if it is not a column, before any work."""
    if isinstance(column, (str, bytes, bytearray)) or column is None:
        raise rejected(column)
    if hasattr(column, "__arrow_c_array__") or hasattr(column, "__arrow_c_stream__"):
        raise rejected(column, "Arrow columns are read by the C-API module, not built here")
    try:
        view = memoryview(column)  # type: ignore[arg-type]
    except TypeError:
        raise rejected(column) from None
    shape = view.shape or ()
    if view.ndim == 2 and view.format in ("B", "=B", "<B"):
        padded, width = False, shape[1]
    elif view.ndim == 1 and view.format.endswith("s"):
        padded, width = True, view.itemsize
    else:
        raise rejected(column, f"a buffer of {view.ndim} dimension(s) of format {view.format!r}")
    if not view.c_contiguous:
        kind = type(column).__name__
        raise ValueError(f"digest_column() takes a C-contiguous buffer; this {kind} is not")
    flat = view.cast("B")
    rows = [bytes(flat[i * width : (i + 1) * width]) for i in range(shape[0])]
    return [row.rstrip(b"\0") for row in rows] if padded else list(rows)


class ListColumn:
    """A column of digests made in Python (where the C-API module is not built): the same
    interface but the Arrow export; NumPy takes it through ``__array_interface__``."""

    def __init__(self, algorithm: str, digests: Sequence[Optional[bytes]], hexdigest: bool):
        self.name = algorithm
        self.digest_size = SIZES[algorithm]
        self.hexdigest = hexdigest
        self._rows = [None if d is None else d.hex() if hexdigest else d for d in digests]
        self.null_count = sum(d is None for d in digests)
        width = self.digest_size * (2 if hexdigest else 1)
        zeros = b"\0" * width
        self._data = b"".join(
            zeros if d is None else d.encode("ascii") if isinstance(d, str) else d
            for d in self._rows
        )
        self._width = width

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> ListColumn: ...
    def __getitem__(self, index: Union[int, slice]) -> Any:
        if isinstance(index, slice):
            digests: List[Optional[bytes]] = [
                None if r is None else bytes.fromhex(r) if isinstance(r, str) else r
                for r in self._rows[index]
            ]
            return ListColumn(self.name, digests, self.hexdigest)
        return self._rows[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)

    def __contains__(self, value: object) -> bool:
        return value in self._rows

    def to_pylist(self) -> List[Any]:
        return list(self._rows)

    @property
    def __array_interface__(self) -> Any:
        if self.hexdigest:
            return {
                "shape": (len(self),),
                "typestr": f"|S{self._width}",
                "data": self._data,
                "version": 3,
            }
        return {
            "shape": (len(self), self._width),
            "typestr": "|u1",
            "data": self._data,
            "version": 3,
        }

    def __repr__(self) -> str:
        kind = "hex" if self.hexdigest else "binary"
        return f"<{self.name} column of {len(self)} {kind} digests, {self.null_count} null>"
