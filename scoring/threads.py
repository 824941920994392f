"""How many CPU threads torch may use in one worker process, so that processes share the cores.

Left alone, every worker process's torch uses all cores for intra-op parallelism; two processes
scoring BERTScore on two cores then oversubscribe them (measured: a 2,000-item chunk took ~23 s
alone and 2-3 minutes beside a second one).
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping

THREADS_ENV = "SCORING_TORCH_THREADS"
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def torch_threads_for(*, concurrency: int, cores: int | None = None, environ: MutableMapping[str, str] | None = None
                      ) -> int:
    """``SCORING_TORCH_THREADS`` when set, else the cores divided by the processes that score at once (>= 1)."""
    env = os.environ if environ is None else environ
    configured = env.get(THREADS_ENV, "").strip()
    if configured:
        threads = int(configured)
        if threads < 1:
            raise ValueError(f"{THREADS_ENV} must be a positive integer, got {configured!r}")
        return threads
    available = cores if cores is not None else len(os.sched_getaffinity(0))
    return max(1, available // max(1, concurrency))


def torch_threads_configure(*, concurrency: int, environ: MutableMapping[str, str] | None = None) -> int:
    """Set the thread count for this process and its children before or after torch is imported."""
    env = os.environ if environ is None else environ
    threads = torch_threads_for(concurrency=concurrency, environ=env)
    for name in _THREAD_VARIABLES:
        env[name] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
    return threads
