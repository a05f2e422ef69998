"""The hashlib-compatible object shared by every variant that supplies a block function.

A variant contributes only ``compress(state, data) -> state`` for each core it has
(MD5, SHA-256, SHA-1, SHA-512), where ``data`` is a ``memoryview`` of whole blocks
(64 bytes; SHA-512's 128). The shell does the rest, identically for all of them:
accepting any bytes-like input, buffering partial blocks, counting the length,
padding, output, ``copy()`` and locking. Differences in the study's numbers
therefore come from the block functions alone.
"""

from __future__ import annotations

import struct
import sys
import threading
import warnings

from variants import _algorithms
from variants._typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from typing import (
        Any,
        Callable,
        ClassVar,
        Dict,
        Mapping,
        NoReturn,
        Optional,
        Tuple,
        Type,
        TypeVar,
    )

    State = Tuple[int, ...]
    #: A block function: the chaining state after ``data``, whole blocks of its core.
    Compress = Callable[[State, memoryview], State]


class HashObject(Protocol):
    """What every variant's hash objects offer: hashlib's interface."""

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    def update(self, data: Any, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> HashObject: ...


if TYPE_CHECKING:
    #: A constructor with hashlib's signature: ``md5(data=b"", *, usedforsecurity=True)``.
    Constructor = Callable[..., HashObject]
else:  # names for annotations only, which stay strings at run time (variants._typing)
    State = Compress = Constructor = object

_EMPTY = b""  # the default data argument: identity says "not given"
_LENGTH_MASK = (1 << 64) - 1


def _padding(block_size: int) -> Tuple[bytes, ...]:
    """The padding after a final partial block of n bytes, before the length (FIPS 180-4 5.1,
    RFC 1321 3.1): 0x80, then zeros up to the length field, 8 bytes of a 64-byte block, 16 of
    a 128-byte one."""
    end = block_size - block_size // 8
    return tuple(b"\x80" + bytes((end - 1 - n) % block_size) for n in range(block_size))


_PADDINGS = {64: _padding(64), 128: _padding(128)}


class AlgorithmSpec:
    """What the shell needs to know about one algorithm apart from its block function."""

    __slots__ = ("block_size", "byteorder", "core", "digest_size", "iv", "name")

    def __init__(
        self,
        name: str,
        core: str,
        iv: State,
        digest_size: int,
        byteorder: str,
        block_size: int = 64,
    ) -> None:
        self.name = name
        self.core = core  # the block function it runs: "md5", "sha256", "sha1" or "sha512"
        self.iv = iv
        self.digest_size = digest_size
        self.block_size = block_size
        self.byteorder = byteorder

    def __repr__(self) -> str:
        return f"AlgorithmSpec({self.name!r})"


#: Every algorithm some variant provides, by hashlib's name. A variant provides those whose core
#: it has (the native variant all).
ALGORITHMS: Mapping[str, AlgorithmSpec] = {
    a.name: AlgorithmSpec(
        a.name,
        a.core,
        a.iv,
        a.digest_size,
        _algorithms.CORE[a.core].byteorder,
        _algorithms.CORE[a.core].block_size,
    )
    for a in _algorithms.ALGORITHMS  # (variants/_algorithms.py: the one description of each)
}


def raise_like_hashlib(data: object) -> NoReturn:
    """Raise the error the running interpreter's hashlib raises for ``data``.

    The messages differ between CPython and PyPy (and between versions), so
    they are taken from hashlib itself rather than copied.
    """
    import hashlib  # (only here: the drop-in's import need not pay for it)

    try:
        hashlib.sha256(data)  # type: ignore[arg-type]
    except (TypeError, BufferError) as exc:
        raise type(exc)(*exc.args) from None
    raise TypeError(f"object supporting the buffer API required, not {type(data).__name__}")


def as_bytes(data: object) -> memoryview:
    """A flat, C-contiguous view of the bytes of any bytes-like ``data``."""
    if isinstance(data, str):
        raise_like_hashlib(data)
    try:
        view = memoryview(data)  # type: ignore[arg-type]
    except TypeError:
        raise_like_hashlib(data)
    if not view.c_contiguous:
        import hashlib

        try:  # CPython's and PyPy 8's hashlib refuse these, PyPy 7.3's hashes their bytes
            hashlib.sha256(view)
        except BufferError as exc:
            view.release()
            raise BufferError(*exc.args) from None
        return memoryview(view.tobytes())
    if view.ndim == 1 and view.format == "B":
        return view
    try:
        return view.cast("B")
    except TypeError:  # formats cast() cannot take (e.g. zero-dimensional views)
        return memoryview(view.tobytes())


#: hashlib's error for a name it does not know (3.15 says "algorithm" where 3.9-3.14 say "type").
UNSUPPORTED = (
    "unsupported hash algorithm {}" if sys.version_info >= (3, 15) else "unsupported hash type {}"
)
#: 3.15's hashlib warns of its constructors' ``string`` keyword so, and the constructors here too.
STRING_DEPRECATED = (
    "the 'string' keyword parameter is deprecated since Python 3.15 and slated for removal in"
    " Python 3.19; use the 'data' keyword parameter or pass the data to hash as a positional"
    " argument instead"
)


def data_argument(data: object, string: Optional[object]) -> object:
    """The constructors' data: ``data``, or ``string`` (hashlib's name for it on 3.9-3.13,
    deprecated from 3.15: a DeprecationWarning for the constructor's caller there)."""
    if string is None:
        return data
    if data is not _EMPTY:
        raise TypeError("'data' and 'string' are mutually exclusive")
    if sys.version_info >= (3, 15):
        warnings.warn(STRING_DEPRECATED, DeprecationWarning, stacklevel=3)
    return string


if TYPE_CHECKING:
    _H = TypeVar("_H", bound="ShellHash")


class ShellHash:
    """A hash object with hashlib's interface over one variant's block function.

    Instances are made by the per-variant, per-algorithm subclasses that
    ``make_type`` creates; those classes are the constructors the registry hands
    out (``md5(data=b"", *, usedforsecurity=True)``).
    """

    __slots__ = ("_buffer", "_length", "_lock", "_state")

    name: ClassVar[str]
    digest_size: ClassVar[int]
    block_size: ClassVar[int] = 64
    variant: ClassVar[str]
    _compress: Compress  # set on each subclass (a class attribute, not a method)
    _iv: ClassVar[State]
    #: Set on each subclass like ``_compress``: the digest from the state's first ``_words``
    #: words, and the length field from the message's length in bits (below 2**64), in the
    #: algorithm's byte order (struct packers where they can be); the padding after a final
    #: partial block of n bytes; ``block_size - 1`` as a mask.
    _out: Callable[..., bytes]
    _words: ClassVar[int]
    _bit_length: Callable[[int], bytes]
    _padding: ClassVar[Tuple[bytes, ...]] = _PADDINGS[64]
    _partial: ClassVar[int] = 63

    def __init__(
        self,
        data: object = _EMPTY,
        *,
        usedforsecurity: bool = True,
        string: Optional[object] = None,
    ) -> None:
        # ``usedforsecurity`` is accepted for hashlib compatibility; every
        # algorithm here is always available.
        if string is not None:
            data = data_argument(data, string)
        self._state: State = self._iv
        self._buffer = _EMPTY
        self._length = 0
        self._lock = threading.Lock()
        if data is not _EMPTY:
            self.update(data)

    def update(self, data: object, /) -> None:
        """Hash the bytes of ``data`` (any bytes-like object) after what came before."""
        # bytes, the common case, is a flat buffer of unsigned bytes: no checks needed.
        view = memoryview(data) if type(data) is bytes else as_bytes(data)
        with self._lock:
            state = self._state
            buffer = self._buffer
            n = len(view)
            length = self._length + n
            partial = self._partial
            if buffer:
                need = partial + 1 - len(buffer)
                if n < need:
                    self._buffer = buffer + view
                    self._length = length
                    return
                state = self._compress(state, memoryview(buffer + view[:need]))
                view = view[need:]
                n -= need
            whole = n & ~partial
            if whole == n:  # no partial block left over (n == 0 too)
                if n:
                    state = self._compress(state, view)
                self._buffer = _EMPTY
            else:
                if whole:
                    state = self._compress(state, view[:whole])
                self._buffer = view[whole:].tobytes()
            self._state = state
            self._length = length

    def digest(self) -> bytes:
        """The digest of everything hashed so far; the object stays usable."""
        with self._lock:
            state, buffer, length = self._state, self._buffer, self._length
        tail = buffer + self._padding[len(buffer)] + self._bit_length((length << 3) & _LENGTH_MASK)
        state = self._compress(state, memoryview(tail))
        return self._out(*state[: self._words])

    def hexdigest(self) -> str:
        """``digest()`` as a string of hexadecimal digits."""
        return self.digest().hex()

    def copy(self: _H) -> _H:
        """An independent object in the same state."""
        other = object.__new__(type(self))
        with self._lock:
            other._state = self._state
            other._buffer = self._buffer
            other._length = self._length
        other._lock = threading.Lock()
        return other

    def __reduce__(self) -> NoReturn:
        raise TypeError(f"cannot pickle {type(self).__qualname__!r} object")

    def __repr__(self) -> str:
        return f"<{self.name} {self.variant} HASH object @ {hex(id(self))}>"


def _truncated(pack: Callable[..., bytes], size: int) -> Callable[..., bytes]:
    """``pack``, its output cut to ``size`` bytes (SHA-512/224's digest: 3.5 words)."""

    def out(*words: int) -> bytes:
        return pack(*words)[:size]

    return out


def _length_field(size: int, byteorder: str) -> Callable[[int], bytes]:
    """The length field of ``size`` bytes: a struct packer for 8, else ``int.to_bytes``."""
    if size == 8:
        return struct.Struct(("<" if byteorder == "little" else ">") + "Q").pack

    def field(bits: int) -> bytes:
        return bits.to_bytes(size, "little" if byteorder == "little" else "big")

    return field


def make_type(variant: str, spec: AlgorithmSpec, compress: Compress) -> Type[ShellHash]:
    """The hash class (constructor) of ``spec`` over ``compress`` for ``variant``."""
    prefix = "<" if spec.byteorder == "little" else ">"
    word_size = 4 if spec.block_size == 64 else 8  # bytes: 32-bit words, SHA-512's 64
    words = -(-spec.digest_size // word_size)
    out = struct.Struct(f"{prefix}{words}{'I' if word_size == 4 else 'Q'}").pack
    if words * word_size != spec.digest_size:
        out = _truncated(out, spec.digest_size)
    namespace = {
        "__slots__": (),
        "__doc__": f"{spec.name.upper()} hash object of the {variant!r} variant, like hashlib's.",
        "__module__": "variants",
        "name": spec.name,
        "digest_size": spec.digest_size,
        "block_size": spec.block_size,
        "variant": variant,
        "_compress": staticmethod(compress),
        "_iv": spec.iv,
        "_out": staticmethod(out),
        "_words": words,
        "_bit_length": staticmethod(_length_field(spec.block_size // 8, spec.byteorder)),
        "_padding": _PADDINGS[spec.block_size],
        "_partial": spec.block_size - 1,
    }
    cls = type(spec.name, (ShellHash,), namespace)
    cls.__qualname__ = f"{variant}.{spec.name}"
    return cls


def make_types(variant: str, cores: Mapping[str, Compress]) -> Dict[str, Type[ShellHash]]:
    """One hash class per algorithm whose core has a block function in ``cores``."""
    return {
        name: make_type(variant, spec, cores[spec.core])
        for name, spec in ALGORITHMS.items()
        if spec.core in cores
    }
