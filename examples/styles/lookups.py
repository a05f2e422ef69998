"""Local against global against attribute lookups in a hot loop: ``math.sqrt`` looked up on
the module every time, a global bound once (``from math import sqrt``), or a local alias
made before the loop (the old CPython advice)."""

import math
from math import sqrt

TITLE = "Attribute, global or local lookups in a hot loop"
SIZES = (16, 4096)


def inputs(size):
    return ([float(i % 97) for i in range(size)],)


def attribute(xs):
    """math.sqrt(x): a global and an attribute lookup per call"""
    total = 0.0
    for x in xs:
        total += math.sqrt(x)
    return total


def global_name(xs):
    """sqrt(x), sqrt a module global"""
    total = 0.0
    for x in xs:
        total += sqrt(x)
    return total


def local_alias(xs):
    """root = math.sqrt before the loop: a local lookup per call"""
    root = math.sqrt
    total = 0.0
    for x in xs:
        total += root(x)
    return total


STYLES = (attribute, global_name, local_alias)
