"""variants-sum against the real md5sum, sha224sum and sha256sum, byte for byte.

Every comparison runs both programs on the same files, from the same
directory, in the same locale, and compares exit status, stdout and stderr;
only the program name in messages differs (``md5sum:`` becomes
``variants-sum:``). The files are small: the default variant may be pure
Python here.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import pty
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from variants import cli, registry
from variants.cli import hashing, reading
from variants.cli.progress import Progress
from variants.cli.quoting import locale_is_utf8

PROGRAMS = {"md5": "md5sum", "sha224": "sha224sum", "sha256": "sha256sum"}
ALGORITHMS = list(PROGRAMS)
Arg = Union[str, bytes]


def _coreutils_version() -> Optional[Tuple[int, ...]]:
    if shutil.which("md5sum") is None:
        return None
    first = subprocess.run(["md5sum", "--version"], capture_output=True, text=True).stdout
    match = re.search(r"GNU coreutils\)? (\d+)\.(\d+)", first)
    return (int(match.group(1)), int(match.group(2))) if match else None


# The behaviour copied is coreutils 9.1's (Debian 12); later releases changed
# a few messages.
pytestmark = pytest.mark.skipif(
    _coreutils_version() != (9, 1), reason="needs GNU coreutils 9.1 to compare with"
)

FILES: Dict[bytes, bytes] = {
    b"plain.txt": b"hello\n",
    b"empty": b"",
    b"binary.bin": bytes(range(256)) * 4 + hashlib.sha256(b"seed").digest() * 40,
    b"sp ace": b"x",
    b"back\\slash": b"y",
    b"new\nline": b"z",
    b"cr\rx": b"w",
    b"both\\and\nnl\r": b"v",
    b"-dash": b"d",
    "ünïcödé".encode(): b"u",
    b"it's": b"q",
    b"co:lon": b"c",
    b"tab\tx": b"t",
    b"\xff\xfenot-utf8": b"n",
    b" lead and trail ": b"s",
    b"*star": b"*",
    b"paren) = x": b"p",
}
DIRECTORY = b"directory"
MISSING = [b"missing", b"miss ing", b"miss\ning", b"miss'ing\x01"]
#: Opens, then fails to read (EIO) for coreutils and for us alike.
UNREADABLE = b"/proc/self/mem"
ALL_NAMES = [*FILES, DIRECTORY, *MISSING, UNREADABLE]


class Result(NamedTuple):
    status: int
    stdout: bytes
    stderr: bytes


#: The locale of this process, which in-process runs of the tool use.
HERE = "C.UTF-8" if locale_is_utf8() else "C"


def run(args: Sequence[Arg], cwd: Path, stdin: bytes = b"", locale: str = HERE) -> Result:
    env = dict(os.environ, LC_ALL=locale)
    env.pop("POSIXLY_CORRECT", None)
    done = subprocess.run(list(args), cwd=cwd, input=stdin, capture_output=True, env=env)
    return Result(done.returncode, done.stdout, done.stderr)


def invoke(args: Sequence[str], cwd: Path) -> Result:
    """Run the tool in this process: the same code as the command, minus the start-up.

    Only for runs that do not read standard input.
    """
    saved = sys.stdout, sys.stderr, os.getcwd()
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdout = out_text = io.TextIOWrapper(out, write_through=True)
    sys.stderr = err_text = io.TextIOWrapper(err, write_through=True)
    try:
        os.chdir(cwd)
        status = cli.main(list(args))
    finally:
        sys.stdout, sys.stderr, cwd_back = saved
        os.chdir(cwd_back)
        out_text.detach()
        err_text.detach()
    return Result(status, out.getvalue(), err.getvalue())


def ours(
    algorithm: Optional[str],
    args: Sequence[Arg],
    cwd: Path,
    stdin: Optional[bytes] = None,
    locale: Optional[str] = None,
) -> Result:
    """The tool's result: in a new process if it gets input or a locale, else in this one."""
    chosen: List[Arg] = ["-a", algorithm] if algorithm else []
    if stdin is None and locale is None:
        return invoke([os.fsdecode(arg) for arg in [*chosen, *args]], cwd)
    command = [sys.executable, "-m", "variants", *chosen, *args]
    return run(command, cwd, stdin or b"", locale or HERE)


