"""Kept runs: the study's default runs as data in the repository, one folder a run.

    python -m bench runs keep [RUN]       # keep a run of this clone (default: the newest)
    python -m bench runs keep ~/from-another-machine/20261205-050646 --machine hypervisor=kvm
    python -m bench runs list             # machine, date, commit, effort, code measured
    python -m bench runs drop NAME

A kept run (``runs/<name>/run.json.gz``) is the run itself, made compact: its header with the
machine (``machine.machine_facts``: CPU vendor, family, model, name, the flags that pick
kernels, cores, hypervisor, OS, kernel) and a digest of the code it measured
(``machine.measured``), its columns, its instruction counts, and of every case each process's
fastest value and stretch (the figures of ``bench.core.stats`` are made of those; the
README's cases keep every round, for ``stability``'s variance levels, and so does a case
measured in one process, whose interval is a bootstrap over its rounds). It reads back as a
``Run``, so every report, page and ``stability`` takes it as it takes a run's folder.
``nox -s bench`` keeps each default (or rigorous) run of every mode; a run's folder copied
from another machine is kept with ``keep``, its machine told by its header (a run before
headers said it: by its CPU label and pyperf's metadata, and ``--machine`` for the rest).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Collection, Dict, List, Mapping, Optional, Sequence

from ..catalog import comparisons
from ..catalog.cases import Case
from ..catalog.columns import Column, Member
from ..core import machine
from ..core.stats import by_process
from . import (
    ROOT,
    FormatError,
    Header,
    Measured,
    Run,
    counts_of,
    load,
    newest,
)

KEPT = ROOT / "runs"
FILE = "run.json.gz"
#: The kept records' format: a reader refuses another (``FormatError``).
FORMAT = 1
#: What a kept run may weigh in git, at most (bytes; the tests hold the seeded runs to it).
MOST = 500_000
#: Microarchitectures by (vendor, family, model), where the name alone does not tell them.
CODENAMES = {
    ("AMD", "23", "49"): "Zen 2",
    ("AMD", "25", "1"): "Zen 3",
    ("AMD", "25", "17"): "Zen 4",
    ("AMD", "26", "2"): "Zen 5",
}


def cpu_name(facts: Mapping[str, Any]) -> str:
    """A machine's CPU in a few words: "AMD EPYC 25/1 (Zen 3)", "Intel Xeon 6/167"."""
    name = re.sub(r"\((R|TM)\)|\bProcessor\b|\bCPU\b|@.*$", "", str(facts.get("name", "")))
    name = " ".join(name.split()) or "unknown CPU"
    key = (str(facts.get("vendor", "")), str(facts.get("family", "")), str(facts.get("model", "")))
    shown = f"{name} {key[1]}/{key[2]}" if key[1] else name
    code = CODENAMES.get(key)
    return f"{shown} ({code})" if code else shown


def machine_key(facts: Mapping[str, Any]) -> str:
    """Which runs are of one machine: the same CPU (vendor, family, model, name) and cores."""
    return f"{cpu_name(facts)}, {facts.get('cores', '?')} cores"


def facts_of(columns: Sequence[Column], header: Header, told: Mapping[str, str]) -> Dict[str, Any]:
    """The machine of a run: its header's; for a run before headers said it, this machine's
    if its CPU label is this machine's, else what its label and pyperf's metadata say; then
    what ``told`` says (``--machine key=value``; ``flags`` comma-separated)."""
    facts: Dict[str, Any] = dict(header.machine)
    if not facts and header.cpu == machine.cpu_label():
        facts = machine.machine_facts()
    elif not facts:
        found = re.match(
            r"(.*?)(?: \(family (\d+) model (\d+)(?:, ([^)]*))?\))?, (\d+) cores$", header.cpu
        )
        name, family, model, simd, cores = found.groups() if found else (header.cpu, "", "", "", 0)
        meta = next((c.listing.metadata for c in columns if c.listing.metadata), {})
        platform = str(meta.get("platform", ""))
        vendor = next((v for v in ("AMD", "Intel") if v in name), "")
        simd_flags = {"AVX-512": ["avx2", "avx512f"], "AVX2": ["avx2"]}.get(simd or "", [])
        facts = {
            "vendor": vendor,
            "family": family or "",
            "model": model or "",
            "name": name,
            "flags": simd_flags,
            "cores": int(cores or 0),
            "hypervisor": "",
            "os": "glibc " + platform.rsplit("glibc", 1)[1] if "glibc" in platform else "",
            "kernel": platform.split("-")[1] if platform.startswith("Linux-") else "",
            "label": header.cpu,
        }
    for key, value in told.items():
        facts[key] = [f for f in value.split(",") if f] if key == "flags" else value
    return facts


def record_of(run: Run, full: Collection[Member]) -> Dict[str, Any]:
    """A run as its kept record: each case's processes as [pass, stretch, value, ...] (every
    round's value for the members ``full``, the fastest one for the rest)."""
    cases: Dict[str, Dict[str, Any]] = {}
    for member, m in run.measured.items():
        rows = []
        processes = by_process(m.values)
        for p, values in processes.items():
            # one process: its interval is a bootstrap over its rounds, which it keeps
            kept = values if member in full or len(processes) == 1 else [min(values)]
            rows.append([p, m.stretches.get(p, 0), *kept])
        cases.setdefault(member[0], {})[member[1]] = {"warmed": m.warmed, "passes": rows}
    counts = [
        {"mode": k[0], "variant": k[1], "algorithm": k[2], "instructions_per_byte": v}
        for k, v in run.counts.items()
    ]
    return {
        "format": FORMAT,
        "name": run.name,
        "header": asdict(run.header),
        "columns": {c.label: c.as_json() for c in run.columns},
        "cases": cases,
        "counts": counts,
    }


