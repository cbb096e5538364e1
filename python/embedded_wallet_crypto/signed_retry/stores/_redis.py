"""``RedisStore``: challenges in Redis, shared by every process on every host.

Each challenge is a hash (``record``, ``expires_at_ms``, and ``claimed`` once used) whose key
Redis deletes by its TTL. Storing and claiming are Lua scripts, which Redis runs atomically: the
claim checks the expiry and sets ``claimed`` with HSETNX, so exactly one concurrent claim wins.
With persistence on (AOF), a claimed id stays claimed across a Redis restart.
"""

from __future__ import annotations

import math
from typing import Any

from ..._store_backends import redis_client
from .._records import ChallengeRecord, request_id_conflict, store_unavailable

__all__ = ["RedisStore"]

# KEYS[1] the challenge; ARGV record JSON, expires_at_ms, TTL in ms. 0 when the id exists.
_PUT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'expires_at_ms', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
# KEYS[1] the challenge; ARGV[1] now in ms. 1 exactly for the one claim that wins.
_CLAIM = """
local expires_at_ms = redis.call('HGET', KEYS[1], 'expires_at_ms')
if not expires_at_ms then return 0 end
if tonumber(expires_at_ms) <= tonumber(ARGV[1]) then return 0 end
return redis.call('HSETNX', KEYS[1], 'claimed', '1')
"""


class RedisStore:
    """Challenges in the Redis server at ``url`` (``redis://host:port/db``), under ``key_prefix``.

    Needs the optional ``redis`` package (``pip install embedded-wallet-crypto[redis]``).
    Records are forgotten ``ttl_seconds`` after ``put`` through the key's Redis TTL.
    """

    def __init__(
        self,
        url: str,
        *,
        key_prefix: str = "ewc:signed-retry:",
        socket_timeout_seconds: float = 5.0,
    ) -> None:
        self._client, self._errors = redis_client(url, socket_timeout_seconds)
        self.key_prefix = key_prefix
        self._put = self._client.register_script(_PUT)
        self._claim = self._client.register_script(_CLAIM)

    def _key(self, request_id: str) -> str:
        return self.key_prefix + request_id

    def _call(self, action: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return action(*args, **kwargs)
        except self._errors as problem:
            raise store_unavailable("Redis", problem) from None

    def put(self, record: ChallengeRecord, ttl_seconds: float) -> None:
        ttl_ms = max(1, math.ceil(ttl_seconds * 1000))
        args = [record.to_json(), record.expires_at_ms, ttl_ms]
        if not self._call(self._put, keys=[self._key(record.request_id)], args=args):
            raise request_id_conflict(record.request_id)

    def get(self, request_id: str) -> ChallengeRecord | None:
        text, claimed = self._call(self._client.hmget, self._key(request_id), ["record", "claimed"])
        if text is None:
            return None
        return ChallengeRecord.from_json(text, claimed=claimed is not None)

    def claim(self, request_id: str, now_ms: int) -> bool:
        won = self._call(self._claim, keys=[self._key(request_id)], args=[now_ms])
        return bool(won == 1)

    def close(self) -> None:
        """Release the connection pool."""
        self._call(self._client.close)