def theirs(
    algorithm: str,
    args: Sequence[Arg],
    cwd: Path,
    stdin: Optional[bytes] = None,
    locale: Optional[str] = None,
) -> Result:
    """coreutils' result, with its program name in messages replaced by ours."""
    program = PROGRAMS[algorithm]
    result = run([program, *args], cwd, stdin or b"", locale or HERE)
    return result._replace(stderr=result.stderr.replace(program.encode(), b"variants-sum"))


def assert_same(
    algorithm: str,
    args: Sequence[Arg],
    cwd: Path,
    stdin: Optional[bytes] = None,
    locale: Optional[str] = None,
) -> Result:
    expected = theirs(algorithm, args, cwd, stdin, locale)
    got = ours(algorithm, args, cwd, stdin, locale)
    assert got.stdout == expected.stdout
    assert got.stderr == expected.stderr
    assert got.status == expected.status
    return got


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of oddly named files, and checksum lists of them made by coreutils."""
    root = tmp_path_factory.mktemp("corpus")
    for name, data in FILES.items():
        (root / os.fsdecode(name)).write_bytes(data)
    (root / os.fsdecode(DIRECTORY)).mkdir()
    for algorithm, program in PROGRAMS.items():
        names = list(FILES)
        gnu = subprocess.run([program, "--", *names], cwd=root, capture_output=True, check=True)
        tagged = subprocess.run(
            [program, "--tag", "--", *names], cwd=root, capture_output=True, check=True
        )
        (root / f"{algorithm}-good.sums").write_bytes(gnu.stdout)
        other = "md5" if algorithm != "md5" else "sha256"
        foreign = subprocess.run(
            [PROGRAMS[other], "--tag", "plain.txt"], cwd=root, capture_output=True, check=True
        )
        (root / f"{algorithm}-tagged.sums").write_bytes(tagged.stdout + foreign.stdout)
        (root / f"{algorithm}-mixed.sums").write_bytes(_mixed_list(algorithm))
        hexlen = len(hashlib.new(algorithm).hexdigest())
        (root / f"{algorithm}-allmissing.sums").write_bytes(
            b"".join(b"0" * hexlen + b"  " + name + b"\n" for name in (b"missing", b"gone"))
        )
        (root / f"{algorithm}-reversed.sums").write_bytes(
            b"".join(
                hashlib.new(algorithm, FILES[name]).hexdigest().encode() + b" " + name + b"\n"
                for name in (b"plain.txt", b"empty", b"sp ace")
            )
        )
    (root / "garbage.sums").write_bytes(b"not a checksum\n\n# nor this\n")
    return root


def _mixed_list(algorithm: str) -> bytes:
    """A list with a bit of everything coreutils distinguishes."""

    def digest(name: bytes) -> bytes:
        return hashlib.new(algorithm, FILES[name]).hexdigest().encode()

    tag = algorithm.upper().encode()
    wrong = digest(b"empty")
    lines = [
        digest(b"plain.txt") + b"  plain.txt",
        wrong + b"  binary.bin",  # mismatch
        digest(b"empty").upper() + b" *empty",  # upper case, binary mark
        wrong + b"  missing",
        wrong + b"  directory",
        wrong + b"  " + UNREADABLE,
        b"garbage line",
        b"# a comment",
        b"",
        digest(b"sp ace") + b"  sp ace\r",  # CRLF
        b"\\" + digest(b"new\nline") + b"  new\\nline",
        b"\\" + digest(b"back\\slash") + b"  back\\\\slash",
        b"\\" + digest(b"both\\and\nnl\r") + b"  both\\\\and\\nnl\\r",
        b"\\" + digest(b"plain.txt") + b"  bad\\escape",  # invalid escape
        tag + b" (it's) = " + digest(b"it's"),
        tag + b"(co:lon)= " + digest(b"co:lon"),  # OpenSSL's spacing
        tag + b" (paren) = x) = " + digest(b"paren) = x"),  # the last ')' ends the name
        tag + b"  (tab\tx) = " + digest(b"tab\tx"),  # two spaces: not accepted
        b"\\" + tag + b" (new\\nline) = " + digest(b"new\nline"),
        digest(b"plain.txt")[:-1] + b"  plain.txt",  # short digest
        digest(b"plain.txt") + b"  ",  # no name
        b" \t" + digest(b"*star") + b"  *star",  # leading blanks
        digest(b"-dash") + b"\t-dash",  # a tab: "BSD reversed", refused after GNU lines
        digest(b" lead and trail ") + b"   lead and trail ",
        digest(b"\xff\xfenot-utf8") + b"  \xff\xfenot-utf8",
        digest("ünïcödé".encode()) + " *ünïcödé".encode(),
        digest(b"plain.txt") + b"  plain.txt\0ignored",  # C strings end at NUL
    ]
    return b"\n".join(lines)  # no newline after the last line


HASH_OPTIONS = [[], ["-b"], ["-t"], ["--tag"], ["-z"], ["--tag", "-z"], ["-b", "-z"], ["--binary"]]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("options", HASH_OPTIONS, ids=" ".join)
def test_hashing_matches_coreutils(corpus: Path, algorithm: str, options: List[str]) -> None:
    """Normal, empty, binary and odd-named files, a directory, missing and unreadable files."""
    result = assert_same(algorithm, [*options, "--", *ALL_NAMES], corpus)
    assert result.status == 1  # the missing ones


@pytest.mark.parametrize(
    "args",
    [[], ["-"], ["-", "plain.txt", "-"], ["--tag", "-"], ["-z", "-b"]],
    ids=lambda args: " ".join(args) or "no-args",
)
def test_standard_input(corpus: Path, args: List[str]) -> None:
    assert_same("md5", args, corpus, stdin=b"from stdin\n")


@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
def test_names_in_messages_quoted_for_the_locale(corpus: Path, locale: str) -> None:
    odd = [
        "mïssing".encode(),
        b"\xe2\x80",
        b"\x7f",
        b"#hash",
        b"{",
        b"a?",
        b"",
        b"'\n",
        b"\nit's\n",
        b"it's",
        b"x:y",
        "‘quoted’".encode(),
    ]
    assert_same("sha256", ["--", *odd], corpus, locale=locale)


CHECK_OPTIONS = [
    [],
    ["--quiet"],
    ["--status"],
    ["--warn"],
    ["--strict"],
    ["--ignore-missing"],
    ["-w", "--strict"],
    ["--status", "--warn"],  # the last of --status, --warn, --quiet wins
    ["--warn", "--quiet"],
]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("options", CHECK_OPTIONS, ids=lambda o: " ".join(o) or "plain")
def test_check_matches_coreutils(corpus: Path, algorithm: str, options: List[str]) -> None:
    lists = [f"{algorithm}-{kind}.sums" for kind in ("good", "tagged", "mixed", "allmissing")] + [
        "garbage.sums",
        "no-such.sums",
        "directory",
        "empty",
    ]
    assert_same(algorithm, ["-c", *options, *lists], corpus)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_check_bsd_reversed_lines(corpus: Path, algorithm: str) -> None:
    reversed_list = f"{algorithm}-reversed.sums"
    assert assert_same(algorithm, ["-c", reversed_list], corpus).status == 0
    # Once GNU lines were seen, reversed ones are refused, across lists too.
    assert_same(algorithm, ["-c", "-w", f"{algorithm}-good.sums", reversed_list], corpus)
    assert_same(algorithm, ["-c", "-w", reversed_list, f"{algorithm}-good.sums"], corpus)


@pytest.mark.parametrize("args", [["-c"], ["-c", "-"], ["-c", "-", "md5-good.sums"]])
def test_check_list_from_standard_input(corpus: Path, args: List[str]) -> None:
    listing = (corpus / "md5-mixed.sums").read_bytes()
    # A "-" entry in a list read from stdin is refused.
    listing += b"\n" + hashlib.md5(b"").hexdigest().encode() + b"  -\n"
    assert_same("md5", [*args, "-w"], corpus, stdin=listing)


def test_check_entry_reading_standard_input(corpus: Path) -> None:
    listing = corpus / "stdin-entry.sums"
    listing.write_bytes(hashlib.md5(b"piped\n").hexdigest().encode() + b"  -\n")
    assert_same("md5", ["-c", listing.name], corpus, stdin=b"piped\n")
    assert_same("md5", ["-c", listing.name], corpus, stdin=b"something else\n")


@pytest.mark.parametrize(
    "args",
    [
        ["-x"],
        ["--foo=bar"],
        ["--st"],
        ["--check=1"],
        ["-c", "--tag"],
        ["-c", "-b"],
        ["-c", "-t"],
        ["-c", "-z"],
        ["--tag", "-t", "plain.txt"],
        ["-t", "--tag", "plain.txt"],
        ["--quiet"],
        ["--qu"],
        ["--status"],
        ["--strict"],
        ["-w"],
        ["--ignore-missing"],
        ["--bin", "--ze", "plain.txt"],
        ["-bz", "plain.txt"],
        ["plain.txt", "-b"],  # options after operands
        ["--", "-b"],
        ["-", "--tag"],
    ],
    ids=" ".join,
)
def test_command_line_handling_matches_coreutils(corpus: Path, args: List[str]) -> None:
    assert_same("md5", args, corpus, stdin=b"stdin\n" if "-" in args else None)


def test_write_error(corpus: Path) -> None:
    expected = theirs("md5", ["plain.txt", "missing"], corpus)
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "variants", "-a", "md5", "plain.txt", "missing"],
            cwd=corpus,
            stdout=full,
            stderr=subprocess.PIPE,
            env=dict(os.environ, LC_ALL="C.UTF-8"),
        )
        reference = subprocess.run(
            ["md5sum", "plain.txt", "missing"], cwd=corpus, stdout=full, stderr=subprocess.PIPE
        )
    assert done.returncode == reference.returncode == 1
    assert done.stderr == reference.stderr.replace(b"md5sum", b"variants-sum")
    assert expected.status == 1


def test_permission_denied(corpus: Path) -> None:
    """An unopenable file. Root reads anything, so drop its override capabilities."""
    secret = corpus / "secret"
    secret.write_bytes(b"secret")
    secret.chmod(0)
    prefix: List[Arg] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: no way to be refused a file")
        caps = "-dac_override,-dac_read_search"
        prefix = [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]
    try:
        expected = run([*prefix, "md5sum", "secret", "plain.txt"], corpus)
        if b"Permission denied" not in expected.stderr:
            pytest.skip("cannot make a file unreadable here (capabilities cannot be dropped)")
        got = run(
            [*prefix, sys.executable, "-m", "variants", "-a", "md5", "secret", "plain.txt"], corpus
        )
    finally:
        secret.unlink()
    assert got == expected._replace(stderr=expected.stderr.replace(b"md5sum", b"variants-sum"))


def test_parallel_output_keeps_argument_order(corpus: Path) -> None:
    names: List[Arg] = [*ALL_NAMES, "-", *FILES, "-"]
    expected = theirs("sha256", ["--", *names], corpus, stdin=b"in\n")
    for jobs in ("2", "3", "8"):
        got = ours("sha256", ["-j", jobs, "--", *names], corpus, stdin=b"in\n")
        assert got == expected
    got = ours("md5", ["--jobs=3", "-c", "-w", "md5-mixed.sums", "md5-good.sums"], corpus)
    assert got == theirs("md5", ["-c", "-w", "md5-mixed.sums", "md5-good.sums"], corpus)


def test_read_error_after_some_data(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that fails part way: its message, no line for it, the others hashed."""
    real = reading.reader
    monkeypatch.setattr(reading, "CHUNK", 64)

    def failing(fd: int) -> Callable[[memoryview], int]:
        read = real(fd)
        calls = []

        def flaky(view: memoryview) -> int:
            calls.append(1)
            if len(calls) == 3:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return read(view)

        return flaky

    monkeypatch.setattr(reading, "reader", failing)
    got = ours("md5", ["binary.bin", "plain.txt"], corpus)
    assert got.status == 1
    assert got.stdout == theirs("md5", ["plain.txt"], corpus).stdout
    assert got.stderr == b"variants-sum: binary.bin: Input/output error\n"


