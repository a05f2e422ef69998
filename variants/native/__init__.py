"""The native variant: MD5 and SHA-256 kernels in C per architecture, behind cffi.

The whole state machine (start, update with buffering, digest, copy) is C, in
``hash.c``; this module is the hashlib-shaped wrapper around it, which keeps a
short message as bytes until its digest so that ``md5(data).digest()`` is a
single call into C (see ``NativeHash``). At import the C side detects the CPU's
features once and chooses a kernel per core (``kernel()`` says which); setting
``VARIANTS_NATIVE_PORTABLE=1`` before the import makes it choose the portable
C kernels instead.

cffi releases the GIL around every call into C, so long updates run in
parallel with other threads; each hash object carries a mutex (C side) so
that updates from several threads to one object are applied whole, as hashlib's are.

The registry reaches this module as the ``provider`` of the ``native`` variant:
``constructors()``, ``block_functions()`` and ``describe()``.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, ClassVar, Dict, List, NoReturn, Optional, Tuple, Type, TypeVar

from variants._shell import _EMPTY, Compress, Constructor, State, as_bytes, data_argument

try:
    from variants.native._native import ffi, lib
except ImportError as exc:  # not built here (no compiler or cffi at install time), or no cffi
    raise ImportError(
        f"the C extension variants.native._native is not importable ({exc}); it is built by "
        "`pip install .` with cffi and a C compiler (VARIANTS_REQUIRE_ALL=1 makes a failed "
        "build an error)"
    ) from exc

__all__ = [
    "CORES",
    "FILLS_BYTES",
    "PENDING_LIMIT",
    "PORTABLE_ENV",
    "NativeHash",
    "block_function",
    "block_functions",
    "constructors",
    "describe",
    "kernel",
    "kernels",
]

#: Set (to anything but "" or "0") before import to run the portable kernels.
PORTABLE_ENV = "VARIANTS_NATIVE_PORTABLE"

#: The cores and algorithms, numbered as in native.h.
CORES: Dict[str, int] = {"md5": 0, "sha256": 1}
_ALGORITHMS: Dict[str, int] = {"md5": 0, "sha224": 1, "sha256": 2}
_STATE_WORDS: Dict[str, int] = {"md5": 4, "sha256": 8}

#: Up to this length, a message in bytes stays bytes (grown by copying) and
#: each digest() hashes it whole in one call into C (see NativeHash).
PENDING_LIMIT = 1024

lib.vn_setup()

# Bound once: every attribute lookup saved counts on the 64-byte path.
_new = ffi.new
_unpack = ffi.unpack
_from_buffer = ffi.from_buffer
_start = lib.vn_start
_update = lib.vn_update
_digest = lib.vn_digest
_oneshot = lib.vn_oneshot
_copy = lib.vn_copy
_HASH = ffi.typeof("vn_hash[1]")  # one allocation, where "vn_hash *" makes two
_OUT = ffi.typeof("char[32]")
_new_object = object.__new__
#: Guards the short step from pending bytes to longer bytes or to a C state;
#: never held across a call into C.
_pending_lock = threading.Lock()


def _fills_bytes() -> bool:
    """Whether a digest can be written by C straight into a new bytes object.

    On CPython, cffi passes a ``bytes`` argument to a ``char *`` parameter as
    the object's own storage. A bytes object just made by ``bytes(n)`` has no
    other reference yet, so C may fill it, as C extensions fill the result of
    ``PyBytes_FromStringAndSize(NULL, n)``: the digest then costs no cdata
    buffer and no copy (with ``ffi.new`` and ``ffi.unpack`` a 64-byte
    ``md5(data).digest()`` takes about 30 % longer). cffi's documentation says a C
    function must not write to such an argument; this is the one place that
    does, on an object nobody else can see yet. Checked once, here: the
    interpreter must hand out a new object for each ``bytes(n)`` and the
    write must land in it. Elsewhere (PyPy, where cffi may pass a copy),
    digests go through a cdata buffer.
    """
    if sys.implementation.name != "cpython" or bytes(16) is bytes(16):
        return False
    probe = bytes(16)
    _oneshot(_ALGORITHMS["md5"], b"", 0, probe)
    return probe == bytes.fromhex("d41d8cd98f00b204e9800998ecf8427e")


FILLS_BYTES = _fills_bytes()

_H = TypeVar("_H", bound="NativeHash")


def _buffer(data: object) -> Any:
    """The bytes of ``data`` for C, with hashlib's errors for anything that has none.

    A cdata view where cffi can make one; a copy of the bytes where it cannot
    (on PyPy, some memoryviews, e.g. ``io.BytesIO().getbuffer()``, have no
    fixed address).
    """
    view = as_bytes(data)
    try:
        return _from_buffer(view)
    except TypeError:
        return view.tobytes()


def _started(algorithm: int, data: object) -> Any:
    """A new C state that has hashed ``data``."""
    view: Any = data if type(data) is bytes else _buffer(data)
    h = _new(_HASH)
    _start(h, algorithm, view, len(view))
    return h


class NativeHash:
    """A hash object with hashlib's interface over the C state machine (``hash.c``).

    ``_state`` holds the message in one of three forms:

    - ``bytes``: a short message (up to ``PENDING_LIMIT`` bytes), grown by
      ``update`` (under a lock: it is read-modify-write) and hashed in one call
      into C by each ``digest``;
    - ``[message, digest]``, a list: a longer message given whole (to the
      constructor, or in the first update of an empty object), kept as it is
      (no copy) and hashed in one call into C by the first ``digest``, which
      stores its result in the list for the next ones (two threads may both
      compute it: the same value);
    - a C ``vn_hash``, which takes every update from then on and has a mutex
      of its own: the message moves there once it outgrows the limit, or on
      an update with another kind of buffer, or any update to a whole one.

    So ``md5(data).digest()``, like ``h = md5(); h.update(data); h.digest()``,
    makes no C state at all, at any length. The per-algorithm subclasses below
    are made by their constructors (functions, which cost less to call than a
    class with ``__init__``): ``md5(data=b"", *, usedforsecurity=True, string=None)``.
    """

    __slots__ = ("_state",)

    name: ClassVar[str]
    digest_size: ClassVar[int]
    block_size: ClassVar[int] = 64
    _algorithm: ClassVar[int]
    _state: Any  # bytes, [bytes, Optional[bytes]], or cdata "vn_hash[1]"

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            f"cannot create {type(self).__qualname__!r} instances: call native.{self.name}()"
        )

    def update(self, data: object) -> None:
        """Hash the bytes of ``data`` (any bytes-like object) after what came before."""
        state = self._state
        if type(state) is bytes and type(data) is bytes:
            with _pending_lock:  # a read-modify-write of the message
                state = self._state
                if type(state) is bytes:
                    if len(state) + len(data) <= PENDING_LIMIT:
                        self._state = state + data
                        return
                    if not state:  # a whole message, as if given to the constructor
                        self._state = [data, None]
                        return
        if type(state) is bytes or type(state) is list:
            state = self._to_c()
        if type(data) is bytes:  # cffi passes bytes to const char * without a copy
            _update(state, data, len(data))
        else:
            view = _buffer(data)
            _update(state, view, len(view))

    def _to_c(self) -> Any:
        """Move the message to a C state (or find another thread did); return the state."""
        while True:
            state = self._state
            if type(state) is bytes:
                message = state
            elif type(state) is list:
                message = state[0]
            else:
                return state
            # Start a C state of our own, then publish it unless the message
            # changed meanwhile (an update from another thread): then again.
            h = _started(self._algorithm, message)
            with _pending_lock:
                if self._state is state:
                    self._state = h
                    return h

    if FILLS_BYTES:

        def digest(self) -> bytes:
            """The digest of everything hashed so far; the object stays usable."""
            state = self._state
            out = bytes(self.digest_size)  # new and unshared: C fills it in
            if type(state) is bytes:
                _oneshot(self._algorithm, state, len(state), out)
            elif type(state) is list:  # [message, its digest once computed]
                if state[1] is None:
                    _oneshot(self._algorithm, state[0], len(state[0]), out)
                    state[1] = out
                remembered: bytes = state[1]
                return remembered
            else:
                _digest(state, out)
            return out

    else:

        def digest(self) -> bytes:
            """The digest of everything hashed so far; the object stays usable."""
            state = self._state
            out = _new(_OUT)
            result: bytes
            if type(state) is bytes:
                result = _unpack(out, _oneshot(self._algorithm, state, len(state), out))
            elif type(state) is list:  # [message, its digest once computed]
                if state[1] is None:
                    message = state[0]
                    state[1] = _unpack(out, _oneshot(self._algorithm, message, len(message), out))
                result = state[1]
            else:
                result = _unpack(out, _digest(state, out))
            return result

    def hexdigest(self) -> str:
        """``digest()`` as a string of hexadecimal digits."""
        return self.digest().hex()

    def copy(self: _H) -> _H:
        """An independent object in the same state."""
        other = _new_object(type(self))
        state = self._state
        if type(state) is bytes or type(state) is list:
            other._state = state  # a message and its digest never change: shared
        else:
            h = _new(_HASH)
            _copy(h, state)
            other._state = h
        return other

    def __reduce__(self) -> NoReturn:
        raise TypeError(f"cannot pickle {type(self).__qualname__!r} object")

    def __repr__(self) -> str:
        return f"<{self.name} native HASH object @ {hex(id(self))}>"


def _make_type(name: str, digest_size: int) -> Type[NativeHash]:
    namespace = {
        "__slots__": (),
        "__doc__": f"{name.upper()} hash object of the 'native' variant, like hashlib's.",
        "__module__": "variants",
        "name": name,
        "digest_size": digest_size,
        "_algorithm": _ALGORITHMS[name],
    }
    cls = type(name, (NativeHash,), namespace)
    cls.__qualname__ = f"native.{name}"
    return cls


def _make_constructor(cls: Type[NativeHash]) -> Constructor:
    algorithm = cls._algorithm

    def constructor(
        data: object = _EMPTY, *, usedforsecurity: bool = True, string: Optional[object] = None
    ) -> NativeHash:
        # ``usedforsecurity`` is accepted for hashlib compatibility.
        if string is not None:
            data = data_argument(data, string)
        h = _new_object(cls)
        if type(data) is bytes:
            h._state = data if len(data) <= PENDING_LIMIT else [data, None]
        else:
            h._state = _started(algorithm, data)
        return h

    constructor.__name__ = constructor.__qualname__ = cls.name
    constructor.__doc__ = (
        f"A new {cls.name.upper()} hash object of the native variant, optionally "
        "hashing data: hashlib's signature."
    )
    return constructor


md5 = _make_constructor(_make_type("md5", 16))
sha224 = _make_constructor(_make_type("sha224", 28))
sha256 = _make_constructor(_make_type("sha256", 32))


def constructors() -> Dict[str, Constructor]:
    """hashlib-compatible constructors by algorithm name."""
    return {"md5": md5, "sha224": sha224, "sha256": sha256}


def kernels() -> Dict[str, List[Tuple[str, bool]]]:
    """Each core's kernels in this build, portable first, with whether this CPU runs them."""
    return {
        core: [
            (
                ffi.string(lib.vn_kernel_name(number, i)).decode(),
                bool(lib.vn_kernel_usable(number, i)),
            )
            for i in range(lib.vn_kernel_count(number))
        ]
        for core, number in CORES.items()
    }


