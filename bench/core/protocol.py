"""The study's one child-process protocol: a JSON request a line in, a JSON answer a line out.

Every process the study starts speaks it: the measuring worker under each Python mode
(``bench.conduct.worker``), the JDK's (``bench/jdk/Worker.java``), and through the worker's
``call`` every profiler and check that runs a bench function in a mode. The requests:

``{"op": "list", "variants": [...], "algorithms": [...], "benchmarks": [...], "grid": {...}}``
    what runs here: ``{"runtime": {...}, "variants": {name: {...}}, "cases": [...]}``;
``{"op": "prepare", "cases": [{"name": ..., "loops": 0}], "min_time": s, "jit": bool,
"jit_warm": [least, most], "clock": "cpu"}``
    check each case's digest, calibrate (or take the loops), warm up (with a JIT, until it
    settles): ``{"cases": {name: {"loops", "seconds", "prepare_seconds", "warmups", "warmed"}}}``;
``{"op": "value", "case": name}``
    one value: ``{"value": seconds per operation, "wall": seconds it took}``;
``{"op": "hash", "variant": ..., "algorithm": ..., "message": hex, "chunks": [n, ...]}``
    the variant's digest of the message fed in those pieces: ``{"digest": hex}`` (tests);
``{"op": "call", "function": "profile.bytecode.count_bytecode", "kwargs": {...}}``
    ``bench.<function>(**kwargs)``, Python workers only: ``{"result": ...}``;
``{"op": "quit"}``
    exit, no answer.

A request that fails is answered ``{"error": "<Type>: <message>"}``; the worker goes on.
Standard library only.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Callable, Dict, Mapping, Optional, Sequence, Type

Handler = Callable[[Dict[str, Any]], Dict[str, Any]]


class WorkerError(RuntimeError):
    """A worker died or answered an error: what it measured cannot be trusted."""


def serve(handlers: Mapping[str, Handler], incoming: IO[str], outgoing: IO[str]) -> None:
    """Answer requests from ``incoming`` until ``quit`` or its end."""
    for line in incoming:
        request = json.loads(line)
        op = request.get("op")
        if op == "quit":
            return
        try:
            if op not in handlers:
                raise KeyError(f"no op {op!r}; known: {', '.join(handlers)}")
            text = json.dumps(handlers[op](request))
        except Exception as exc:  # the driver reports it
            text = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        outgoing.write(text + "\n")
        outgoing.flush()


class Client:
    """The driver's side: one worker process, asked one request at a time."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: Path,
        label: str,
        stderr: Optional[IO[str]] = None,
    ) -> None:
        self.label = label
        self.process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=cwd,
            env=dict(env),
            text=True,
            bufsize=1,
        )

    def ask(self, request: Mapping[str, Any]) -> Dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            line = ""
        else:
            line = self.process.stdout.readline()
        if not line:
            raise WorkerError(f"{self.label}: the worker died (exit {self.process.wait()})")
        answer: Dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise WorkerError(f"{self.label}: {answer['error']}")
        return answer

    def call(self, function: str, **kwargs: Any) -> Any:
        """``bench.<function>(**kwargs)`` in the worker; what it returns."""
        return self.ask({"op": "call", "function": function, "kwargs": kwargs})["result"]

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            try:
                self.process.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.process.stdin.close()
            except BrokenPipeError:  # it ended already
                pass
            self.process.wait()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()
