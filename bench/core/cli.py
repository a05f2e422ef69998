"""The command lines' parser: argparse's, with an error of one line (every command of
``python -m bench``, whichever layer reads its arguments)."""

from __future__ import annotations

import argparse
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """A parser whose error is one line, what to change, with where the options are listed
    (argparse's own prints its usage first: a dozen lines before the one that matters)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help lists the options)\n")