@pytest.mark.parametrize("read_ahead", [False, True])
@pytest.mark.parametrize("length", [0, 63, 64, 65, 64 * 8, 64 * 8 + 1, 64 * 8 * 3 + 7, 10_000])
def test_chunked_reading_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_ahead: bool, length: int
) -> None:
    """Reading in turn or ahead on a thread, any file length hashes whole (64-byte chunks)."""
    monkeypatch.setattr(reading, "CHUNK", 64)
    data = bytes((i * 7 + 3) & 0xFF for i in range(length))
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    hasher = hashing.Hasher(registry.load("native").constructors, read_ahead=read_ahead)
    for algorithm in ("md5", "sha256"):
        outcome = hasher(os.fsencode(path), algorithm)
        assert outcome.digest == hashlib.new(algorithm, data).digest()


def test_read_ahead_stops_its_thread_on_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read error on the reading thread is the file's error, and the thread ends."""
    monkeypatch.setattr(reading, "CHUNK", 64)
    real = reading.reader
    reads: List[int] = []

    def failing(fd: int) -> Callable[[memoryview], int]:
        read = real(fd)

        def flaky(view: memoryview) -> int:
            reads.append(len(view))
            if len(reads) == 4:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return read(view)

        return flaky

    monkeypatch.setattr(reading, "reader", failing)
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(64 * 8 * 10))
    hasher = hashing.Hasher(registry.load("helpers").constructors, read_ahead=True)
    outcome = hasher(os.fsencode(path), "md5")
    assert outcome.digest is None and outcome.error is not None
    assert outcome.error.errno == errno.EIO
    assert reads[:2] == [64, 64 * 8]  # one chunk in turn, then the thread's larger buffers
    assert not [t for t in threading.enumerate() if t.name == "variants-sum read-ahead"]
    # Cancelled part way (as -j does on an error elsewhere): the thread ends too.
    monkeypatch.setattr(reading, "reader", real)
    hasher.cancel.set()
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(hashing.Cancelled):
            hasher.hash_descriptor(fd, "md5")
    finally:
        os.close(fd)
    assert not [t for t in threading.enumerate() if t.name == "variants-sum read-ahead"]


