"""Building a string: ``+=`` in a loop against ``"".join`` against ``io.StringIO``.
CPython appends in place when the string has no other reference (an optimisation of its
own); PyPy copies, so there ``+=`` grows with the square of the length. Which to write
depends on the interpreter."""

import io

TITLE = "Building a string: +=, str.join or io.StringIO"
SIZES = (16, 1024)


def inputs(size):
    return ([f"{i:05d}," for i in range(size)],)


def plus_equals(parts):
    """s += part"""
    s = ""
    for part in parts:
        s += part
    return s


def join(parts):
    """the parts joined: "".join(parts)"""
    return "".join(parts)


def string_io(parts):
    """io.StringIO, write each part"""
    out = io.StringIO()
    for part in parts:
        out.write(part)
    return out.getvalue()


STYLES = (plus_equals, join, string_io)
