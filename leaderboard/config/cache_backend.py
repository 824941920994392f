"""A Redis cache that degrades instead of failing: with Redis down, reads miss and writes are dropped.

Pages then render from the database (slower, never a 500). After an error the backend stops
trying for ``RETRY_AFTER`` seconds, so a Redis that hangs costs one timeout per process per
interval, not one per request. ``/healthz`` pings Redis itself and reports it down.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
RETRY_AFTER = 5.0


class _DegradingClient(RedisCacheClient):
    _down_until = 0.0

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django builds a new redis.Redis (about 170 response callbacks) on every call; one per pool
        # is enough (thread-safe, and the pool itself reconnects after a fork)
        pool = self._get_connection_pool(write)
        clients = self.__dict__.setdefault("_clients", {})
        client = clients.get(id(pool))
        if client is None:
            client = clients[id(pool)] = self._client(connection_pool=pool)
        return client

    def _call(self, name: str, fallback: Any, *args: Any) -> Any:
        if time.monotonic() < self._down_until:
            return fallback
        try:
            return getattr(super(), name)(*args)
        except RedisError as exc:
            self._down_until = time.monotonic() + RETRY_AFTER
            log.warning("cache unavailable (%s: %s); serving from the database for %.0f s",
                        type(exc).__name__, exc, RETRY_AFTER)
            return fallback

    def add(self, key: Any, value: Any, timeout: Any) -> Any:
        return self._call("add", False, key, value, timeout)

    def get(self, key: Any, default: Any) -> Any:
        return self._call("get", default, key, default)

    def set(self, key: Any, value: Any, timeout: Any) -> Any:
        return self._call("set", None, key, value, timeout)

    def touch(self, key: Any, timeout: Any) -> Any:
        return self._call("touch", False, key, timeout)

    def delete(self, key: Any) -> Any:
        return self._call("delete", False, key)

    def get_many(self, keys: Any) -> Any:
        return self._call("get_many", {}, keys)

    def has_key(self, key: Any) -> Any:
        return self._call("has_key", False, key)

    def incr(self, key: Any, delta: Any) -> Any:
        missing = object()
        value = self._call("incr", missing, key, delta)
        if value is missing:
            raise ValueError(f"Key '{key}' not found (cache unavailable)")
        return value

    def set_many(self, data: Any, timeout: Any) -> Any:
        return self._call("set_many", None, data, timeout)

    def delete_many(self, keys: Any) -> Any:
        return self._call("delete_many", None, keys)

    def clear(self) -> Any:
        return self._call("clear", False)


class DegradingRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _DegradingClient
