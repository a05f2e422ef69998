"""The check of an installed wheel: ``nox -s wheels`` runs it in a fresh environment of each
wheel (tools/wheels.py), cibuildwheel as its test command (pyproject.toml).

    python tools/check_wheel.py TESTS [--no-compiler]

Standard library only (it runs in the wheel's environment, beside pytest and hypothesis): the
drop-in must be the native variant (``variants.fallback_reason`` None: the wheel's extension
loads), ``variants.native.describe()`` is printed (the kernels chosen on this CPU), then the
suite's quick part runs from the folder TESTS (the checkout's tests/, whose conftest it needs):
``QUICK_TESTS``, their native and drop-in cases, with every variant the build should have
required. ``--no-compiler``: first fail if a C compiler is on PATH (nox -s wheels runs it with
``PATH`` holding only the environment's ``bin``; CI runners have compilers).

``--kernels``: then every kernel this CPU runs, forced by ``VARIANTS_NATIVE_KERNELS`` in a
process of its own (a round forces each core's next kernel), hashes messages of every
algorithm of its core, one at a time and through ``digest_many``, against hashlib, and must
be among the kernels that process ran; a line ``kernels run: ...`` says which ran.
``--expect core=id,...``: the kernels dispatch chooses (with nothing forced) must be those
(tools/wheels.py states what qemu's CPU models must get). ``--no-tests``: no pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from typing import Dict, List, Optional, Sequence

#: The quick part: these test files, their cases of the native variant and the drop-in (-k).
QUICK_TESTS = ("test_vectors.py", "test_dropin.py", "test_native.py", "test_many.py")
QUICK_SELECTION = "native or dropin"
COMPILERS = ("cc", "gcc", "clang", "x86_64-linux-gnu-gcc", "cl")


def compilers() -> List[str]:
    """The C compilers on PATH."""
    return [name for name in COMPILERS if shutil.which(name)]


#: Run with some kernels forced: hashes every algorithm's messages with the bridge, one at a
#: time and through digest_many, against hashlib; prints what ran, as JSON.
FORCED = """
import hashlib, json
from variants import native
from variants.native._kernels import MANY_CORE
bridge = native.bridge()
data = bytes(range(256)) * 8
messages = [data[:k] for k in range(0, 1200, 13)] + [data[:1000]] * 33
for algorithm, make in bridge.constructors().items():
    expected = [hashlib.new(algorithm, m).digest() for m in messages]
    assert [make(m).digest() for m in messages] == expected, algorithm
    assert bridge.digest_many(algorithm, messages, False, 1) == expected, algorithm
print(json.dumps({"chosen": bridge.kernel(), "ran": bridge.ran()}))
"""


def rounds(kernels: Dict[str, List[str]]) -> List[Dict[str, str]]:
    """The forcings that run every kernel of ``kernels`` (each core's usable ids, in order):
    round i forces each core's i-th kernel, the cores with fewer left to dispatch."""
    deepest = max((len(ids) for ids in kernels.values()), default=0)
    return [{c: ids[i] for c, ids in kernels.items() if i < len(ids)} for i in range(deepest)]


def chosen_ids() -> Dict[str, str]:
    """The id of the kernel dispatch chose for each core."""
    from variants import native

    listing, names = native.kernels(), native.kernel()
    return {core: next(k.id for k in listing[core] if k.name == names[core]) for core in names}


def parse_kernels(text: str) -> Dict[str, str]:
    """``core=id,...`` as a dict."""
    pairs = (item.split("=", 1) for item in text.split(",") if item.strip())
    return {core.strip(): kernel.strip() for core, kernel in pairs}


def run_every_kernel(cwd: str) -> Dict[str, List[str]]:
    """Each usable kernel forced (``rounds``) in a process of its own that checks its digests,
    run in ``cwd`` (not the checkout, whose unbuilt variants/ ``-c`` would import); the ids
    that ran, per core. RuntimeError if a forced kernel did not run or a digest differs."""
    from variants import native

    usable = {core: [k.id for k in ks if k.usable] for core, ks in native.kernels().items()}
    ran: Dict[str, List[str]] = {core: [] for core in usable}
    for forced in rounds(usable):
        setting = ",".join(f"{core}={kernel}" for core, kernel in forced.items())
        env = {**os.environ, "VARIANTS_NATIVE_KERNELS": setting}
        done = subprocess.run(
            [sys.executable, "-c", FORCED], env=env, capture_output=True, text=True, cwd=cwd
        )
        if done.returncode:
            raise RuntimeError(f"with {setting}: {done.stderr.strip()[-600:]}")
        said = json.loads(done.stdout.splitlines()[-1])
        for core, kernel in forced.items():
            if kernel not in said["ran"][core]:
                raise RuntimeError(f"with {setting}: {core}'s {kernel} did not run: {said}")
            ran[core].append(kernel)
    return ran


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("tests", help="the checkout's tests/ folder")
    parser.add_argument("--no-compiler", action="store_true", help="fail if PATH has one")
    parser.add_argument("--kernels", action="store_true", help="force and check every kernel")
    parser.add_argument("--expect", metavar="CORE=ID,...", help="the kernels dispatch must choose")
    parser.add_argument("--no-tests", action="store_true", help="no pytest")
    args = parser.parse_args(argv)
    if args.no_compiler and compilers():
        print(f"check_wheel: a C compiler is on PATH: {', '.join(compilers())}", file=sys.stderr)
        return 1
    import variants
    import variants.native

    if variants.fallback_reason is not None:
        print(
            f"check_wheel: the drop-in is not native: {variants.fallback_reason}", file=sys.stderr
        )
        return 1
    print(variants.native.describe(), flush=True)
    if args.expect:
        expected, chosen = parse_kernels(args.expect), chosen_ids()
        wrong = {core: chosen[core] for core, kernel in expected.items() if chosen[core] != kernel}
        if wrong:
            print(f"check_wheel: dispatch chose {wrong}, not {expected}", file=sys.stderr)
            return 1
    if args.kernels:
        try:
            ran = run_every_kernel(args.tests)
        except RuntimeError as error:
            print(f"check_wheel: {error}", file=sys.stderr)
            return 1
        listed = "; ".join(f"{core}: {' '.join(ids)}" for core, ids in ran.items())
        print(f"kernels run: {listed}", flush=True)
    if args.no_tests:
        return 0
    env = {**os.environ, "VARIANTS_REQUIRE_ALL": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    pytest += ["-k", QUICK_SELECTION, *QUICK_TESTS]
    return subprocess.run(pytest, cwd=args.tests, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
