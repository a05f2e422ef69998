"""``python -m variants``: the ``variants-sum`` command line tool (see ``variants.cli``)."""

from __future__ import annotations

from variants.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
