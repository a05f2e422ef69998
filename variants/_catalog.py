"""The variants written in Python and the compiled twins built from them: one table.

The registry (``variants/registry.py``) makes a variant of every entry here;
the build (``build_support/compiled.py``, which loads this file by path, so it
imports nothing) compiles every twin. Adding a twin is one line in ``TWINS``.

A source variant's block functions live in modules below ``variants/``, one per
core ("md5", "sha256", "sha1", "sha512"). A twin compiles the same modules, unchanged or with
their locals annotated for the compiler (``annotations``: the build renders
those copies with ``tools/gen_streamlined.py``), into a package of its own,
``variants._twins.<name>``, so that one process can import the interpreted
module and its compiled twin side by side.
"""

from __future__ import annotations

from variants._typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Dict, Tuple


COMPILERS = ("mypyc", "cython")


class Source(NamedTuple):
    """A variant written in Python: its name, its modules by core, what it is."""

    name: str
    modules: Dict[str, str]  # core -> module below variants/, e.g. "helpers.md5"
    description: str


class Twin(NamedTuple):
    """A compiled build of a source variant's modules."""

    source: str  # the Source it compiles
    compiler: str  # one of COMPILERS
    annotations: str = ""  # "i64": compiled from copies with i64 locals (mypyc)

    @property
    def name(self) -> str:
        """The variant's name: ``streamlined-mypyc``, ``streamlined-bytewise-i64-mypyc``."""
        parts = [self.source, self.annotations, self.compiler]
        return "-".join(part for part in parts if part)

    @property
    def package(self) -> str:
        """The package the build puts its extension modules in."""
        return "variants._twins." + self.name.replace("-", "_")


#: The variants written in Python, in the drop-in's order of preference.
SOURCES: Tuple[Source, ...] = (
    Source(
        "streamlined",
        {
            "md5": "streamlined.md5_words",
            "sha256": "streamlined.sha256_words",
            "sha1": "streamlined.sha1_words",
            "sha512": "streamlined.sha512_words",
        },
        "pure Python, each block function one unrolled loop body, every value a machine "
        "word (SHA-512's 64-bit words excepted): the plain inlined style (OpenJDK's 8256523)",
    ),
    Source(
        "streamlined-lanes",
        {"sha256": "streamlined.sha256_lanes"},
        "beyond inlining: streamlined SHA-256 with the message schedule of many blocks "
        "at once in big-integer lanes (values outgrow 64 bits; CPython's fastest)",
    ),
    Source(
        "streamlined-bytewise",
        {
            "md5": "streamlined.md5_words_bytewise",
            "sha256": "streamlined.sha256_words_bytewise",
            "sha1": "streamlined.sha1_words_bytewise",
        },
        "streamlined in machine words, reading message words byte by byte (the compilers' shape)",
    ),
    Source(
        "helpers",
        {
            "md5": "helpers.md5",
            "sha256": "helpers.sha256",
            "sha1": "helpers.sha1",
            "sha512": "helpers.sha512",
        },
        "pure Python, textbook helper functions called per step",
    ),
)

#: The compiled twins, in the drop-in's order of preference.
TWINS: Tuple[Twin, ...] = (
    Twin("streamlined-bytewise", "mypyc", "i64"),
    Twin("streamlined", "cython"),
    Twin("streamlined", "mypyc"),
    Twin("streamlined-bytewise", "mypyc"),
    Twin("helpers", "cython"),
    Twin("helpers", "mypyc"),
)

#: The typed Cython variant: .pyx sources below variants/, one per core.
TYPED_CYTHON: Dict[str, str] = {
    "md5": "cython.md5",
    "sha256": "cython.sha256",
    "sha1": "cython.sha1",
    "sha512": "cython.sha512",
}


def source(name: str) -> Source:
    """The source variant called ``name``."""
    for entry in SOURCES:
        if entry.name == name:
            return entry
    raise KeyError(name)
