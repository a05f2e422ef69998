"""The study's one entry point: ``python -m bench <command>`` from the checkout's root.

    python -m bench envs ...                      # make or reuse each interpreter's environment
    python -m bench run --pythons results/envs/pythons.json   # the study (every mode found)
    python -m bench quick --python 3.11=.venv/bin/python      # the same, in a few minutes
    python -m bench run --modes '3.14*,pypy8' --variants 'helpers*,native' --lengths 64,16384
    python -m bench report results/bench/RUN      # rewrite a run's report
    python -m bench stability RUN_A RUN_B         # do two runs agree? (ratios or instructions)
    python -m bench compare native --python 3.11=...   # one "A against B" case set, quickly
    python -m bench bytecode --python 3.14=...    # bytecode and machine instructions per mode
    python -m bench memory --python 3.11=...      # memray: peak memory and allocations
    python -m bench docs --write                  # the README's and docs/study.md's results
    python -m bench peers --report --write        # digest_column against DuckDB, chdb, ...

The commands that measure share one set of options (the interpreters' environments, the
modes, the variants, the algorithms, the results folder); ``--python LABEL=PATH`` names an
interpreter of ``bench.interpreters`` and its environment's python, and every mode of that
interpreter (``--modes`` to choose) becomes a column.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

from bench import bytecode, columns, compare, memory, stability, study
from bench.layout import RESULTS

Action = Callable[[argparse.Namespace], int]
OWN = {
    "run": "the study: every mode found, measured until its ratios settle (bench.study)",
    "quick": "the study in a few minutes: two passes, lengths to 16 KiB, nothing settles",
}


def common() -> argparse.ArgumentParser:
    """The options every measuring command shares."""
    shared = argparse.ArgumentParser(add_help=False)
    shared.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="an interpreter's environment (repeat); default: this python",
    )
    shared.add_argument("--pythons", type=Path, help="JSON {label: python} (bench envs writes it)")
    shared.add_argument("--modes", default="", help="modes (labels or globs); default: all found")
    shared.add_argument("--variants", default="", help="names or globs (default: all)")
    shared.add_argument("--algorithms", default="md5,sha256")
    shared.add_argument("--results", type=Path, default=RESULTS, help="the results folder")
    return shared


def measure(args: argparse.Namespace) -> int:
    folder = study.run(args, columns.columns_of(args))
    if not args.no_report:
        from bench import report

        return report.main([str(folder)])
    return 0


def quick(args: argparse.Namespace) -> int:
    args.mode = "quick"
    return measure(args)


#: The commands with parsers of their own, in their modules (``python -m bench.envs`` is the
#: same as ``python -m bench envs``).
OWN_PARSERS = ("report", "envs", "docs", "peers")
#: Each command's options (besides the shared ones) and what runs it.
COMMANDS: Dict[str, Tuple[Callable[[argparse.ArgumentParser], None], Action]] = {
    "run": (study.add_arguments, measure),
    "quick": (study.add_arguments, quick),
    "compare": (compare.add_arguments, compare.command),
    "bytecode": (bytecode.add_arguments, bytecode.drive),
    "memory": (memory.add_arguments, memory.drive),
    "stability": (stability.add_arguments, stability.command),
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m bench",
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"{', '.join(OWN_PARSERS)} take their own options: python -m bench report --help",
    )
    commands = top.add_subparsers(dest="command", required=True)
    shared = common()
    for name, (add_arguments, action) in COMMANDS.items():
        module = sys.modules[action.__module__]
        doc = OWN.get(name) or (module.__doc__ or "").strip().splitlines()[0]
        sub = commands.add_parser(name, parents=[] if name == "stability" else [shared], help=doc)
        add_arguments(sub)
        sub.set_defaults(action=action)
    for name in OWN_PARSERS:
        commands.add_parser(name, help=f"bench.{name} (its own options)", add_help=False)
    return top


def main(argv: Sequence[str]) -> int:
    if argv and argv[0] in OWN_PARSERS:
        from importlib import import_module

        owner: Callable[[List[str]], int] = import_module(f"bench.{argv[0]}").main
        return owner(list(argv[1:]))
    args = parser().parse_args(argv)
    result: int = args.action(args)
    return result


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
