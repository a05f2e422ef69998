"""``--list-variants``: the registry as a table, with what can be imported here."""

from __future__ import annotations


def list_variants() -> str:
    """A row per variant: name (marked if the default), kind, algorithms, importable or why not."""
    import variants
    from variants import registry

    rows = [("VARIANT", "KIND", "ALGORITHMS", "HERE")]
    for entry in registry.VARIANTS:
        problem = registry.status(entry.name)
        if problem is None:
            details = registry.load(entry.name).details
            here = "importable" + (f"; {details}" if details else "")
        else:
            here = f"not importable: {problem}"
        name = entry.name + (" (default)" if entry.name == variants.default_variant.name else "")
        rows.append((name, entry.kind, " ".join(entry.algorithms), here))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths)) + "  " + row[3] + "\n"
        for row in rows
    )
