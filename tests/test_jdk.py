"""The study's Java side (bench/jdk/): its two coding styles and the JDK's MessageDigest give
hashlib's digests, and its worker answers the study's protocol, in every JDK mode here.

The sources are compiled by each JDK's ``javac --release 17`` into a temporary folder; each
mode is the study's own (``bench.catalog.modes``), started as the study starts it. Without the
host's JDK the tests skip, unless every variant is required (VARIANTS_REQUIRE_ALL=1, as CI
sets): then they fail, Zero's included; a tree's JDK (25, in the sid tree) where it is made.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence, Tuple

import bench_package
import pytest

from variants import registry

from conftest import jdk_pattern

bench_package.load()

from bench.catalog import cases, modes  # noqa: E402
from bench.catalog.columns import Column  # noqa: E402
from bench.conduct import launch  # noqa: E402
from bench.core import timing  # noqa: E402

SOURCES = bench_package.ROOT / "bench" / "jdk"
VARIANTS = ("helpers", "streamlined", "MessageDigest")
ALGORITHMS = ("md5", "sha224", "sha256", "sha1", "sha384", "sha512", "sha512_224", "sha512_256")
#: The algorithms of the SHA-512 core other than SHA-512, which differ from it only in the initial
#: value and the digest's length: the lengths at SHA-512's block edges only (the interpreting
#: modes' time), SHA-512 every one.
SHA512_DERIVED = ("sha384", "sha512_224", "sha512_256")
EDGES = (0, 1, 55, 56, 63, 64, 65, 111, 112, 113, 127, 128, 129, 200, 1024, 16384)
#: Every JDK of the study's table; the host's is required where every variant is, a tree's is
#: tested where its tree has it.
JDKS = [row.label for row in modes.INTERPRETERS if row.implementation == "openjdk"]
Request = Dict[str, Any]
Answer = Dict[str, Any]
Command = Tuple[List[str], Dict[str, str], bool]  # argv, environment, slow (no JIT)


def missing(what: str, required: bool = True) -> None:
    """Skip, or fail where every variant is required."""
    if required and registry.require_all():
        pytest.fail(f"{what} (required: VARIANTS_REQUIRE_ALL is set)")
    pytest.skip(what)


@pytest.fixture(scope="module", params=JDKS)
def jdk(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Column:
    """A JDK of the table with the worker compiled by its javac (a column without a mode)."""
    label = request.param
    argv, why = modes.find(label)
    if argv is None:
        missing(why, required=modes.interpreter(label).where in modes.HOST_PLACES)
    assert argv is not None
    folder = tmp_path_factory.mktemp(label)
    sources = sorted(str(p) for p in SOURCES.glob("*.java"))
    assert sources, f"no Java sources in {SOURCES}"
    javac = str(Path(argv[-1]).with_name("javac"))
    command = [*argv[:-1], javac, "--release", "17", "-Xlint:all", "-Werror", "-d", str(folder)]
    # a tree's javac sees the checkout (wherever it was cloned: CI's is outside /work and /tmp)
    # and the folder only where the entry script is told to bind them
    env = {**os.environ, **modes.binds(label, str(folder))}
    done = subprocess.run(
        [*command, *sources], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return Column(modes.mode(label), argv[-1], classpath=str(folder))


@pytest.fixture(params=range(5))
def mode(request: pytest.FixtureRequest, jdk: Column, tmp_path: Path) -> Command:
    """One of the JDK's modes, as the study starts its worker (``bench.conduct.launch``)."""
    column = replace(jdk, mode=modes.modes_of(jdk.mode.interpreter)[request.param])
    argv, env, _ = launch.command(column, tmp_path)
    if "-zero" in column.mode.args:
        at = argv.index("-zero") + 1
        probe = subprocess.run([*argv[:at], "-version"], env=env, capture_output=True, check=False)
        if probe.returncode != 0:
            missing(f"no Zero VM for {jdk.mode.interpreter} (Debian: its -jre-zero package)")
    return argv, env, not column.mode.jit


