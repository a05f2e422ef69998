"""``file_digest``: hashlib.file_digest for the variants, on every Python from 3.9."""

from __future__ import annotations

from variants._shell import HashObject
from variants._typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from typing import Callable, Optional, TypeVar, Union, overload

    _H = TypeVar("_H")

#: Bytes read (and hashed) at a time, here and by variants-sum: enough to make
#: the per-call overhead negligible, and no more, since larger reads from the
#: page cache cost more system time. Memory stays bounded whatever the file's size.
CHUNK = 128 << 10


class _BytesIOLike(Protocol):
    def getbuffer(self) -> memoryview: ...


class _BinaryReader(Protocol):
    def readinto(self, buffer: bytearray, /) -> Optional[int]: ...
    def readable(self) -> bool: ...


if TYPE_CHECKING:

    @overload
    def file_digest(
        fileobj: Union[_BytesIOLike, _BinaryReader], digest: str, /, *, _bufsize: int = ...
    ) -> HashObject: ...
    @overload
    def file_digest(
        fileobj: Union[_BytesIOLike, _BinaryReader],
        digest: Callable[[], _H],
        /,
        *,
        _bufsize: int = ...,
    ) -> _H: ...


def file_digest(
    fileobj: Union[_BytesIOLike, _BinaryReader],
    digest: Union[str, Callable[[], object]],
    /,
    *,
    _bufsize: int = CHUNK,
) -> object:
    """Hash the contents of a file-like object; return the hash object.

    Like ``hashlib.file_digest`` (Python 3.11+), and available on 3.9 and 3.10
    too. ``fileobj`` must be opened for reading in binary mode: a file from
    ``open(..., "rb")``, an ``io.BytesIO`` (hashed whole, from its first byte,
    as hashlib does) or a socket's ``makefile("rb")``. ``digest`` is an
    algorithm name for ``variants.new`` (so the default variant), or a callable
    returning a fresh hash object (``variants.sha256``,
    ``variants.get("helpers").md5``, even ``hashlib.sha1``).

    The file is read in chunks of ``_bufsize`` bytes into one reused buffer,
    so memory stays bounded whatever the file's size.

        >>> import io, variants
        >>> variants.file_digest(io.BytesIO(b"abc"), "md5").hexdigest()
        '900150983cd24fb0d6963f7d28e17f72'

    Raises ``ValueError`` if ``fileobj`` is not a binary file open for
    reading (a text file, say) and ``BlockingIOError`` if a non-blocking file
    has no data ready.
    """
    if isinstance(digest, str):
        from variants import new

        digestobj: HashObject = new(digest)
    else:
        digestobj = digest()  # type: ignore[assignment]

    if hasattr(fileobj, "getbuffer"):
        # io.BytesIO: hash its buffer in place, without copying.
        with fileobj.getbuffer() as view:
            digestobj.update(view)
        return digestobj

    # Only binary files have readinto().
    if not (hasattr(fileobj, "readinto") and hasattr(fileobj, "readable") and fileobj.readable()):
        raise ValueError(f"'{fileobj!r}' is not a file-like object in binary reading mode.")

    buffer = bytearray(_bufsize)  # reused for every chunk
    view = memoryview(buffer)
    readinto = fileobj.readinto
    update = digestobj.update
    while True:
        size = readinto(buffer)
        if size is None:
            raise BlockingIOError("I/O operation would block.")
        if size == 0:
            break  # EOF
        update(view[:size])
    return digestobj
