"""What both native bridges say about the kernels: the listing, the choice, block functions.

Each bridge (the C-API module on CPython, the cffi module) compiles its own
copy of the kernels and of their dispatch; it hands a ``KernelTable`` the
listing, the choice and a way to run one kernel, and the table answers the
same questions for both.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from variants._shell import Compress, State

#: The cores, numbered as in native.h.
CORES: Dict[str, int] = {"md5": 0, "sha256": 1}
#: The chaining state's length of each core, in 32-bit words.
STATE_WORDS: Dict[str, int] = {"md5": 4, "sha256": 8}

#: Run kernel ``index`` of core ``number`` (-1: the chosen one) over whole
#: blocks: the new state, or a ValueError.
RunKernel = Callable[[int, int, State, memoryview], State]


class KernelTable:
    """One bridge's kernels: ``listing[core]`` is [(name, usable on this CPU)], portable first."""

    def __init__(
        self,
        listing: Sequence[Sequence[Tuple[str, bool]]],
        chosen: Callable[[int], int],
        run: RunKernel,
    ) -> None:
        self._listing = {core: list(listing[number]) for core, number in CORES.items()}
        self._chosen = {core: chosen(number) for core, number in CORES.items()}
        self._run = run

    def kernels(self) -> Dict[str, List[Tuple[str, bool]]]:
        """Each core's kernels in this build, portable first, with whether this CPU runs them."""
        return {core: list(kernels) for core, kernels in self._listing.items()}

    def kernel(self) -> Dict[str, str]:
        """The kernel chosen for each core: ``{"md5": ..., "sha256": ...}``."""
        return {core: self._listing[core][index][0] for core, index in self._chosen.items()}

    def describe(self) -> str:
        """The kernels chosen, e.g. ``md5: x86-64 scalar, sha256: x86-64 SHA-NI``."""
        return ", ".join(f"{core}: {name}" for core, name in self.kernel().items())

    def block_function(self, core: str, kernel_name: Optional[str] = None) -> Compress:
        """The block function of ``core`` ("md5" or "sha256") running one kernel.

        ``kernel_name`` picks a kernel by its name in ``kernels()`` (the chosen
        one if None); a kernel this CPU cannot run is a ValueError. The
        signature is the pure-Python variants': ``compress(state, data) ->
        state`` over whole 64-byte blocks.
        """
        number = CORES[core]
        index = -1
        if kernel_name is not None:
            names = [name for name, _ in self._listing[core]]
            if kernel_name not in names:
                raise ValueError(f"no {core} kernel {kernel_name!r} here; there are {names}")
            index = names.index(kernel_name)
            if not self._listing[core][index][1]:
                raise ValueError(f"this CPU cannot run the {core} kernel {kernel_name!r}")
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
        return {core: self.block_function(core) for core in CORES}