def converse(command: Command, requests: Sequence[Request]) -> List[Answer]:
    """The worker's answers to ``requests`` then a quit: one line each, and exit 0."""
    lines = "".join(json.dumps(r) + "\n" for r in [*requests, {"op": "quit"}])
    argv, env, _ = command
    done = subprocess.run(
        argv, input=lines, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests), done.stdout[-2000:]
    return answers


def chunkings(length: int) -> Iterator[List[int]]:
    """How a message is fed: whole, after an empty update, split unevenly, across the first
    block boundary (64 bytes; SHA-512's 128) with bytes buffered, and byte by byte (short
    messages)."""
    yield []
    yield [0, length // 3]
    if length > 65:
        yield [63, 2]
    if length in (129, 200, 1024):  # across SHA-512's first block boundary
        yield [127, 2]
    if length in (55, 56, 63, 64, 65, 111, 112, 119, 120, 127, 128, 129):
        yield [1] * length
    if length >= 1024:
        yield [1, 63, 64, 100, 700]
    if length >= 16384:
        yield [8191, 1, 8000]


def messages(slow: bool) -> List[int]:
    """The study's message lengths: every one up to 200 bytes (64 B among them), 1 KiB and
    16 KiB (not in the interpreting modes, where it takes seconds)."""
    return [*range(201), 1024, *([] if slow else [16384])]


def test_every_variant_gives_hashlibs_digests(mode: Command) -> None:
    slow = mode[2]
    requests, expected = [], []
    for length in messages(slow):
        message = jdk_pattern(length)
        for chunks in chunkings(length):
            for algorithm in ALGORITHMS:
                if algorithm in SHA512_DERIVED and length not in EDGES:
                    continue
                want = hashlib.new(algorithm, message).hexdigest()
                for variant in VARIANTS:
                    request = {"op": "hash", "variant": variant, "algorithm": algorithm}
                    requests.append({**request, "message": message.hex(), "chunks": chunks})
                    expected.append((variant, algorithm, length, chunks, want))
    answers = converse(mode, requests)
    wrong = [
        (variant, algorithm, length, chunks, answer)
        for (variant, algorithm, length, chunks, want), answer in zip(expected, answers)
        if answer != {"digest": want}
    ]
    assert wrong == []


def test_the_worker_answers_the_protocol(mode: Command) -> None:
    command, slow = mode[0], mode[2]
    grid = {"lengths": [64, 1024], "get_max": 64, "block_max": 64, "batches": []}
    cases = ["digest/md5/helpers/64", "getAndDigest/sha256/MessageDigest/64"]
    prepare = {
        "op": "prepare",
        "cases": [{"name": cases[0], "loops": 0}, {"name": cases[1], "loops": 8}],
        "min_time": 0.0005 if slow else 0.001,
        "jit": not slow,
        "jit_warm": [0.01, 0.1] if slow else [0.05, 0.5],
        "clock": "cpu",
    }
    unknown = "digest/md5/nothing/64"
    answers = converse(
        mode,
        [
            {
                "op": "list",
                "variants": [],
                "algorithms": ["md5", "sha256"],
                "benchmarks": ["digest", "getAndDigest", "block", "batch"],
                "grid": grid,
            },
            {
                "op": "list",
                "variants": ["h*", "Message?igest"],
                "algorithms": ["sha256"],
                "benchmarks": ["digest"],
                "grid": grid,
            },
            prepare,
            {"op": "value", "case": cases[0]},
            {"op": "value", "case": cases[1]},
            {"op": "prepare", "cases": [{"name": unknown, "loops": 0}], "min_time": 0.001},
            {"op": "value", "case": unknown},
            {"op": "prepare", "cases": [{"name": "block/md5/helpers/64"}], "min_time": 0.001},
            {"op": "no such op"},
            {"op": "value", "case": cases[0]},
        ],
    )
    listing, chosen, prepared, *values = answers
    runtime = listing["runtime"]
    assert runtime["implementation"] == "OpenJDK"
    assert runtime["jit"] is (not slow)
    for key in ("version", "java.vm.name", "java.vm.info", "input_arguments", "jit_name"):
        assert key in runtime
    assert "DisplayVMOutputToStderr" in " ".join(runtime["input_arguments"])
    if "-XX:-UseMD5Intrinsics" in command:
        assert (runtime["UseMD5Intrinsics"], runtime["UseSHA256Intrinsics"]) == (False, False)
    kinds = {name: info["kind"] for name, info in listing["variants"].items()}
    assert kinds == {"helpers": "interpreted", "streamlined": "interpreted",
                     "MessageDigest": "reference"}  # fmt: skip
    # The protocol's order: benchmark, length, algorithm, variant; getAndDigest to get_max.
    assert listing["cases"] == [
        f"{benchmark}/{algorithm}/{variant}/{length}"
        for benchmark, lengths in (("digest", (64, 1024)), ("getAndDigest", (64,)))
        for length in lengths
        for algorithm in ("md5", "sha256")
        for variant in VARIANTS
    ]
    assert list(chosen["variants"]) == ["helpers", "MessageDigest"]
    assert chosen["cases"] == [
        f"digest/sha256/{v}/{n}" for n in (64, 1024) for v in ("helpers", "MessageDigest")
    ]
    assert list(prepared["cases"]) == cases
    for name, info in prepared["cases"].items():
        assert set(info) == {"loops", "seconds", "prepare_seconds", "warmups", "warmed"}
        assert info["loops"] >= 1 and info["seconds"] > 0 and info["prepare_seconds"] > 0
        assert isinstance(info["warmed"], bool)
        assert all(n >= 1 and value > 0 for n, value in info["warmups"])
        if name == cases[1] and slow:
            assert info["loops"] == 8 and len(info["warmups"]) == 1
    first, second, failed_prepare, failed_value, failed_block, failed_op, after = values
    for answer in (first, second, after):
        assert set(answer) == {"value", "wall"} and answer["value"] > 0 and answer["wall"] > 0
    assert failed_prepare == {"error": "IllegalArgumentException: unknown variant nothing"}
    assert failed_value == {"error": f"IllegalArgumentException: case not prepared: {unknown}"}
    assert failed_block == {"error": "IllegalArgumentException: unknown case block/md5/helpers/64"}
    assert failed_op == {"error": "IllegalArgumentException: unknown op no such op"}


def java_constant(source: str, name: str) -> str:
    """The initializer of ``static final ... name = ...;`` in a Java source of bench/jdk/."""
    text = (SOURCES / source).read_text()
    found = re.findall(rf"static final [\w<>\[\]]+ {name} = (.+?);", text)
    assert len(found) == 1, f"{source}: {name} defined {len(found)} times"
    return str(found[0])


def java_number(source: str, name: str) -> float:
    """A numeric constant: a literal, or a shift of literals (``1L << 32``)."""
    literals = [int(x) if "." not in x else float(x)
                for x in re.findall(r"\d+\.\d+|\d+", java_constant(source, name))]  # fmt: skip
    if "<<" in java_constant(source, name):
        return int(literals[0]) << int(literals[1])
    (value,) = literals
    return value


def test_the_java_workers_settings_are_the_python_ones() -> None:
    """One definition of each setting: the JDK's worker repeats what the Python side defines
    (it cannot import it), and this says where they differ."""
    assert java_number("Timed.java", "MAX_LOOPS") == timing.MAX_LOOPS
    assert java_number("Timed.java", "WINDOW") == timing.WINDOW
    assert java_number("Timed.java", "DRIFT") == timing.DRIFT
    least, most = timing.JIT_WARM
    assert (
        java_number("Timed.java", "JIT_WARM_LEAST"),
        java_number("Timed.java", "JIT_WARM_MOST"),
    ) == (least, most)
    lengths = re.findall(r"\d+", java_constant("Worker.java", "LENGTHS"))
    assert tuple(int(n) for n in lengths) == cases.LENGTHS == cases.Grid().lengths
    assert java_number("Worker.java", "GET_MAX") == cases.Grid().get_max
    assert tuple(re.findall(r'"(\w+)"', java_constant("Case.java", "BENCHMARKS"))) == cases.JMH