def test_invalid_jobs(corpus: Path) -> None:
    for value in ("x", "-1", ""):
        got = ours("md5", [f"--jobs={value}", "plain.txt"], corpus)
        assert got.status == 1
        assert b"invalid number of jobs" in got.stderr
        assert b"Try 'variants-sum --help'" in got.stderr


def test_default_algorithm_is_sha256(corpus: Path) -> None:
    got = ours(None, ["plain.txt", "--tag"], corpus)
    assert got == theirs("sha256", ["plain.txt", "--tag"], corpus)


def test_check_without_algorithm_takes_it_from_each_line(corpus: Path) -> None:
    listing = b"".join(
        (corpus / f"{algorithm}-{kind}.sums").read_bytes()
        for algorithm in ALGORITHMS
        for kind in ("good", "tagged")
    )
    (corpus / "all.sums").write_bytes(listing + b"0123  plain.txt\n")
    last = listing.count(b"\n") + 1
    got = ours(None, ["-c", "-w", "all.sums"], corpus)
    verdicts = re.findall(rb": (\w+)\n", got.stdout)
    assert verdicts == [b"OK"] * (last - 1)
    assert got.stderr == (
        f"variants-sum: all.sums: {last}: improperly formatted checksum line\n".encode()
        + b"variants-sum: WARNING: 1 line is improperly formatted\n"
    )
    assert got.status == 0
    # With -a, other algorithms' lines are improperly formatted, as for md5sum.
    assert_same("md5", ["-c", "--quiet", "all.sums"], corpus)


