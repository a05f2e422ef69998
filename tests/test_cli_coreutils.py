"""variants-sum against the installed md5sum, sha1sum, sha224sum, sha256sum, sha384sum and
sha512sum, byte for byte.

Every comparison runs both programs on the same files, from the same
directory, in the same locale, and compares exit status, stdout and stderr;
only the program name in messages differs (``md5sum:`` becomes
``variants-sum:``). variants-sum does what coreutils 9.1 does, whatever
coreutils is installed. Where a later release differs, ``theirs`` turns its
result into 9.1's, for each difference known (named below by the release that
brought it), and a test near the end shows that difference on both sides.
Without GNU coreutils the module is skipped; the tests of everything else
about the tool, in the other ``test_cli_*`` modules, need none.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import pytest
from cli_support import COMMAND, HERE, Arg, Result, invoke, ours, run
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from variants._files import CHUNK
from variants.cli.reading import READ_AHEAD, READ_AHEAD_CHUNKS

PROGRAMS = {
    algorithm: f"{algorithm}sum"
    for algorithm in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512")
}
ALGORITHMS = list(PROGRAMS)


def _coreutils_version() -> Optional[Tuple[int, int]]:
    if shutil.which("md5sum") is None:
        return None
    first = subprocess.run(["md5sum", "--version"], capture_output=True, text=True).stdout
    match = re.search(r"GNU coreutils\)? (\d+)\.(\d+)", first)
    return (int(match.group(1)), int(match.group(2))) if match else None


#: The installed GNU coreutils' (major, minor); None if there is none (or another md5sum).
COREUTILS = _coreutils_version()
pytestmark = pytest.mark.skipif(
    COREUTILS is None, reason="GNU coreutils' md5sum is not installed to compare with"
)


def coreutils_since(version: Tuple[int, int]) -> bool:
    """Whether the installed coreutils is ``version`` or later."""
    return COREUTILS is not None and version <= COREUTILS


# What coreutils releases after 9.1 do differently, by the release that did it
# (coreutils 9.7, Debian 13's, does all three):
#
# 9.2 reads a NUL byte right after a line's digest (with -c) as the blank that
# ends the digest: "<md5>\0 name" is a checksum line; 9.1 refuses it. And it
# refuses a BSD line whose digest a NUL ends ("MD5 (f) = <md5>\0..."), which
# 9.1 accepts, reading the digest up to the NUL.
NUL_AFTER_DIGEST = (9, 2)
# 9.4 escapes a name in -c's status lines ("\back\\slash: OK") if it has a
# backslash or a CR; 9.1 escapes it only for a newline.
CHECK_STATUS_ESCAPES = (9, 4)
# 9.6 (gnulib's quotearg fix) quotes a name with an apostrophe whose first and
# last characters need $'...' escapes without 9.1's stray quotes.
QUOTING_FIX = (9, 6)
# 9.10 (Debian sid's; the comparisons passed with 9.7) keeps a -t that --tag follows, and so
# refuses "-t --tag"; 9.1's --tag set binary mode over it, hashing as "--tag" alone does.
TAG_KEEPS_TEXT = (9, 10)
# 9.10 reports a failed write at once, with its reason, and stops there; 9.1 goes on to the next
# file and says "write error" when it closes its output.
WRITE_ERROR_AT_ONCE = (9, 10)
#: For QUOTING_FIX: the names in messages that the comparisons use and that it
#: changes, as (9.1's quoting, 9.6's), in the C and UTF-8 locales alike.
REQUOTED: Dict[bytes, Tuple[bytes, bytes]] = {
    b"miss'ing\x01": (b"'''miss'\\''ing'$'\\001'", b"'miss'\\''ing'$'\\001'"),
    b"\nit's\n": (b"'\\n''it'\\''s'$'\\n'", b"''$'\\n''it'\\''s'$'\\n'"),
}


def _unescape(name: bytes) -> bytes:
    return re.sub(rb"\\(.)", lambda m: {b"n": b"\n", b"r": b"\r"}.get(m[1], m[1]), name)


def check_status_as_9_1(stdout: bytes) -> bytes:
    """``md5sum -c``'s status lines from 9.4 on, written as 9.1 writes them (CHECK_STATUS_ESCAPES).

    From 9.4 a line starts with a backslash exactly when its name is
    escaped; 9.1 leaves the name as it is unless it has a newline.
    """
    lines = []
    for line in stdout.split(b"\n")[:-1]:
        if line.startswith(b"\\"):
            verdict = re.search(rb": (OK|FAILED|FAILED open or read)$", line)
            assert verdict is not None, line
            name = _unescape(line[1 : verdict.start()])
            if b"\n" not in name:
                line = name + verdict[0]
        lines.append(line + b"\n")
    return b"".join(lines)


def tag_over_text_as_9_1(args: Sequence[Arg]) -> List[Arg]:
    """The arguments without each -t that a --tag follows (TAG_KEEPS_TEXT): 9.1's command."""
    end = args.index("--") if "--" in args else len(args)
    tags = [index for index, arg in enumerate(args[:end]) if arg == "--tag"]
    return [
        arg
        for index, arg in enumerate(args)
        if not (tags and index < tags[-1] and arg in ("-t", "--text"))
    ]


