"""``RedisStore``: challenges and one-time codes in Redis, shared by every process on every host,
through one client (one connection pool) under two key prefixes.

Each challenge is a hash (``record``, ``expires_at_ms``, and ``claimed`` once used) whose key
Redis deletes by its TTL. Storing and claiming are Lua scripts, which Redis runs atomically: the
claim checks the expiry and sets ``claimed`` with HSETNX, so exactly one concurrent claim wins.

Each credential's code is a hash as well; issue, attempt and consume are Lua scripts, and the
hash expires by its TTL once the code is dead and the re-issue window has passed. The issue
script reads the server's ``TIME`` itself, so an issue is judged when Redis runs it.

Durability: with the append-only file on and ``appendfsync always``, a claimed id or a used
code is on disk before Redis answers, so it stays so across a crash. The constructor checks
that (``INFO persistence``, ``CONFIG GET appendfsync``) and refuses any other server with
``STORE_NOT_DURABLE`` unless ``durability="best-effort"``. Replication is asynchronous: a
failover to a replica that had not yet received a claim reopens it, unless ``wait_replicas=N``
makes every claim, counted attempt and consume wait (``WAIT``) for N replicas, failing closed.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from ._backends import checked_seconds, redis_client, redis_durability_problem
from ._factors import RedisFactors
from ._records import (
    AttemptStatus,
    ChallengeRecord,
    CodeState,
    IssueLimits,
    IssueOutcome,
    NewCode,
    StoreError,
    request_id_conflict,
    state_from_fields,
    store_config_invalid,
    store_corrupt,
    store_key_invalid,
    store_unavailable,
)

__all__ = ["RedisStore"]

# --- challenge scripts ---
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

# --- code scripts ---
# The same rules as _records.issue_window. KEYS[1] the credential; ARGV now_ms ('' for the
# server's TIME, read here, inside the script, which Redis runs atomically), code_hash, issue_id,
# expires_at_ms ('' for now + ttl_ms), ttl_ms, min_interval_ms, window_ms, max_issues,
# forget_after_ms. Returns {retry_after_ms (0 when issued), now_ms, expires_at_ms}.
_ISSUE = """
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
local window_start, window_issues = now, 1
local last = redis.call('HGET', KEYS[1], 'last_issue_ms')
if last then
  local since = now - tonumber(last)
  if since < tonumber(ARGV[6]) then return {tonumber(ARGV[6]) - since, now, 0} end
  local start = tonumber(redis.call('HGET', KEYS[1], 'window_start_ms'))
  local issues = tonumber(redis.call('HGET', KEYS[1], 'window_issues'))
  if now - start < tonumber(ARGV[7]) then
    if issues >= tonumber(ARGV[8]) then return {start + tonumber(ARGV[7]) - now, now, 0} end
    window_start, window_issues = start, issues + 1
  end
end
local expires_at = now + tonumber(ARGV[5])
if ARGV[4] ~= '' then expires_at = tonumber(ARGV[4]) end
redis.call('HSET', KEYS[1], 'code_hash', ARGV[2], 'issue_id', ARGV[3],
  'expires_at_ms', string.format('%d', expires_at), 'attempts', 0, 'used', 0,
  'window_start_ms', string.format('%d', window_start), 'window_issues', window_issues,
  'last_issue_ms', string.format('%d', now))
redis.call('PEXPIRE', KEYS[1], math.max(1, expires_at - now, tonumber(ARGV[9])))
return {0, now, expires_at}
"""
# The same rules as _records.attempt_status. KEYS[1] the credential; ARGV now_ms, max_attempts.
# Returns {status} or {'ok', the fields of CodeState after counting the attempt}.
_ATTEMPT = """
local f = redis.call('HMGET', KEYS[1], 'code_hash', 'issue_id', 'expires_at_ms', 'attempts',
  'used', 'window_start_ms', 'window_issues', 'last_issue_ms')