def test_unknown_algorithm(corpus: Path) -> None:
    got = ours("sha1", ["plain.txt"], corpus, locale="C.UTF-8")
    assert got.status == 1
    assert got.stderr.startswith(
        "variants-sum: invalid argument ‘sha1’ for ‘--algorithm’\n".encode()
    )
    assert got.stdout == b""


def test_variant_option(corpus: Path) -> None:
    expected = theirs("md5", ["plain.txt", "binary.bin"], corpus)
    assert ours("md5", ["--variant", "helpers", "plain.txt", "binary.bin"], corpus) == expected
    got = ours("md5", ["--variant=no-such", "plain.txt"], corpus)
    assert got.status == 1
    assert got.stderr.startswith(b"variants-sum: variant ")
    assert b"unknown variant 'no-such'" in got.stderr
    for entry in registry.VARIANTS:  # one that lacks an algorithm, if there is one
        missing = sorted(set(ALGORITHMS) - set(entry.algorithms))
        if missing and registry.status(entry.name) is None:
            got = ours(missing[0], [f"--variant={entry.name}", "plain.txt"], corpus)
            assert got.status == 1
            assert f"does not provide {missing[0]}".encode() in got.stderr
            break


def test_list_variants(corpus: Path) -> None:
    got = ours(None, ["--list-variants"], corpus)
    assert got.status == 0
    assert got.stderr == b""
    lines = got.stdout.decode().splitlines()
    assert lines[0].split() == ["VARIANT", "KIND", "ALGORITHMS", "HERE"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == registry.names()
    defaults = [name for name, line in rows.items() if "(default)" in line]
    assert len(defaults) == 1
    for entry in registry.VARIANTS:
        line = rows[entry.name]
        assert entry.kind in line
        assert " ".join(entry.algorithms) in line
        problem = registry.status(entry.name)
        if problem is None:
            assert "importable" in line and "not importable" not in line
            details = registry.load(entry.name).details
            if details:
                assert details in line
        else:
            assert "not importable: " in line


def test_help_and_version(corpus: Path) -> None:
    helped = ours(None, ["--help", "--no-such-option"], corpus)  # acts where it stands
    assert helped.status == 0
    assert helped.stdout.startswith(b"Usage: variants-sum [OPTION]... [FILE]...\n")
    for option in (b"--check", b"--tag", b"--zero", b"--jobs", b"--variant", b"--list-variants"):
        assert option in helped.stdout
    version = ours(None, ["--version"], corpus)
    assert version.status == 0
    assert version.stdout.startswith(b"variants-sum (variants) ")


def test_console_script(corpus: Path) -> None:
    script = Path(sys.executable).parent / "variants-sum"
    if not script.exists():
        pytest.skip("the package is not installed here (no variants-sum script)")
    got = run([str(script), "-a", "sha224", "--", *FILES], corpus)
    assert got == theirs("sha224", ["--", *FILES], corpus)


# --- the progress report --------------------------------------------------------------


def test_no_progress_report_when_stderr_is_not_a_terminal(corpus: Path) -> None:
    big = corpus / "big.bin"
    big.write_bytes(bytes(1 << 16))
    got = ours("md5", ["big.bin"], corpus)
    assert got.stderr == b""
    big.unlink()


def test_no_progress_report_for_small_input_on_a_terminal(corpus: Path) -> None:
    controller, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "variants", "-a", "md5", "plain.txt", "binary.bin"],
            cwd=corpus,
            stdout=subprocess.PIPE,
            stderr=terminal,
        )
        os.set_blocking(controller, False)
        try:
            shown = os.read(controller, 4096)
        except (BlockingIOError, OSError):
            shown = b""
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 0
    assert done.stdout == theirs("md5", ["plain.txt", "binary.bin"], corpus).stdout
    assert shown == b""


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_report_draws_and_wipes() -> None:
    shown: List[str] = []
    clock = _Clock()
    progress = Progress(
        shown.append, program="variants-sum", total=1000, threshold=500, clock=clock
    )
    progress.advance(100)  # too early and too small
    clock.now = 1.0
    progress.advance(100)  # still under the threshold (but the total is not)
    assert shown and shown[-1].startswith("\rvariants-sum:  20% [")
    assert "200 B of 1000 B" in shown[-1]
    clock.now = 1.05
    progress.advance(100)  # drawn at most every 0.1 s
    assert len(shown) == 1
    clock.now = 2.0
    progress.advance(700)
    assert "100%" in shown[-1]
    with progress.hidden():
        assert shown[-1] == "\r" + " " * (len(shown[-2]) - 1) + "\r"
    progress.close()
    assert len(shown) == 3