def theirs(
    algorithm: str,
    args: Sequence[Arg],
    cwd: Path,
    stdin: Optional[bytes] = None,
    locale: Optional[str] = None,
) -> Result:
    """coreutils' result as 9.1 gives it, with its program name in messages replaced by ours."""
    program = PROGRAMS[algorithm]
    if coreutils_since(TAG_KEEPS_TEXT):
        args = tag_over_text_as_9_1(args)
    result = run([program, *args], cwd, stdin or b"", locale or HERE)
    stdout, stderr = result.stdout, result.stderr.replace(program.encode(), b"variants-sum")
    if coreutils_since(CHECK_STATUS_ESCAPES) and ("-c" in args or "--check" in args):
        stdout = check_status_as_9_1(stdout)
    if coreutils_since(QUOTING_FIX):
        for old, new in REQUOTED.values():
            stderr = stderr.replace(new, old)
    return Result(result.status, stdout, stderr)


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


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of oddly named files, and checksum lists of them written by hand."""
    root = tmp_path_factory.mktemp("corpus")
    for name, data in FILES.items():
        (root / os.fsdecode(name)).write_bytes(data)
    (root / os.fsdecode(DIRECTORY)).mkdir()
    for algorithm in ALGORITHMS:
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
        b"\\" + digest(b"cr\rx") + b"  cr\\rx",
    ]
    return b"\n".join(lines)  # no newline after the last line


@pytest.fixture(scope="module")
def lists(corpus: Path) -> Path:
    """The corpus, with checksum lists of its files made by coreutils."""
    for algorithm, program in PROGRAMS.items():
        names = list(FILES)
        gnu = subprocess.run([program, "--", *names], cwd=corpus, capture_output=True, check=True)
        tagged = subprocess.run(
            [program, "--tag", "--", *names], cwd=corpus, capture_output=True, check=True
        )
        (corpus / f"{algorithm}-good.sums").write_bytes(gnu.stdout)
        other = "md5" if algorithm != "md5" else "sha256"
        foreign = subprocess.run(
            [PROGRAMS[other], "--tag", "plain.txt"], cwd=corpus, capture_output=True, check=True
        )
        (corpus / f"{algorithm}-tagged.sums").write_bytes(tagged.stdout + foreign.stdout)
    return corpus


HASH_OPTIONS = [[], ["-b"], ["-t"], ["--tag"], ["-z"], ["--tag", "-z"], ["-b", "-z"], ["--binary"]]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("options", HASH_OPTIONS, ids=" ".join)
def test_hashing_matches_coreutils(corpus: Path, algorithm: str, options: List[str]) -> None:
    """Normal, empty, binary and odd-named files, a directory, missing and unreadable files."""
    result = assert_same(algorithm, [*options, "--", *ALL_NAMES], corpus)
    assert result.status == 1  # the missing ones


def _sized(size: int) -> bytes:
    return bytes((i * 131 + (i >> 12)) & 0xFF for i in range(size))


#: Around the read size, one read-ahead buffer after the first chunk, and past the whole ring.
LARGE = [
    CHUNK - 1,
    CHUNK,
    CHUNK + 1,
    (1 + READ_AHEAD_CHUNKS) * CHUNK,
    (1 + READ_AHEAD * READ_AHEAD_CHUNKS) * CHUNK + 1,
]


def test_files_larger_than_the_read_size_match_coreutils(corpus: Path) -> None:
    """One at a time (read ahead, with two CPUs), then checked two at a time (read in turn)."""
    names = [f"large-{size}" for size in LARGE]
    for name, size in zip(names, LARGE):
        (corpus / name).write_bytes(_sized(size))
    try:
        assert_same("md5", ["--", *names], corpus)
        listing = corpus / "large.sums"
        listing.write_bytes(theirs("md5", names, corpus).stdout)
        expected = theirs("md5", ["-c", listing.name], corpus)
        assert ours("md5", ["-j", "2", "-c", listing.name], corpus) == expected
        assert expected.stdout.count(b": OK\n") == len(LARGE)
    finally:
        for name in names:
            (corpus / name).unlink()


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
        b"it's",
        b"x:y",
        "‘quoted’".encode(),
        *REQUOTED,
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
def test_check_matches_coreutils(lists: Path, algorithm: str, options: List[str]) -> None:
    sums = [f"{algorithm}-{kind}.sums" for kind in ("good", "tagged", "mixed", "allmissing")]
    others = ["garbage.sums", "no-such.sums", "directory", "empty"]
    assert_same(algorithm, ["-c", *options, *sums, *others], lists)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_check_bsd_reversed_lines(lists: Path, algorithm: str) -> None:
    reversed_list = f"{algorithm}-reversed.sums"
    assert assert_same(algorithm, ["-c", reversed_list], lists).status == 0
    # Once GNU lines were seen, reversed ones are refused, across lists too.
    assert_same(algorithm, ["-c", "-w", f"{algorithm}-good.sums", reversed_list], lists)
    assert_same(algorithm, ["-c", "-w", reversed_list, f"{algorithm}-good.sums"], lists)


@pytest.mark.parametrize("args", [["-c"], ["-c", "-"], ["-c", "-", "md5-good.sums"]])
def test_check_list_from_standard_input(lists: Path, args: List[str]) -> None:
    listing = (lists / "md5-mixed.sums").read_bytes()
    # A "-" entry in a list read from stdin is refused.
    listing += b"\n" + hashlib.md5(b"").hexdigest().encode() + b"  -\n"
    assert_same("md5", [*args, "-w"], lists, stdin=listing)


def test_check_entry_reading_standard_input(corpus: Path) -> None:
    listing = corpus / "stdin-entry.sums"
    listing.write_bytes(hashlib.md5(b"piped\n").hexdigest().encode() + b"  -\n")
    assert_same("md5", ["-c", listing.name], corpus, stdin=b"piped\n")
    assert_same("md5", ["-c", listing.name], corpus, stdin=b"something else\n")


def test_check_with_an_algorithm_refuses_the_others_lines(lists: Path) -> None:
    """With -a, other algorithms' lines are improperly formatted, as for md5sum."""
    listing = b"".join(
        (lists / f"{algorithm}-{kind}.sums").read_bytes()
        for algorithm in ALGORITHMS
        for kind in ("good", "tagged")
    )
    (lists / "all.sums").write_bytes(listing)
    assert_same("md5", ["-c", "--quiet", "-w", "all.sums"], lists)


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
        [b"--\xff"],  # not UTF-8: printed as the bytes given
        [b"-\xff"],
        [b"--ch\xff"],
    ],
    ids=repr,
)
def test_command_line_handling_matches_coreutils(corpus: Path, args: List[Arg]) -> None:
    assert_same("md5", args, corpus, stdin=b"stdin\n" if "-" in args else None)


