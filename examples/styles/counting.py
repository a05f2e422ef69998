"""Counting words four ways: ``dict.get``, ``try``/``except KeyError``, ``defaultdict`` and
``Counter``. CPython's ``Counter`` counts in C; PyPy's is Python its JIT compiles, and
exceptions cost each interpreter differently: the answer depends on where it runs."""

from collections import Counter, defaultdict

TITLE = "Counting: dict.get, try/except, defaultdict or Counter"
SIZES = (16, 4096)


def inputs(size):
    words = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")
    # a new word every fourth: the first sight of a word (the KeyError) is frequent
    return ([f"{words[i % 8]}{i // 4 % (size // 8 + 1)}" for i in range(size)],)


def get(words):
    """counts[w] = counts.get(w, 0) + 1"""
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts


def try_except(words):
    """try: counts[w] += 1 except KeyError: counts[w] = 1"""
    counts = {}
    for w in words:
        try:
            counts[w] += 1
        except KeyError:
            counts[w] = 1
    return counts


def default_dict(words):
    """defaultdict(int)"""
    counts = defaultdict(int)
    for w in words:
        counts[w] += 1
    return dict(counts)


def counter(words):
    """Counter(words)"""
    return dict(Counter(words))


STYLES = (get, try_except, default_dict, counter)
