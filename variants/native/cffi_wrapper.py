"""The native kernels behind cffi: the native variant on PyPy, ``native-cffi`` on CPython.

The whole state machine (start, update with buffering, digest, copy) is C,
``hash.c`` behind the per-object mutex of ``locked.c``; this module is the
hashlib-shaped wrapper around it. cffi releases the GIL around every call
into C, so long updates run in parallel with other threads, and the mutex
keeps updates from several threads to one object whole, as hashlib does.

On PyPy, cffi is the fast way into C (its C-API emulation is slow), and
this is the native variant there. On CPython the C-API type (``capi.py``)
is the native variant; this bridge stays as ``native-cffi``, so that the
study can show what each bridge costs over the same kernels.
"""

from __future__ import annotations

import contextlib
import threading

from variants import _many
from variants._many import bytes_of
from variants._shell import _EMPTY, Constructor, HashObject, State, as_bytes, data_argument
from variants._shell import ALGORITHMS as SPECS
from variants._typing import TYPE_CHECKING, cast
from variants.native._kernels import ALGORITHMS, CORES, KERNELS_ENV, WIDE_CORES, KernelTable

if TYPE_CHECKING:
    from typing import (
        Any,
        ClassVar,
        Dict,
        Iterable,
        Iterator,
        List,
        NoReturn,
        Optional,
        Sequence,
        Type,
        TypeVar,
        Union,
    )

    from variants._column import Column

try:
    from variants.native._cffi import ffi, lib
except ImportError as exc:  # not built here (no compiler or cffi at install time), or no cffi
    raise ImportError(f"the C extension variants.native._cffi was not built ({exc})") from exc