def kernel() -> Dict[str, str]:
    """The kernel chosen for each core: ``{"md5": ..., "sha256": ...}``."""
    return {
        core: ffi.string(lib.vn_kernel_name(number, lib.vn_kernel_chosen(number))).decode()
        for core, number in CORES.items()
    }


def describe() -> str:
    """The kernels chosen, e.g. ``md5: x86-64 scalar, sha256: x86-64 SHA-NI``."""
    return ", ".join(f"{core}: {name}" for core, name in kernel().items())


def block_function(core: str, kernel_name: Optional[str] = None) -> Compress:
    """The block function of ``core`` ("md5" or "sha256") running one kernel.

    ``kernel_name`` picks a kernel by its name in ``kernels()`` (the chosen one
    if None); a kernel this CPU cannot run is a ValueError. The signature is the
    pure-Python variants': ``compress(state, data) -> state`` over whole 64-byte blocks.
    """
    number = CORES[core]
    index = -1
    if kernel_name is not None:
        names = [name for name, _ in kernels()[core]]
        if kernel_name not in names:
            raise ValueError(f"no {core} kernel {kernel_name!r} here; there are {names}")
        index = names.index(kernel_name)
        if not lib.vn_kernel_usable(number, index):
            raise ValueError(f"this CPU cannot run the {core} kernel {kernel_name!r}")
    state_type = ffi.typeof(f"uint32_t[{_STATE_WORDS[core]}]")
    compress_c = lib.vn_compress

    def compress(state: State, data: memoryview) -> State:
        size = data.nbytes
        if size % 64:
            raise ValueError(f"{core} block function: {size} bytes is not whole 64-byte blocks")
        words = _new(state_type, state)
        compress_c(number, index, words, _buffer(data), size // 64)
        return tuple(words)

    compress.__qualname__ = compress.__name__ = f"{core}_compress"
    return compress


def block_functions() -> Dict[str, Compress]:
    """The chosen kernels as block functions, by core: for the block-only benchmark."""
    return {core: block_function(core) for core in CORES}
