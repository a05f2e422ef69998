"""Running work on a few threads while handing results back in the original order."""

from __future__ import annotations

import threading
from collections import deque

from variants._typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Future
    from typing import Callable, Deque, Iterable, Iterator, Optional, Tuple, TypeVar

if TYPE_CHECKING:
    T = TypeVar("T")
    R = TypeVar("R")


def in_order(
    items: Iterable[T],
    work: Callable[[T], R],
    jobs: int,
    *,
    inline: Callable[[T], bool] = lambda item: False,
    cancel: Optional[threading.Event] = None,
) -> Iterator[Tuple[T, R]]:
    """``(item, work(item))`` for each item, in order, computing up to ``jobs`` at once.

    Each result is yielded as soon as it and every one before it are done, so
    output can follow progress; at most ``4 * jobs`` items are taken from
    ``items`` ahead of the one being yielded, so a long lazy source is never
    read whole. Items for which ``inline`` is true run on the calling thread
    when their turn comes (reading standard input, say, which must happen in
    order). If the consumer stops early or fails, ``cancel`` is set, pending
    work is dropped and running work is waited for (it should watch ``cancel``).
    """
    if jobs <= 1:
        for item in items:
            yield item, work(item)
        return

    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="variants-sum")
    pending: Deque[Tuple[T, Optional[Future[R]]]] = deque()
    source = iter(items)
    ahead = 4 * jobs
    finished = False
    try:
        while True:
            while not finished and len(pending) < ahead:
                try:
                    item = next(source)
                except StopIteration:
                    finished = True
                    break
                pending.append((item, None if inline(item) else pool.submit(work, item)))
            if not pending:
                return
            item, future = pending.popleft()
            yield item, (work(item) if future is None else future.result())
    except BaseException:
        if cancel is not None:
            cancel.set()
        raise
    finally:
        for _, future in pending:
            if future is not None:
                future.cancel()
        pool.shutdown(wait=True)
