"""variants-sum against coreutils: the command line tool's targets, measured.

    python -m bench.cli_targets --python .nox/bench_env-3-11/bin/python   # 1 GiB, 64 x 16 MiB
    python -m bench.cli_targets --python ... --size 256M --rounds 3 --variant streamlined

Whole processes are timed (wall clock), start-up included, on the same file in
the same run, interleaved round by round by the one timing core (coreutils,
then variants-sum, for each algorithm), after one untimed pass that puts the
file in the page cache; the figures are medians. ``--python`` runs it under
that environment's interpreter, with the variants-sum installed there. Peak
memory is each child's maximum resident set size (GNU time's %M). Targets:

* ``-a md5``: at least 1.1x the throughput of ``md5sum``;
* ``-a sha256``: at least 3x ``sha256sum`` (coreutils' portable C against
  the native variant's SHA-NI kernel);
* peak memory under 64 MiB whatever the file size;
* ``-j 2`` over many files: at least 1.6x the throughput of ``-j 1``.

The files live in a fresh directory under /tmp, removed at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Sequence

from bench.layout import run_in, split_python
from bench.machine import cpu_model
from bench.timing import Timed, interleave

MiB = 1 << 20
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


class Run(NamedTuple):
    seconds: float
    cpu: float  # user + system seconds (0 without GNU time)
    peak_rss: int  # bytes
    stdout: bytes


def run(command: Sequence[str]) -> Run:
    """Run ``command`` to completion: wall time, peak RSS, output.

    The peak comes from GNU time, which forks the command from its own small
    process: the rusage of a child this (large) Python process spawns would
    count the parent's pages it was vforked with.
    """
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as usage:
        wrapped = [TIME, "-f", "%M %U %S", "-o", usage.name, *command] if TIME else list(command)
        started = time.perf_counter()
        done = subprocess.run(wrapped, stdout=out, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr!r}")
        peak, cpu = 0, 0.0
        if TIME:
            kib, user, system = usage.read().split()[-3:]
            peak, cpu = int(kib) * 1024, float(user) + float(system)
        out.seek(0)
        return Run(seconds, cpu, peak, out.read())


class Process:
    """A command as a time function (``bench.timing``): wall seconds of ``loops`` runs."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = command
        self.cpu: List[float] = []
        self.peak = 0

    def time_func(self, loops: int) -> float:
        total = 0.0
        for _ in range(loops):
            result = run(self.command)
            total += result.seconds
            self.cpu.append(result.cpu)
            self.peak = max(self.peak, result.peak_rss)
        return total


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1:].upper() in units:
        return int(float(text[:-1]) * units[text[-1:].upper()])
    return int(text)


def make_file(path: Path, size: int) -> None:
    """``size`` bytes: a random MiB, repeated (the hashing cost does not depend on the data)."""
    block = os.urandom(MiB)
    with open(path, "wb") as f:
        left = size
        while left:
            f.write(block[: min(left, MiB)])
            left -= min(left, MiB)


def tool_command() -> List[str]:
    """variants-sum as installed next to this interpreter, else ``python -m variants``."""
    script = Path(sys.executable).parent / "variants-sum"
    return [str(script)] if script.exists() else [sys.executable, "-m", "variants"]


def variant_details(tool: List[str], variant: List[str]) -> str:
    listing = subprocess.run([*tool, "--list-variants"], capture_output=True, text=True).stdout
    wanted = variant[1] if variant else None
    for line in listing.splitlines()[1:]:
        if (wanted and line.split()[0] == wanted) or (not wanted and "(default)" in line):
            return " ".join(line.split())
    return "?"