def test_progress_report_without_total() -> None:
    shown: List[str] = []
    clock = _Clock()
    progress = Progress(shown.append, program="p", threshold=10, clock=clock, delay=0)
    clock.now = 1.0
    progress.advance(5 << 20)
    assert shown == ["\rp: 5.0 MiB, 5.0 MiB/s"]


def test_progress_silent_below_threshold() -> None:
    shown: List[str] = []
    clock = _Clock()
    progress = Progress(shown.append, program="p", total=100, threshold=1000, clock=clock)
    for _ in range(10):
        clock.now += 1
        progress.advance(10)
    progress.close()
    assert shown == []


# --- the check-line parser, fuzzed against coreutils ----------------------------------


_MD5 = {name: hashlib.md5(data).hexdigest().encode() for name, data in FILES.items()}
_fragment = st.sampled_from(
    [
        *_MD5.values(),
        _MD5[b"plain.txt"].upper(),
        b"0" * 31,
        b"0" * 33,
        b"MD5",
        b"MD5 (",
        b"MD5(",
        b"SHA256 (",
        b")",
        b") = ",
        b"=",
        b" ",
        b"  ",
        b" *",
        b"*",
        b"\t",
        b"\\",
        b"\\n",
        b"\\\\",
        b"\\r",
        b"\\x",
        b"\r",
        b"\0",
        b"#",
        *[name for name in FILES if b"\n" not in name and b"\r" not in name],
        b"missing",
        b"directory",
    ]
)
_line = st.lists(_fragment, max_size=7).map(b"".join)


@settings(
    # Fewer on PyPy, whose JIT makes each of the short in-process runs slow.
    max_examples=100 if sys.implementation.name == "cpython" else 30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=st.lists(_line, min_size=1, max_size=6), terminated=st.booleans())
def test_check_lines_fuzzed(corpus: Path, lines: List[bytes], terminated: bool) -> None:
    listing = corpus / "fuzz.sums"
    listing.write_bytes(b"\n".join(lines) + (b"\n" if terminated else b""))
    expected = theirs("md5", ["-c", "-w", "fuzz.sums"], corpus)
    assert invoke(["-a", "md5", "-c", "-w", "fuzz.sums"], corpus) == expected