__all__ = [
    "PENDING_LIMIT",
    "NativeHash",
    "absorb_many",
    "block_function",
    "block_functions",
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


lib.vn_setup()
if lib.vn_setup_problem():
    raise ImportError(f"{KERNELS_ENV}: {ffi.string(lib.vn_setup_problem()).decode()}")

# Bound once: every attribute lookup saved counts on the 64-byte path.
_new = ffi.new
_unpack = ffi.unpack
_from_buffer = ffi.from_buffer
_start = lib.vn_start
_update = lib.vn_update
_digest = lib.vn_digest
_copy = lib.vn_copy
_oneshot = lib.vn_oneshot
_HASH = ffi.typeof("vn_hash[1]")  # one allocation, where "vn_hash *" makes two
_OUT = ffi.typeof("char[64]")  # the largest digest
_new_object = object.__new__
#: Guards the short step from pending bytes to longer bytes or to a C state;
#: never held across a call into C.
_pending_lock = threading.Lock()

#: Up to this length, a message given as bytes stays bytes (grown by copying)
#: and each digest() hashes it whole in one call into C (see NativeHash).
PENDING_LIMIT = 1024

if TYPE_CHECKING:
    _H = TypeVar("_H", bound="NativeHash")


def _cdata(view: Union[bytes, memoryview], ctype: str = "char[]") -> Any:
    """A cdata array over the bytes of ``view``, where cffi can make one; over a copy of them
    where it cannot (on PyPy, some memoryviews, e.g. ``io.BytesIO().getbuffer()``, have no
    fixed address)."""
    try:
        return _from_buffer(ctype, view)
    except TypeError:
        return _from_buffer(ctype, bytes(view))


@contextlib.contextmanager
def _held(data: object) -> Iterator[Any]:
    """The bytes of ``data`` for C, with hashlib's errors for anything that has none, and every
    buffer export over ``data`` released on the way out: PyPy drops an export only when its
    holder is collected, and PyPy 8 (as CPython) refuses to resize a bytearray while one lives."""
    view = as_bytes(data)
    try:
        with _cdata(view) as cdata:
            yield cdata
    finally:
        view.release()


class NativeHash:
    """A hash object with hashlib's interface over the C state machine.

    ``_state`` holds the message in one of two forms:

    - ``bytes``: a short message (up to ``PENDING_LIMIT`` bytes, given as
      ``bytes``), grown by ``update`` (under a lock: it is read-modify-write)
      and hashed in one call into C by each ``digest``, with no C object;
    - a C ``vn_hash``, which takes every update from then on and has a mutex
      of its own: the message moves there once it outgrows the limit, or on
      an update with another kind of buffer.

    On PyPy the first form makes ``md5(data).digest()`` of a short message
    cheaper: there is no C object to allocate and free. On CPython this
    bridge is only the study's ``native-cffi``.

    The per-algorithm subclasses below are made by their constructors
    (functions, which cost less to call than a class with ``__init__``):
    ``md5(data=b"", *, usedforsecurity=True, string=None)``.
    """

    __slots__ = ("_state",)

    name: ClassVar[str]
    digest_size: ClassVar[int]
    block_size: ClassVar[int] = 64
    _algorithm: ClassVar[int]
    _state: Any  # bytes, or cdata "vn_hash[1]"

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(f"cannot create {type(self).__qualname__!r} instances: call {self.name}()")

    def update(self, data: object, /) -> None:
        """Hash the bytes of ``data`` (any bytes-like object) after what came before."""
        state = self._state
        if type(state) is bytes:
            state = self._grow(data)
            if state is None:
                return
        if type(data) is bytes:  # cffi passes bytes to const char * without a copy
            _update(state, data, len(data))
        else:
            with _held(data) as view:
                _update(state, view, len(view))

    def _grow(self, data: Optional[object]) -> Any:
        """Append ``data`` to the pending bytes if it fits (None), else the C state to update
        (``data`` None: always the C state)."""
        while True:
            with _pending_lock:
                state = self._state
                if type(state) is not bytes:
                    return state  # another thread moved the message to C
                if type(data) is bytes and len(state) + len(data) <= PENDING_LIMIT:
                    self._state = state + data
                    return None
            # Start a C state with the message so far, then publish it unless the
            # message changed meanwhile (an update from another thread): then again.
            h = _new(_HASH)
            _start(h, self._algorithm, state, len(state))
            with _pending_lock:
                if self._state is state:
                    self._state = h
                    return h

    def digest(self) -> bytes:
        """The digest of everything hashed so far; the object stays usable."""
        state = self._state
        out = _new(_OUT)
        if type(state) is bytes:
            size = _oneshot(self._algorithm, state, len(state), out)
        else:
            size = _digest(state, out)
        result: bytes = _unpack(out, size)
        return result

    def hexdigest(self) -> str:
        """``digest()`` as a string of hexadecimal digits."""
        return self.digest().hex()

    def copy(self: _H) -> _H:
        """An independent object in the same state."""
        other = _new_object(type(self))
        state = self._state
        if type(state) is bytes:
            other._state = state  # immutable: shared
        else:
            h = _new(_HASH)
            _copy(h, state)
            other._state = h
        return other

    def __reduce__(self) -> NoReturn:
        raise TypeError(f"cannot pickle {type(self).__qualname__!r} object")

    def __repr__(self) -> str:
        return f"<{self.name} native HASH object @ {hex(id(self))}>"


def _make_constructor(name: str) -> Constructor:
    algorithm = ALGORITHMS[name]
    spec = SPECS[name]
    namespace = {
        "__slots__": (),
        "__doc__": f"{name.upper()} hash object over cffi, like hashlib's.",
        "__module__": __name__,
        "name": name,
        "digest_size": spec.digest_size,
        "block_size": spec.block_size,
        "_algorithm": algorithm,
    }
    cls: Type[NativeHash] = type(name, (NativeHash,), namespace)

    def constructor(
        data: object = _EMPTY, *, usedforsecurity: bool = True, string: Optional[object] = None
    ) -> NativeHash:
        # ``usedforsecurity`` is accepted for hashlib compatibility.
        if string is not None:
            data = data_argument(data, string)
        obj = _new_object(cls)
        if type(data) is bytes and len(data) <= PENDING_LIMIT:
            obj._state = data
        else:
            h = _new(_HASH)
            if type(data) is bytes:
                _start(h, algorithm, data, len(data))
            else:
                with _held(data) as view:
                    _start(h, algorithm, view, len(view))
            obj._state = h
        return obj

    constructor.__name__ = constructor.__qualname__ = name
    constructor.__doc__ = (
        f"A new {name.upper()} hash object over cffi, optionally hashing data: hashlib's signature."
    )
    return constructor


#: The constructors by algorithm name (every algorithm of ``_kernels.ALGORITHMS``).
_CONSTRUCTORS: Dict[str, Constructor] = {name: _make_constructor(name) for name in ALGORITHMS}
globals().update(_CONSTRUCTORS)  # (as module attributes too: cffi_wrapper.md5, ...)


def constructors() -> Dict[str, Constructor]:
    """hashlib-compatible constructors by algorithm name."""
    return dict(_CONSTRUCTORS)


_WIDE = {CORES[core] for core in WIDE_CORES}


def _run(core: int, index: int, state: State, data: memoryview) -> State:
    wide = core in _WIDE
    size, block = data.nbytes, 128 if wide else 64
    if size % block:
        raise ValueError(f"{size} bytes is not whole {block}-byte blocks")
    words = _new("uint64_t[]" if wide else "uint32_t[]", list(state))
    with _held(data) as blocks:
        if lib.vn_compress(core, index, words, blocks, size // block) < 0:
            raise ValueError(f"no kernel {index} of core {core} runs on this CPU")
    return tuple(words)


def _pointer(what: str, index: int, message: object, keep: List[Any]) -> Any:
    """A pointer to the bytes of ``message`` for C (kept alive by ``keep``), or hashlib's
    error naming it ``what[index]``."""
    pointer = _cdata(bytes_of(message, index, what), "unsigned char[]")
    keep.append(pointer)
    return pointer


def _run_many(
    algorithm: int, messages: Iterable[object], hexdigest: bool, threads: int, index: int
) -> List[Any]:
    if not isinstance(messages, (list, tuple)):
        messages = list(messages)
    count = len(messages)
    keep: List[Any] = []
    data = _new("const unsigned char *[]", max(count, 1))
    lengths = _new("size_t[]", max(count, 1))
    for i, message in enumerate(messages):
        data[i] = _pointer("messages", i, message, keep)
        lengths[i] = len(keep[-1])
    size = lib.vn_digest_size(algorithm)
    out = _new("unsigned char[]", max(count * size, 1))
    if lib.vn_digest_many_with(index, algorithm, count, data, lengths, out, threads) < 0:
        raise ValueError(f"no many-kernel {index} runs on this CPU")
    raw = ffi.buffer(out)[: count * size]
    digests = [raw[i : i + size] for i in range(0, count * size, size)]
    return [digest.hex() for digest in digests] if hexdigest else digests


def absorb_many(hashes: Sequence[HashObject], chunks: Sequence[object]) -> None:
    """``hashes[i].update(chunks[i])`` for every i, through the lanes: several streams at once.

    The objects must be distinct and of one core (MD5; SHA-1; SHA-224 and SHA-256; SHA-384
    and the SHA-512s).
    """
    if len(hashes) != len(chunks):
        raise ValueError("as many chunks as hash objects are needed")
    for i, h in enumerate(hashes):
        if not isinstance(h, NativeHash):
            raise TypeError(f"hashes[{i}] is not a native hash object")
    natives = cast("Sequence[NativeHash]", hashes)
    if len({id(h) for h in hashes}) != len(hashes):
        raise ValueError("a hash object appears twice")
    if len({SPECS[h.name].core for h in natives}) > 1:
        raise ValueError(
            "only objects of one core can share the lanes (MD5; SHA-1; SHA-224 and SHA-256;"
            " SHA-384 and the SHA-512s)"
        )
    keep: List[Any] = []
    count = len(hashes)
    states = _new("vn_hash *[]", max(count, 1))
    data = _new("const unsigned char *[]", max(count, 1))
    lengths = _new("size_t[]", max(count, 1))
    for i, (h, chunk) in enumerate(zip(natives, chunks)):
        states[i] = h._grow(None)
        data[i] = _pointer("chunks", i, chunk, keep)
        lengths[i] = len(keep[-1])
    if lib.vn_update_many(states, count, data, lengths) < 0:
        raise MemoryError


def digest_column(algorithm: str, column: object, hexdigest: bool, threads: int) -> Column:
    """The digests of a column's rows, one by one with this bridge's objects: correct, not
    fast (the C-API bridge reads columns in C; see ``variants._column``)."""
    from variants import _column  # (only here: a plain hash need not import the columns' code)
    from variants.native import column_io

    io = column_io()
    return _column.loop(algorithm, constructors()[algorithm], column, hexdigest, threads, io)


def digest_files(algorithm: str, names: Sequence[bytes], small: int, threads: int = 1) -> List[Any]:
    """Per file name, read here (one after another: ``threads`` is for the C-API bridge's
    reader) and hashed in one batch: its digest if it is a regular file of at most ``small``
    bytes, an errno if it cannot be opened or read, else None."""
    return _many.digest_files(
        lambda messages: digest_many(algorithm, messages, False, 1), names, small
    )


_table = KernelTable(
    [
        [
            (
                ffi.string(lib.vn_kernel_id(core, i)).decode(),
                ffi.string(lib.vn_kernel_name(core, i)).decode(),
                bool(lib.vn_kernel_usable(core, i)),
            )
            for i in range(lib.vn_kernel_count(core))
        ]
        for core in range(len(CORES))
    ],
    lib.vn_kernel_chosen,
    _run,
    _run_many,
    lambda core, index: bool(lib.vn_kernel_ran(core, index)),
)
kernels = _table.kernels
kernel = _table.kernel
ran = _table.ran
describe = _table.describe
block_function = _table.block_function
block_functions = _table.block_functions
digest_many = _table.digest_many
digest_many_with = _table.digest_many_with
