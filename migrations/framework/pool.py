"""Running one function per file, in this process or in worker processes: Ctrl-C is
reported by the parent only, and a crashed worker fails the files it had, not the run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, TypeVar

from acp_schema.cli_common import ignore_interrupts

R = TypeVar("R")
PoolT = TypeVar("PoolT", bound="WorkerPool[Any]")

# Workers cost more than they save on a handful of files (the bench measured --jobs 2
# at 1.2-1.5x --jobs 1 with 20 files to parse): below this many per worker, in-process.
MIN_FILES_PER_WORKER = 16


class WorkerPool(Generic[R]):
    """In-process for one job; a ProcessPoolExecutor otherwise."""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)
        self.executor: ProcessPoolExecutor | None = None

    def __enter__(self: PoolT) -> PoolT:
        return self  # the workers start with the first map that needs them

    def _workers(self, calls: int) -> ProcessPoolExecutor | None:
        """The executor for `calls` calls, started on their first need (None: they run
        in this process, too few to keep every worker busy)."""
        if self.jobs < 2 or calls < MIN_FILES_PER_WORKER * self.jobs:
            return None
        if self.executor is None:
            # Ctrl-C reaches the workers too; only the parent reports it.
            self.executor = ProcessPoolExecutor(
                max_workers=self.jobs, initializer=ignore_interrupts
            )
        return self.executor

    def __exit__(self, *exc: object) -> None:
        if self.executor is not None:
            self.executor.shutdown(cancel_futures=True)

    def map(
        self,
        work: Callable[..., R],
        calls: Sequence[tuple[Any, ...]],
        crashed: Callable[[tuple[Any, ...], BrokenProcessPool], R],
        tick: Callable[[], None] | None = None,
    ) -> list[R]:
        """`work(*call)` for each call, in order; `crashed(call, error)` stands for the
        result of a call whose worker died."""
        executor = self._workers(len(calls))
        if executor is None:
            out = []
            for call in calls:
                out.append(work(*call))
                if tick:
                    tick()
            return out
        futures: list[tuple[tuple[Any, ...], Future[R]]] = [
            (call, executor.submit(work, *call)) for call in calls
        ]
        out = []
        for call, future in futures:
            try:
                out.append(future.result())
            except BrokenProcessPool as err:
                out.append(crashed(call, err))
            if tick:
                tick()
        return out