def run_of(data: Mapping[str, Any], where: str) -> Run:
    """The ``Run`` a kept record holds (``FormatError`` for a format this bench does not read)."""
    found = data.get("format")
    if found != FORMAT:
        raise FormatError(
            f"{where} is a kept run in format {found}; this bench reads kept "
            f"format {FORMAT} (keep the run again with this checkout)"
        )
    header = Header.of_json(data["header"])
    columns = tuple(Column.from_json(c) for c in data["columns"].values())
    measured: Dict[Member, Measured] = {}
    for label, cases in data["cases"].items():
        for name, case in cases.items():
            values = {(int(r[0]), i): float(v) for r in case["passes"] for i, v in enumerate(r[2:])}
            stretches = {int(r[0]): int(r[1]) for r in case["passes"]}
            measured[(label, name)] = Measured(
                label, Case.parse(name), values, stretches, bool(case["warmed"])
            )
    return Run(str(data["name"]), header, columns, measured, counts_of(data["counts"]))


def write(run: Run, kept: Path = KEPT) -> Path:
    """Keep ``run`` (its header saying its machine and code) under ``kept``; its folder."""
    full = comparisons.readme_members(run.study.tables(run.layout))
    text = json.dumps(record_of(run, full), separators=(",", ":"))  # the modes in their order
    text = text.replace(str(Path.home()), "~")  # no one's home in the repository
    folder = kept / run.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FILE).write_bytes(gzip.compress(text.encode(), 9, mtime=0))
    return folder


def read(folder: Path) -> Run:
    """The kept run in ``folder``."""
    path = folder / FILE
    return run_of(json.loads(gzip.decompress(path.read_bytes())), str(path))


def every(kept: Path = KEPT) -> List[Run]:
    """Every kept run, oldest first."""
    runs = [read(f.parent) for f in kept.glob(f"*/{FILE}")]
    return sorted(runs, key=lambda r: (r.header.started, r.name))


def keep(folder: Path, told: Mapping[str, str], kept: Path = KEPT) -> Path:
    """Keep the run in ``folder`` (a run's folder as ``nox -s bench`` wrote it, of this clone
    or copied from another machine, or a folder holding a kept record, ``FILE``, as another
    clone keeps it): its machine and the digest of the code it measured in its header (the
    digest from its commit where the run did not record one)."""
    run = (
        read(folder)
        if (folder / FILE).exists() and not (folder / "study.json").exists()
        else (load(folder))
    )
    h = run.header
    clean = h.tree and not h.tree.endswith("-dirty")
    digest = h.measured or (machine.measured(ROOT, h.tree) if clean else "")
    if not digest:
        raise SystemExit(
            f"{folder}: which code it measured is not known (its commit "
            f"{h.tree or 'unrecorded'} is not in this repository's history, or "
            "had changes)"
        )
    header = replace(h, machine=facts_of(run.columns, h, told), measured=digest)
    return write(replace(run, header=header), kept)


def size(folder: Path) -> int:
    return (folder / FILE).stat().st_size


def listing(kept: Path = KEPT) -> List[List[str]]:
    """A row per kept run: name, machine, date, commit, effort, code measured, size."""
    rows = []
    for run in every(kept):
        h = run.header
        rows.append(
            [
                run.name,
                machine_key(h.machine),
                h.started[:16],
                h.tree,
                h.effort,
                h.measured,
                f"{size(kept / run.name) / 1000:.0f} KB",
            ]
        )
    return rows


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(
        prog="python -m bench runs", description=(__doc__ or "").splitlines()[0]
    )
    found.add_argument("--kept", type=Path, default=KEPT, help="the kept runs' folder")
    verbs = found.add_subparsers(dest="verb", required=True)
    keeping = verbs.add_parser("keep", help="keep a run (default: this clone's newest)")
    keeping.add_argument("folder", nargs="?", type=Path)
    keeping.add_argument(
        "--machine",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a fact of the run's machine its header does not have (vendor, "
        "family, model, name, flags, cores, hypervisor, os, kernel)",
    )
    verbs.add_parser("list", help="the kept runs: machine, date, commit, effort")
    dropping = verbs.add_parser("drop", help="drop a kept run")
    dropping.add_argument("name")
    return found


def main(argv: Sequence[str]) -> int:
    from ..core.fmt import table

    args = parser().parse_args(argv)
    if args.verb == "keep":
        folder: Optional[Path] = args.folder or newest("bench", "values.json")
        if folder is None:
            raise SystemExit("no run to keep under results/bench")
        told = dict(x.split("=", 1) for x in args.machine)
        done = keep(folder, told, args.kept)
        print(f"kept {folder.name} as {done / FILE} ({size(done) / 1000:.0f} KB)")
    elif args.verb == "list":
        head = ["run", "machine", "started", "commit", "effort", "code measured", "size"]
        print(table([head, *listing(args.kept)], "llllllr"))
    else:
        target = args.kept / args.name
        if not (target / FILE).exists():
            raise SystemExit(f"no kept run {args.name} under {args.kept}")
        shutil.rmtree(target)
        print(f"dropped {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