if not f[1] then return {'not_issued'} end
if f[5] == '1' then return {'used'} end
if tonumber(ARGV[1]) >= tonumber(f[3]) then return {'expired'} end
if tonumber(f[4]) >= tonumber(ARGV[2]) then return {'exhausted'} end
f[4] = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
return {'ok', f[1], f[2], f[3], tostring(f[4]), f[5], f[6], f[7], f[8]}
"""
# KEYS[1] the credential; ARGV[1] issue_id. 1 exactly for the call that marks it used.
_CONSUME = """
if redis.call('HGET', KEYS[1], 'issue_id') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'used') ~= '0' then return 0 end
redis.call('HSET', KEYS[1], 'used', 1)
return 1
"""
_STATUSES: tuple[AttemptStatus, ...] = ("ok", "not_issued", "used", "expired", "exhausted")


class RedisStore(RedisFactors):
    """Challenges and one-time codes in the Redis server at ``url`` (``redis://host:port/db``).

    Challenges live under ``key_prefix + "signed-retry:"`` and codes under
    ``key_prefix + "otp:"`` (with the default ``"ewc:"``, the keys of earlier releases).
    Needs the optional ``redis`` package (``pip install embedded-wallet-crypto[redis]``).
    Challenges are forgotten ``ttl_seconds`` after ``put`` through the key's Redis TTL.

    ``durability="strict"`` (the default) connects at once and refuses a server that could
    lose a claim in a crash (no AOF, ``appendfsync`` other than ``always``, or ``CONFIG``
    disabled so that it cannot tell) with ``STORE_NOT_DURABLE`` (500);
    ``durability="best-effort"`` skips the check. ``wait_replicas=N`` sends ``WAIT N`` after
    each claim, counted attempt and consume, on the same connection; if fewer than N replicas
    acknowledge within ``wait_timeout_seconds``, the call raises ``STORE_UNAVAILABLE`` (503)
    and grants nothing (the id or code stays used on the primary: the client starts again).
    A malformed ``url`` or option is ``STORE_CONFIG_INVALID``; a failing server
    ``STORE_UNAVAILABLE``.
    """

    def __init__(
        self,
        url: str,
        *,
        durability: Literal["strict", "best-effort"] = "strict",
        wait_replicas: int = 0,
        wait_timeout_seconds: float = 1.0,
        key_prefix: str = "ewc:",
        socket_timeout_seconds: float = 5.0,
    ) -> None:
        if durability not in ("strict", "best-effort"):
            raise store_config_invalid("RedisStore's durability must be 'strict' or 'best-effort'")
        if isinstance(wait_replicas, bool) or not isinstance(wait_replicas, int):
            raise TypeError(f"wait_replicas must be an int, not {type(wait_replicas).__name__}")
        if not 0 <= wait_replicas <= 1000:
            raise store_config_invalid("RedisStore's wait_replicas must be between 0 and 1000")
        wait_timeout_seconds = checked_seconds(
            wait_timeout_seconds, "wait_timeout_seconds", zero_allowed=False, most=3600
        )
        socket_timeout_seconds = checked_seconds(
            socket_timeout_seconds, "socket_timeout_seconds", zero_allowed=False, most=3600
        )
        self._client, self._errors = redis_client(url, socket_timeout_seconds)
        self.durability = durability
        self.wait_replicas = wait_replicas
        self._wait_timeout_ms = max(1, math.ceil(wait_timeout_seconds * 1000))
        self.key_prefix = key_prefix
        self.challenge_prefix = key_prefix + "signed-retry:"
        self.code_prefix = key_prefix + "otp:"
        self._put = self._client.register_script(_PUT)
        self._claim = self._client.register_script(_CLAIM)
        self._issue = self._client.register_script(_ISSUE)
        self._attempt = self._client.register_script(_ATTEMPT)
        self._consume = self._client.register_script(_CONSUME)
        self._register_factor_scripts()
        if durability == "strict":
            import redis

            try:
                problem = self._call(redis_durability_problem, self._client, redis.ResponseError)
            except StoreError:
                self._client.close()
                raise
            if problem is not None:
                self._client.close()
                raise problem

    def _call(self, action: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return action(*args, **kwargs)
        except StoreError:
            raise
        except UnicodeEncodeError:  # a lone surrogate in a key
            raise store_key_invalid() from None
        except self._errors as problem:
            raise store_unavailable("Redis", problem) from None

    def _replicated(self, script: Any, key: str, args: list[Any]) -> Any:
        """Run ``script``, then (with ``wait_replicas``) ``WAIT`` on the same connection: WAIT
        counts the replicas that have this connection's writes. Fails closed on a shortfall."""
        if not self.wait_replicas:
            return self._call(script, keys=[key], args=args)
        pipe = self._client.pipeline(transaction=False)
        script(keys=[key], args=args, client=pipe)
        pipe.wait(self.wait_replicas, self._wait_timeout_ms)
        reply, acknowledged = self._call(pipe.execute)
        if int(acknowledged) < self.wait_replicas:
            raise StoreError(
                f"only {int(acknowledged)} of {self.wait_replicas} Redis replicas acknowledged "
                f"the write within {self._wait_timeout_ms} ms; it is not granted",
                "STORE_UNAVAILABLE",
                503,
            )
        return reply

    # --- signed-retry challenges (ChallengeStore) -----------------------------------------

    def put(self, record: ChallengeRecord, ttl_seconds: float) -> None:
        ttl_ms = max(1, math.ceil(ttl_seconds * 1000))
        args = [record.to_json(), record.expires_at_ms, ttl_ms]
        key = self.challenge_prefix + record.request_id
        if not self._call(self._put, keys=[key], args=args):
            raise request_id_conflict(record.request_id)

    def get(self, request_id: str) -> ChallengeRecord | None:
        key = self.challenge_prefix + request_id
        text, claimed = self._call(self._client.hmget, key, ["record", "claimed"])
        if text is None:
            return None
        return ChallengeRecord.from_json(text, claimed=claimed is not None)

    def claim(self, request_id: str, now_ms: int) -> bool:
        won = self._replicated(self._claim, self.challenge_prefix + request_id, [now_ms])
        return bool(won == 1)

    # --- one-time codes (CodeStore) -------------------------------------------------------

    def issue(
        self, key: str, code: NewCode, now_ms: int | None, limits: IssueLimits
    ) -> IssueOutcome:
        args = [
            "" if now_ms is None else now_ms,
            code.code_hash,
            code.issue_id,
            "" if code.expires_at_ms is None else code.expires_at_ms,
            code.ttl_ms,
            limits.min_interval_ms,
            limits.window_ms,
            limits.max_issues,
            limits.forget_after_ms,
        ]
        reply = self._call(self._issue, keys=[self.code_prefix + key], args=args)
        try:
            retry_after_ms, decided_ms, expires_at_ms = (int(field) for field in reply)
        except (TypeError, ValueError):
            raise store_corrupt("a stored one-time code record is corrupt") from None
        return IssueOutcome(retry_after_ms, decided_ms, expires_at_ms)

    def attempt(
        self, key: str, now_ms: int, max_attempts: int
    ) -> tuple[AttemptStatus, CodeState | None]:
        reply = self._replicated(self._attempt, self.code_prefix + key, [now_ms, max_attempts])
        raw_status = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
        status = next((s for s in _STATUSES if s == raw_status), None)
        if status is None:
            raise store_corrupt("a stored one-time code record is corrupt")
        return status, state_from_fields(reply[1:]) if status == "ok" else None

    def consume(self, key: str, issue_id: str) -> bool:
        return bool(self._replicated(self._consume, self.code_prefix + key, [issue_id]) == 1)

    def close(self) -> None:
        """Release the connection pool."""
        self._call(self._client.close)
