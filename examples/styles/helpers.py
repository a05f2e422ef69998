"""Helper functions against inlined code in a small numeric kernel: the sum of squared
distances of points to their centre (what a k-means step computes), written with small
helpers as a textbook would, and with everything inlined in one loop."""

TITLE = "Helper functions or inlined code: squared distances to a centre"
SIZES = (16, 4096)


def inputs(size):
    xs = [((i * 7919) % 1000) / 10.0 for i in range(size)]
    ys = [((i * 104729) % 1000) / 10.0 for i in range(size)]
    return (xs, ys)


def _mean(values):
    return sum(values) / len(values)


def _square(x):
    return x * x


def _distance2(x, y, cx, cy):
    return _square(x - cx) + _square(y - cy)


def helpers(xs, ys):
    """small functions: a mean, a square, a squared distance"""
    cx, cy = _mean(xs), _mean(ys)
    total = 0.0
    for x, y in zip(xs, ys):
        total += _distance2(x, y, cx, cy)
    return total


def inlined(xs, ys):
    """one loop, every helper written out in place"""
    cx = sum(xs) / len(xs)
    cy = sum(ys) / len(ys)
    total = 0.0
    for x, y in zip(xs, ys):
        dx = x - cx
        dy = y - cy
        total += dx * dx + dy * dy
    return total


STYLES = (helpers, inlined)