def main(argv: Sequence[str]) -> int:
    python, argv = split_python(argv)
    if python:
        return run_in(python, "cli_targets", argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", help="run under this environment's interpreter")
    parser.add_argument("--size", default="1G", help="the big file's size (default 1G)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", type=int, default=64, help="files for the -j comparison")
    parser.add_argument("--file-size", default="16M", help="size of each of those files")
    parser.add_argument("--variant", help="variants-sum --variant NAME (default: the drop-in's)")
    parser.add_argument("--tool", help="the variants-sum command (default: found next to python)")
    args = parser.parse_args(argv)

    tool = args.tool.split() if args.tool else tool_command()
    variant = ["--variant", args.variant] if args.variant else []
    size = parse_size(args.size)
    small = parse_size(args.file_size)
    workdir = Path(tempfile.mkdtemp(prefix="cli-targets-", dir="/tmp"))
    try:
        big = workdir / "big.bin"
        make_file(big, size)
        many = []
        for i in range(args.files):
            path = workdir / f"part{i:03d}.bin"
            make_file(path, small)
            many.append(str(path))

        commands: Dict[str, List[str]] = {
            "md5sum": ["md5sum", str(big)],
            "variants-sum -a md5": [*tool, *variant, "-a", "md5", str(big)],
            "sha256sum": ["sha256sum", str(big)],
            "variants-sum -a sha256": [*tool, *variant, "-a", "sha256", str(big)],
        }
        for algorithm in ("md5", "sha256"):
            for jobs in ("1", "2"):
                commands[f"-a {algorithm} -j {jobs}, {args.files} files"] = [
                    *tool,
                    *variant,
                    "-a",
                    algorithm,
                    "-j",
                    jobs,
                    *many,
                ]

        # Untimed: fill the page cache, check both tools agree.
        first = {name: run(command) for name, command in commands.items()}
        for theirs, ours in (
            ("md5sum", "variants-sum -a md5"),
            ("sha256sum", "variants-sum -a sha256"),
        ):
            if first[theirs].stdout != first[ours].stdout:
                raise SystemExit(f"{ours} and {theirs} disagree")

        processes = {name: Process(command) for name, command in commands.items()}
        timed = [Timed(name, p.time_func, loops=1) for name, p in processes.items()]
        for round_number in range(args.rounds):
            interleave(timed, 1)
            print(f"round {round_number + 1}/{args.rounds} done", file=sys.stderr)
        times = {t.name: t.values for t in timed}
        cpu = {name: p.cpu for name, p in processes.items()}
        peaks = {name: p.peak for name, p in processes.items()}
    finally:
        shutil.rmtree(workdir)

    median = {name: statistics.median(values) for name, values in times.items()}
    median_cpu = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"# variants-sum targets, {time.strftime('%Y-%m-%d')}")
    print()
    print(f"{cpu_model()}, {os.cpu_count()} CPUs; Python {platform.python_version()}")
    print(f"tool: {' '.join(tool)} {' '.join(variant)}".rstrip())
    print(f"variant: {variant_details(tool, variant)}")
    print(f"{args.rounds} interleaved rounds, medians; whole processes, start-up included")
    print(
        f"load average at the end: {os.getloadavg()[0]:.2f} "
        "(other work on the machine skews wall times)"
    )
    print()
    print("| command | input | median s | MB/s | CPU s (user+sys) | peak RSS MiB |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in commands:
        total = size if "files" not in name else small * args.files
        what = f"{total / MiB:.0f} MiB" + ("" if "files" not in name else f" in {args.files} files")
        print(
            f"| {name} | {what} | {median[name]:.3f} | {total / median[name] / 1e6:.0f} "
            f"| {median_cpu[name]:.3f} | {peaks[name] / MiB:.1f} |"
        )
    print()
    pairs = [
        ("md5: variants-sum / md5sum throughput", "md5sum", "variants-sum -a md5", 1.1),
        ("sha256: variants-sum / sha256sum throughput", "sha256sum", "variants-sum -a sha256", 3.0),
    ]
    for algorithm in ("md5", "sha256"):
        one = f"-a {algorithm} -j 1, {args.files} files"
        two = f"-a {algorithm} -j 2, {args.files} files"
        pairs.append((f"{algorithm}: -j 2 / -j 1 throughput", one, two, 1.6))
    our_runs = [name for name in commands if not name.endswith("sum")]
    peak = max(peaks[name] for name in our_runs)
    print("| target | measured (wall) | wanted | met | CPU-time ratio |")
    print("| --- | --- | --- | --- | --- |")
    for label, slow, fast, wanted in pairs:
        value = median[slow] / median[fast]
        met = "yes" if value >= wanted else "NO"
        # -j spreads the same work over more cores: only wall time tells.
        by_cpu = (
            median_cpu[slow] / median_cpu[fast] if median_cpu[fast] and "-j" not in label else 0
        )
        shown = f"{by_cpu:.2f}x" if by_cpu else ""
        print(f"| {label} | {value:.2f}x | >= {wanted}x | {met} | {shown} |")
    if TIME:
        met = "yes" if peak < 64 * MiB else "NO"
        print(f"| variants-sum peak RSS | {peak / MiB:.1f} MiB | < 64 MiB | {met} | |")
    else:
        print("| variants-sum peak RSS | not measured: needs GNU time (/usr/bin/time) | | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
