"""What both native bridges say about the kernels: the listing, the choice, running one of them.

Each bridge (the C-API module on CPython, the cffi module) compiles its own
copy of the kernels and of their dispatch; it hands a ``KernelTable`` the
listing, the choice and a way to run one kernel, and the table answers the
same questions for both.

There are eight cores: ``md5``, ``sha256``, ``sha1`` and ``sha512`` hash one
message at a time (their kernels are block functions; ``sha512``'s over
128-byte blocks of 64-bit words); ``md5-many``, ``sha256-many``, ``sha1-many``
and ``sha512-many`` hash many messages at once, one per lane (their kernels
run ``digest_many``).
"""

from __future__ import annotations

from variants import _algorithms, _settings
from variants._algorithms import core_numbers
from variants._shell import ALGORITHMS as SPECS
from variants._shell import Compress, State
from variants._typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

#: The cores, numbered as in native.h (both from variants/_algorithms.py).
CORES: Dict[str, int] = core_numbers()
#: The cores that hash one message at a time, with their chaining state's length in words.
STATE_WORDS: Dict[str, int] = {core.name: core.state_words for core in _algorithms.CORES}
#: The algorithms, numbered as in native.h, and the many-core each runs on.
ALGORITHMS: Dict[str, int] = {a.name: n for n, a in enumerate(_algorithms.ALGORITHMS)}
MANY_CORE: Dict[str, str] = {name: f"{SPECS[name].core}-many" for name in ALGORITHMS}
#: The cores whose words are 64 bits (and blocks 128 bytes).
WIDE_CORES = tuple(core.name for core in _algorithms.CORES if core.word_bits == 64)
#: What forces kernels, read when a bridge is imported: ``core=id,...`` (dispatch.c).
KERNELS_ENV = _settings.NATIVE_KERNELS_ENV

if TYPE_CHECKING:
    #: Run kernel ``index`` of core ``number`` (-1: the chosen one) over whole
    #: blocks: the new state, or a ValueError.
    RunKernel = Callable[[int, int, State, memoryview], State]
    #: Hash ``messages`` with algorithm ``number`` in many-kernel ``index`` (-1: the
    #: chosen one): (algorithm, messages, hexdigest, threads, index) -> digests.
    RunMany = Callable[[int, Iterable[object], bool, int, int], List[Any]]


class Kernel(NamedTuple):
    """A kernel of this build: its short id (as VARIANTS_NATIVE_KERNELS names it), its
    name, and whether this CPU can run it."""

    id: str
    name: str
    usable: bool


class KernelTable:
    """One bridge's kernels: ``listing[core number]`` is its kernels, portable first."""

    def __init__(
        self,
        listing: Sequence[Sequence[Tuple[str, str, bool]]],
        chosen: Callable[[int], int],
        run: RunKernel,
        run_many: RunMany,
        ran: Callable[[int, int], bool],
    ) -> None:
        self._listing = {core: [Kernel(*k) for k in listing[n]] for core, n in CORES.items()}
        self._chosen = {core: chosen(number) for core, number in CORES.items()}
        self._run = run
        self._run_many = run_many
        self._ran = ran

    def kernels(self) -> Dict[str, List[Kernel]]:
        """Each core's kernels in this build, portable first."""
        return {core: list(kernels) for core, kernels in self._listing.items()}

    def kernel(self) -> Dict[str, str]:
        """The name of the kernel chosen for each core: ``{"md5": ..., "sha256": ..., ...}``."""
        return {core: self._listing[core][index].name for core, index in self._chosen.items()}

    def ran(self) -> Dict[str, List[str]]:
        """The ids of each core's kernels that have run in this process (the tests check
        that every kernel this CPU can run did)."""
        return {
            core: [k.id for i, k in enumerate(kernels) if self._ran(CORES[core], i)]
            for core, kernels in self._listing.items()
        }

    def describe(self) -> str:
        """The kernels chosen, e.g. ``md5: x86-64 scalar, sha256: x86-64 SHA-NI, ...``."""
        return ", ".join(f"{core}: {name}" for core, name in self.kernel().items())

    def _index(self, core: str, kernel_id: Optional[str]) -> int:
        """The index of ``kernel_id`` among ``core``'s kernels (-1 for None: the chosen one)."""
        if kernel_id is None:
            return -1
        kernels = self._listing[core]
        ids = [kernel.id for kernel in kernels]
        if kernel_id not in ids:
            raise ValueError(f"no {core} kernel {kernel_id!r} here; there are {ids}")
        index = ids.index(kernel_id)
        if not kernels[index].usable:
            raise ValueError(f"this CPU cannot run the {core} kernel {kernel_id!r}")
        return index

    def block_function(self, core: str, kernel_id: Optional[str] = None) -> Compress:
        """The block function of ``core`` ("md5", "sha256", "sha1", "sha512") running one kernel.

        ``kernel_id`` picks a kernel by its id in ``kernels()`` (the chosen
        one if None); a kernel this CPU cannot run is a ValueError. The
        signature is the pure-Python variants': ``compress(state, data) ->
        state`` over whole 64-byte blocks (128-byte blocks of 64-bit words for "sha512").
        """
        number = CORES[core]
        index = self._index(core, kernel_id)
        run = self._run
        words = STATE_WORDS[core]

        def compress(state: State, data: memoryview) -> State:
            if len(state) != words:
                raise ValueError(f"a {core} state is {words} words, not {len(state)}")
            return run(number, index, state, data)

        compress.__qualname__ = compress.__name__ = f"{core}_compress"
        return compress

    def block_functions(self) -> Dict[str, Compress]:
        """The chosen kernels as block functions, by core: for the block-only benchmark."""
        return {core: self.block_function(core) for core in STATE_WORDS}

    def digest_many_with(
        self,
        kernel_id: Optional[str],
        algorithm: str,
        messages: Iterable[object],
        hexdigest: bool = False,
        threads: int = 1,
    ) -> List[Any]:
        """``digest_many`` of ``algorithm`` on the many-kernel ``kernel_id`` (None: the chosen)."""
        index = self._index(MANY_CORE[algorithm], kernel_id)
        return self._run_many(ALGORITHMS[algorithm], messages, hexdigest, threads, index)

    def digest_many(
        self, algorithm: str, messages: Iterable[object], hexdigest: bool, threads: int
    ) -> List[Any]:
        """The provider's batch (``registry.Loaded.digest_many`` checks the arguments)."""
        return self._run_many(ALGORITHMS[algorithm], messages, hexdigest, threads, -1)