def test_write_error(corpus: Path) -> None:
    env = dict(os.environ, LC_ALL="C.UTF-8")
    env.pop("PYTHONUNBUFFERED", None)  # (see test_cli_command.test_write_error_status)
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [*COMMAND, "-a", "md5", "plain.txt", "missing"],
            cwd=corpus,
            stdout=full,
            stderr=subprocess.PIPE,
            env=env,
        )
        reference = subprocess.run(
            ["md5sum", "plain.txt", "missing"], cwd=corpus, stdout=full, stderr=subprocess.PIPE
        )
    assert done.returncode == reference.returncode == 1
    as_9_1 = b"variants-sum: missing: No such file or directory\nvariants-sum: write error\n"
    if coreutils_since(WRITE_ERROR_AT_ONCE):  # (see WRITE_ERROR_AT_ONCE)
        assert reference.stderr == b"md5sum: write error: No space left on device\n"
        assert done.stderr == as_9_1
    else:
        assert done.stderr == reference.stderr.replace(b"md5sum", b"variants-sum")


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
        got = run([*prefix, *COMMAND, "-a", "md5", "secret", "plain.txt"], corpus)
    finally:
        secret.unlink()
    assert got == expected._replace(stderr=expected.stderr.replace(b"md5sum", b"variants-sum"))


def test_parallel_output_keeps_argument_order(lists: Path) -> None:
    names: List[Arg] = [*ALL_NAMES, "-", *FILES, "-"]
    expected = theirs("sha256", ["--", *names], lists, stdin=b"in\n")
    for jobs in ("2", "3", "8"):
        got = ours("sha256", ["-j", jobs, "--", *names], lists, stdin=b"in\n")
        assert got == expected
    got = ours("md5", ["--jobs=3", "-c", "-w", "md5-mixed.sums", "md5-good.sums"], lists)
    assert got == theirs("md5", ["-c", "-w", "md5-mixed.sums", "md5-good.sums"], lists)


