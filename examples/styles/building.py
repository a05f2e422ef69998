"""A comprehension against a loop with ``append`` against ``map``: building a list of the
strings of some numbers."""

TITLE = "A loop with append, a comprehension or map: building a list"
SIZES = (16, 4096)


def inputs(size):
    return (list(range(size)),)


def loop_append(xs):
    """for x in xs: out.append(str(x))"""
    out = []
    for x in xs:
        out.append(str(x))
    return out


def comprehension(xs):
    """[str(x) for x in xs]"""
    return [str(x) for x in xs]


def map_builtin(xs):
    """list(map(str, xs))"""
    return list(map(str, xs))


STYLES = (loop_append, comprehension, map_builtin)
