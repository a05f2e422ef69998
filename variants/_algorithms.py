"""One description of every algorithm and of the cores they run on: the table the rest derives.

A *core* is a compression function with its block and word sizes (MD5's, SHA-256's, SHA-1's,
SHA-512's); an *algorithm* is what hashlib names (``sha224``): a core, an initial value and a
digest size. The native variant numbers both in this order (``tools/gen_constants.py`` writes
the numbering and the tables of ``variants/native/algorithms.h`` from here, checked with
``--check``), and the Python side takes them from here too: the shell's ``ALGORITHMS``
(``variants._shell``), the bridges' numbering (``variants.native._kernels``), the
constructors, the command line's ``-a`` list.

Adding an algorithm on an existing core is a row of ``ALGORITHMS`` (and its initial value in
``variants/_tables.py``), then ``python tools/gen_constants.py``; docs/development.md has the
rest ("Adding an algorithm").
"""

from __future__ import annotations

from variants._tables import (
    MD5_IV,
    SHA1_IV,
    SHA224_IV,
    SHA256_IV,
    SHA384_IV,
    SHA512_224_IV,
    SHA512_256_IV,
    SHA512_IV,
)
from variants._typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Dict, Sequence, Tuple


class Core(NamedTuple):
    """A compression function: the native variant has a single-message core of that name and a
    many core, ``<name>-many``, that hashes several messages at once in lanes."""

    name: str
    #: 32 or 64: the words of its state and its message schedule
    word_bits: int
    #: bytes a block
    block_size: int
    #: words of its chaining state
    state_words: int
    #: "little" (MD5) or "big": the order of the bytes of its words and of the length
    byteorder: str

    @property
    def length_room(self) -> int:
        """Bytes of a message's last block before its length in bits (two words: 8 bytes of a
        64-byte block, 16 of a 128-byte one): a last block with fewer bytes of the message
        than this takes the 0x80 and the length, one with as many or more needs a second."""
        return self.block_size - 2 * self.word_bits // 8


class Algorithm(NamedTuple):
    """An algorithm as hashlib names it, on one of ``CORES``."""

    name: str
    #: as its standard writes it: "SHA-512/224"
    title: str
    core: str
    digest_size: int
    #: its initial chaining state (``variants/_tables.py``; ``VN_<NAME>_IV`` in constants.h)
    iv: Tuple[int, ...]
    #: where its standard gives the initial value
    iv_reference: str
    #: whether coreutils has a ``<name>sum`` that ``variants-sum -a <name>`` stands for
    coreutils: bool = True


#: The cores, in the native variant's order (native.h numbers the single-message cores and
#: the many cores from it: see ``core_numbers``).
CORES: Tuple[Core, ...] = (
    Core("md5", 32, 64, 4, "little"),
    Core("sha256", 32, 64, 8, "big"),
    Core("sha1", 32, 64, 5, "big"),
    Core("sha512", 64, 128, 8, "big"),
)

#: The algorithms, numbered in this order (native.h's VN_MD5 = 0 ...).
ALGORITHMS: Tuple[Algorithm, ...] = (
    Algorithm("md5", "MD5", "md5", 16, MD5_IV, "RFC 1321, 3.3"),
    Algorithm("sha224", "SHA-224", "sha256", 28, SHA224_IV, "FIPS 180-4, 5.3.2"),
    Algorithm("sha256", "SHA-256", "sha256", 32, SHA256_IV, "FIPS 180-4, 5.3.3"),
    Algorithm("sha1", "SHA-1", "sha1", 20, SHA1_IV, "FIPS 180-4, 5.3.1"),
    Algorithm("sha384", "SHA-384", "sha512", 48, SHA384_IV, "FIPS 180-4, 5.3.4"),
    Algorithm("sha512", "SHA-512", "sha512", 64, SHA512_IV, "FIPS 180-4, 5.3.5"),
    Algorithm(
        "sha512_224",
        "SHA-512/224",
        "sha512",
        28,
        SHA512_224_IV,
        "FIPS 180-4, 5.3.6.1",
        coreutils=False,
    ),
    Algorithm(
        "sha512_256",
        "SHA-512/256",
        "sha512",
        32,
        SHA512_256_IV,
        "FIPS 180-4, 5.3.6.2",
        coreutils=False,
    ),
)

#: The cores by name.
CORE: Dict[str, Core] = {core.name: core for core in CORES}


def core_numbers() -> Dict[str, int]:
    """Every core's number, single-message and many (``md5``, ``md5-many``, ...), as native.h's
    VN_CORE_*: in pairs of ``CORES``, each pair's two single-message cores, then their two many
    cores (md5 0, sha256 1, md5-many 2, sha256-many 3, sha1 4, ...; the numbers the bridges and
    VARIANTS_NATIVE_KERNELS's listing have always had)."""
    numbers: Dict[str, int] = {}
    for pair in range(0, len(CORES), 2):
        names: Sequence[str] = [core.name for core in CORES[pair : pair + 2]]
        for offset, name in enumerate(names):
            numbers[name] = 2 * pair + offset
        for offset, name in enumerate(names):
            numbers[f"{name}-many"] = 2 * pair + len(names) + offset
    return dict(sorted(numbers.items(), key=lambda item: item[1]))
