"""Torch threads per worker process: cores shared among the processes that score at once."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scoring.threads import torch_threads_configure, torch_threads_for


def test_threads_divide_the_cores_among_concurrent_processes() -> None:
    assert torch_threads_for(concurrency=1, cores=16, environ={}) == 16
    assert torch_threads_for(concurrency=4, cores=16, environ={}) == 4
    assert torch_threads_for(concurrency=3, cores=2, environ={}) == 1
    assert torch_threads_for(concurrency=0, cores=2, environ={}) == 2


def test_the_environment_overrides() -> None:
    assert torch_threads_for(concurrency=8, cores=2, environ={"SCORING_TORCH_THREADS": "3"}) == 3
    with pytest.raises(ValueError, match="SCORING_TORCH_THREADS"):
        torch_threads_for(concurrency=1, environ={"SCORING_TORCH_THREADS": "0"})


def test_configure_sets_the_variables_torch_reads() -> None:
    env: dict[str, str] = {"SCORING_TORCH_THREADS": "1"}
    assert torch_threads_configure(concurrency=2, environ=env) == 1
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "1"


@pytest.mark.slow
def test_a_worker_process_gets_its_share(tmp_path) -> None:
    """celeryd_init runs before the pool forks: a child imports torch with the configured threads."""
    code = (
        "from celery.signals import celeryd_init\n"
        "import leaderboard.config.celery  # connects the handler\n"
        "class W: concurrency = 2\n"
        "celeryd_init.send(sender='w', instance=W(), conf=None, options={})\n"
        "import torch; print(torch.get_num_threads())\n"
    )
    env = {"PATH": "/usr/bin:/bin", "SCORING_TORCH_THREADS": "", "DJANGO_SETTINGS_MODULE": "x"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert int(out.stdout.strip()) == max(1, len(os.sched_getaffinity(0)) // 2)
