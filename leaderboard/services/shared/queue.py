"""The one place services hand work to Celery: tasks by name from the app's registry.

Services never import ``leaderboard.tasks`` (the tasks call the services); a task is looked
up by its registered name, so eager mode, routing and retries are the task's own.
"""

from __future__ import annotations

import logging
from typing import Any

from amqp.exceptions import ChannelError
from celery import current_app

log = logging.getLogger(__name__)
TASKS = "leaderboard.tasks"
WARM_TASK = "warm_split_embeddings"  # services.pipeline.warming's step, sent by reference imports too
WARM_REFUSED = "nothing sends it again: the split's first submission encodes the rest of its references"


def queue_send(task: str, *args: Any, queue: str | None = None,
               if_refused: str = "the sweeper will retry") -> bool:
    """Send ``leaderboard.tasks.<task>(*args)`` (to ``queue`` when given); False when the broker refused it.

    The sweeper re-queues submissions and chunks whose message never left, so a refusal is logged (with
    ``if_refused``, what happens then), not raised."""
    try:
        found = current_app.tasks[f"{TASKS}.{task}"]
        if queue is None:
            found.delay(*args)
        else:
            found.apply_async(args=list(args), queue=queue)
    except Exception:  # the broker may be down
        log.exception("could not enqueue %s%s; %s", task, args, if_refused)
        return False
    return True


def queue_waiting(queue: str | None = None) -> int | None:
    """Messages waiting in ``queue`` (the default queue when None) on the broker, not yet taken by a worker;
    None when the broker cannot say (down, or a transport without counts)."""
    name = queue or current_app.conf.task_default_queue
    try:
        with current_app.connection_for_read() as connection:
            connection.ensure_connection(max_retries=0, timeout=2.0)
            return int(connection.default_channel.queue_declare(queue=name, passive=True).message_count)
    except ChannelError as exc:
        if str(getattr(exc, "reply_code", "")) == "404":  # no such queue (a flushed broker forgets it): none waits
            return 0
        log.warning("could not count the messages waiting in %s", name, exc_info=True)
        return None
    except Exception:  # the broker may be down: nothing to compare with
        log.warning("could not count the messages waiting in %s", name, exc_info=True)
        return None