# --- what later coreutils releases do differently: variants-sum does what 9.1 does ---------


def test_check_status_lines_escape_only_names_with_a_newline(corpus: Path) -> None:
    """CHECK_STATUS_ESCAPES: ``back\\slash: OK`` from 9.1, ``\\back\\\\slash: OK`` from 9.4."""
    names = [b"back\\slash", b"cr\rx", b"new\nline"]
    listing = corpus / "escapes.sums"
    listing.write_bytes(b"".join(theirs("md5", [name], corpus).stdout for name in names))
    as_9_1 = b"back\\slash: OK\ncr\rx: OK\n\\new\\nline: OK\n"
    as_9_4 = b"\\back\\\\slash: OK\n\\cr\\rx: OK\n\\new\\nline: OK\n"
    assert ours("md5", ["-c", listing.name], corpus).stdout == as_9_1
    reference = run(["md5sum", "-c", listing.name], corpus).stdout
    assert reference == (as_9_4 if coreutils_since(CHECK_STATUS_ESCAPES) else as_9_1)


def test_nul_after_a_digest_as_in_9_1(corpus: Path) -> None:
    """NUL_AFTER_DIGEST: which of two lines with a NUL after the digest is a checksum line."""
    digest = hashlib.md5(FILES[b"plain.txt"]).hexdigest().encode()
    gnu, bsd = corpus / "nul-gnu.sums", corpus / "nul-bsd.sums"
    gnu.write_bytes(digest + b"\0 plain.txt\n")
    bsd.write_bytes(b"MD5 (plain.txt) = " + digest + b"\0junk\n")
    refused = b"variants-sum: %s: 1: improperly formatted MD5 checksum line\n"
    refused += b"variants-sum: %s: no properly formatted checksum lines found\n"
    as_9_1 = {
        gnu.name: (1, b"", refused % (gnu.name.encode(), gnu.name.encode())),
        bsd.name: (0, b"plain.txt: OK\n", b""),
    }
    as_9_2 = {
        gnu.name: (0, b"plain.txt: OK\n", b""),
        bsd.name: (1, b"", refused % (bsd.name.encode(), bsd.name.encode())),
    }
    for name in (gnu.name, bsd.name):
        assert ours("md5", ["-c", "-w", name], corpus) == as_9_1[name]
        reference = theirs("md5", ["-c", "-w", name], corpus)
        assert reference == (as_9_2 if coreutils_since(NUL_AFTER_DIGEST) else as_9_1)[name]


def test_tag_after_text_as_in_9_1(corpus: Path) -> None:
    """TAG_KEEPS_TEXT: "-t --tag" hashes as "--tag" does in 9.1; 9.10 refuses it."""
    tagged = ours("md5", ["--tag", "plain.txt"], corpus)
    assert tagged.status == 0 and tagged.stdout.startswith(b"MD5 (plain.txt) = ")
    assert ours("md5", ["-t", "--tag", "plain.txt"], corpus) == tagged
    reference = run(["md5sum", "-t", "--tag", "plain.txt"], corpus)
    if coreutils_since(TAG_KEEPS_TEXT):
        assert (reference.status, reference.stdout) == (1, b"")
        assert b"--tag does not support --text mode" in reference.stderr
    else:
        assert reference == tagged


@pytest.mark.parametrize("name", list(REQUOTED), ids=repr)
def test_names_quoted_in_messages_as_in_9_1(corpus: Path, name: bytes) -> None:
    """QUOTING_FIX: an apostrophe, and $'...' escapes at both ends."""
    as_9_1, as_9_6 = REQUOTED[name]
    message = b"variants-sum: %s: No such file or directory\n"
    assert ours("md5", ["--", name], corpus).stderr == message % as_9_1
    reference = run(["md5sum", "--", name], corpus).stderr.replace(b"md5sum", b"variants-sum")
    assert reference == message % (as_9_6 if coreutils_since(QUOTING_FIX) else as_9_1)


# --- the check-line parser, fuzzed against coreutils ---------------------------------------


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
    listing = b"\n".join(lines) + (b"\n" if terminated else b"")
    if coreutils_since(NUL_AFTER_DIGEST):  # they read these differently (see the test above)
        assume(not re.search(rb"[0-9A-Fa-f]{32}\0", listing))
    (corpus / "fuzz.sums").write_bytes(listing)
    expected = theirs("md5", ["-c", "-w", "fuzz.sums"], corpus)
    assert invoke(["-a", "md5", "-c", "-w", "fuzz.sums"], corpus) == expected
