"""The Lua scripts behind the Redis stores, kept apart from the Python that calls them.

Every operation that reads or writes more than one value runs as one script, so it is atomic
on the server: an append cannot interleave with another, a commit checks (epoch, version,
watermark) and writes in one step, and a load reads the metadata and ``history[k:]`` as one
snapshot. Redis does not roll a script back when a command in it fails, so each script checks
everything it can before its first write. All keys of one call belong to one session, so they
share a hash slot (see ``_RedisBase._keys``) and the scripts run unchanged on Redis Cluster.

Key layout (``KEYS``): 1 ``meta`` hash (epoch, version, watermark, system, summary), 2 ``msgs``
list (encoded messages, position = index), 3 ``sums`` list (the summary log, JSON entries
``{"id", "w", "m"}``), 4 ``lease`` string (the owner token, with a TTL), 5 ``ids`` hash (message
id -> position, so appends are idempotent by id; ``meta.indexed`` says how many positions it
covers, and an append first indexes any the hash lacks, e.g. in a session written before it
existed or by a whole-session create), 6 ``branches`` hash (branch id -> JSON record
``{"q" seq, "at", "n" length, "t" time, "s" summary id, "w" watermark, "o" offset}``), 7
``bmsgs`` list (every branch's abandoned messages, a branch's at ``o .. o + n - 1``), 8
``abandoned`` hash (1-based index in ``sums`` -> the branch that abandoned that summary).
Scripts take the keys they use, in the order their comments give. A create whose history
is too long for one call first stages it in a private list ``...:import:<token>`` of the same
slot (with a TTL, so a crashed creator leaves nothing for long), renamed into place at the end.
The session index ``<prefix>:sessions`` (every session id, score 0) has no hash tag, so no
script of a session may touch it: the store writes it in calls of its own (see ``_APPEND``).
The spend ledger of a budget key is one sorted set ``<prefix>:spend:{<key>}`` (its own slot),
and the holds of its calls in flight one hash ``<prefix>:spend:{<key>}:holds`` (the same slot):
a reservation reads both and holds in one script, so racing reservations never pass a limit.
"""

from __future__ import annotations

__all__ = ["SCRIPTS"]

# Creates the session when its meta hash is missing (ARGV[1] is a fresh epoch); stale lists
# are dropped so a new session can never inherit old messages or branches.
# KEYS: meta, msgs, sums, ids, branches, bmsgs, abandoned.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'version', 0, 'watermark', 0, 'indexed', 0)
end
"""

# Stamps ``meta.updated`` (Unix seconds, the server's clock) on a write, in the writing script:
# a listing's "last activity" costs no round trip. A script using it starts with
# ``redis.replicate_commands()`` (TIME before a write: effects replication, the default from
# Redis 5 on). KEYS[1] is meta.
_TOUCH = """
redis.replicate_commands()
local function touch()
  local t = redis.call('TIME')
  redis.call('HSET', KEYS[1], 'updated', t[1] .. '.' .. string.format('%06d', tonumber(t[2])))
end
"""

# Compare-and-set prelude: ARGV[1] expected epoch ('' = any), ARGV[2] expected version.
# Leaves `version` and `wm` (numbers) in scope.
_CAS = """
local cur = redis.call('HMGET', KEYS[1], 'epoch', 'version', 'watermark')
if not cur[1] then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {'corrupt'} end
  return {'missing'}
end
local version, wm = tonumber(cur[2]), tonumber(cur[3])
if not version or not wm then return {'corrupt'} end
if ARGV[1] ~= '' and cur[1] ~= ARGV[1] then return {'epoch'} end
if version ~= tonumber(ARGV[2]) then return {'version', version} end
"""

_LOAD = """
local meta = redis.call('HGETALL', KEYS[1])
if #meta == 0 then return false end
local k = nil
for i = 1, #meta, 2 do
  if meta[i] == 'watermark' then k = tonumber(meta[i + 1]) end
end
if not k or k < 0 or k ~= math.floor(k) then return {meta, {}, -1} end
return {meta, redis.call('LRANGE', KEYS[2], k, -1), redis.call('LLEN', KEYS[2])}
"""

# KEYS: meta, msgs. Returns {epoch, version, length}, or nil for no session.
_PROBE = """
local cur = redis.call('HMGET', KEYS[1], 'epoch', 'version')
if not cur[1] and redis.call('EXISTS', KEYS[1]) == 0 then return false end
return {cur[1], cur[2], redis.call('LLEN', KEYS[2])}
"""

# ARGV[1] start, ARGV[2] stop ('' = end), Python slice semantics. Returns {start, messages}.
_HISTORY = """
local n = redis.call('LLEN', KEYS[1])
local lo, hi = tonumber(ARGV[1]), n
if ARGV[2] ~= '' then hi = tonumber(ARGV[2]) end
if lo < 0 then lo = math.max(0, n + lo) else lo = math.min(lo, n) end
if hi < 0 then hi = math.max(0, n + hi) else hi = math.min(hi, n) end
if hi <= lo then return {lo, {}} end
return {lo, redis.call('LRANGE', KEYS[1], lo, hi - 1)}
"""

# Brings the ids hash (KEYS[4]) up to position `upto` of the n messages of KEYS[2], from
# meta's `indexed` (KEYS[1]); returns how far it now covers.
_CATCH_UP = """
local function catch_up(n, upto)
  local done = tonumber(redis.call('HGET', KEYS[1], 'indexed')) or 0
  if done > n or done < 0 then
    redis.call('DEL', KEYS[4])
    done = 0
  end
  while done < upto do
    local hi = math.min(done + 499, upto - 1)
    local bodies = redis.call('LRANGE', KEYS[2], done, hi)
    for j = 1, #bodies do
      local ok, e = pcall(cjson.decode, bodies[j])
      if ok and type(e) == 'table' and type(e['id']) == 'string' then
        redis.call('HSETNX', KEYS[4], e['id'], done + j - 1)
      end
    end
    done = hi + 1
  end
  return done
end
"""

# Appends a batch at position `at` of KEYS[2]: m messages, their ids at ARGV[first + 1 ..
# first + m] and bodies at ARGV[first + m + 1 .. first + 2m]; an id the ids hash (KEYS[4])
# holds, or repeated in the batch, is skipped. Returns the new length.
_PUSH_FRESH = """
local function push_fresh(m, first, at)
  local fresh, ids, seen = {}, {}, {}
  for i = 1, m do
    local id = ARGV[first + i]
    if not seen[id] and redis.call('HEXISTS', KEYS[4], id) == 0 then
      seen[id] = true
      ids[#ids + 1] = id
      fresh[#fresh + 1] = ARGV[first + m + i]
    end
  end
  for i = 1, #fresh, 1000 do
    redis.call('RPUSH', KEYS[2], unpack(fresh, i, math.min(i + 999, #fresh)))
  end
  for i = 1, #ids do
    redis.call('HSET', KEYS[4], ids[i], at + i - 1)
  end
  redis.call('HSET', KEYS[1], 'indexed', at + #fresh)
  return at + #fresh
end
"""

# KEYS: meta, msgs, sums, ids, and, only when ARGV[1] is an epoch, branches, bmsgs, abandoned
# (a session is created only then). ARGV[1] the epoch for a new session, or '' to create none:
# then a missing session replies -1 and nothing is written (the caller indexes the session,
# ``<prefix>:sessions``, then calls again with an epoch: a session is in the index before it
# exists). ARGV[2] the batch size m, ARGV[3 .. m+2] the message ids, ARGV[m+3 .. 2m+2] the
# encoded messages. A message whose id is stored (or repeats one earlier in the batch) is
# skipped. Returns the new length; with ARGV[2m+3] '1' (``append_probe``), {length, epoch,
# version}, read after the append in the same script (one more HMGET).
#
# The path of every turn (an existing session, one message, its ids hash caught up) makes six
# calls, each O(1) whatever the history's length: HMGET, LLEN, HSETNX (the id, at the new
# position: only a new id takes it), RPUSH, TIME and one HSET of meta (``indexed`` and
# ``updated``). LLEN runs before the first write, so a key of the wrong type fails the script
# with nothing written.
_APPEND = (
    _TOUCH
    + _CATCH_UP
    + _PUSH_FRESH
    + """
local m = tonumber(ARGV[2])
local function reply(n)
  if ARGV[2 * m + 3] ~= '1' then return n end
  local now = redis.call('HMGET', KEYS[1], 'epoch', 'version')
  return {n, now[1] or false, now[2] or false}
end
if m == 0 then return reply(redis.call('LLEN', KEYS[2])) end
local cur = redis.call('HMGET', KEYS[1], 'epoch', 'indexed')
if not cur[1] and redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[1] == '' then return -1 end
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'version', 0, 'watermark', 0, 'indexed', 0)
  cur[2] = '0'
end
local n = redis.call('LLEN', KEYS[2])
if m == 1 and tonumber(cur[2]) == n then
  if redis.call('HSETNX', KEYS[4], ARGV[3], n) == 1 then
    n = redis.call('RPUSH', KEYS[2], ARGV[4])
  end
  local t = redis.call('TIME')
  redis.call('HSET', KEYS[1], 'indexed', n,
    'updated', t[1] .. '.' .. string.format('%06d', tonumber(t[2])))
  return reply(n)
end
catch_up(n, n)
touch()
return reply(push_fresh(m, 2, n))
"""
)

# KEYS: meta, msgs, sums, ids, branches, bmsgs, abandoned. ARGV[1] epoch for a new session
# ('' = create none: a missing session replies -1, as for an append), ARGV[2] the encoded
# system message ('' = remove).
_SET_SYSTEM = (
    _TOUCH
    + """
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], 'system')
  return 0
end
if ARGV[1] == '' and redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
"""
    + _CREATE
    + """
redis.call('HSET', KEYS[1], 'system', ARGV[2])
touch()
return 1
"""
)

# Stubs the log's entries older than the latest ``keep`` (KEYS: meta, msgs, sums).
# ``meta.stubs`` counts the log's leading entries already stubs; each entry past the latest
# ``keep`` gets its stub ("d") as its body ("m") and is marked "x". An entry logged without
# "d" (by a release before the bounded log) stops the walk: it is returned, {position, entry},
# for the caller to make its stub (``_STUB_LEGACY``), so the work of one call stays bounded.
_STUB_OLD = """
local function stub_old(keep)
  local len = redis.call('LLEN', KEYS[3])
  local s = tonumber(redis.call('HGET', KEYS[1], 'stubs')) or 0
  local found = nil
  while len - s > keep do
    local raw = redis.call('LINDEX', KEYS[3], s)
    local ok, e = pcall(cjson.decode, raw)
    if ok and type(e) == 'table' and not e['x'] then
      if type(e['d']) == 'string' then
        e['m'], e['d'], e['x'] = e['d'], nil, 1
        redis.call('LSET', KEYS[3], s, cjson.encode(e))
      elseif type(e['m']) == 'string' and type(e['id']) == 'string' then
        found = {s, raw}
        break
      end
    end
    s = s + 1
  end
  redis.call('HSET', KEYS[1], 'stubs', s)
  return found
end
"""

# ARGV[3] watermark, ARGV[4] encoded summary ('' = none), ARGV[5] log entry ('' = none),
# ARGV[6] keep_summaries ('' = every entry whole). Returns {'ok', version} and, when the walk
# of ``stub_old`` met an entry of an older release, its {position, entry} after them.
_COMMIT = (
    _TOUCH
    + _STUB_OLD
    + _CAS
    + """
local w = tonumber(ARGV[3])
if w < wm then return {'backwards', wm} end
local n = redis.call('LLEN', KEYS[2])
if w > n then return {'past_end', n} end
local legacy = nil
if ARGV[5] ~= '' then
  redis.call('RPUSH', KEYS[3], ARGV[5])
  local keep = tonumber(ARGV[6])
  if keep then legacy = stub_old(keep) end
end
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[1], 'summary')
else
  redis.call('HSET', KEYS[1], 'summary', ARGV[4])
end
redis.call('HSET', KEYS[1], 'watermark', ARGV[3])
touch()
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
if legacy then return {'ok', version, legacy[1], legacy[2]} end
return {'ok', version}
"""
)

# The stub of an entry an older release logged (whole, without "d"). KEYS: meta, msgs, sums.
# ARGV[1] its position, ARGV[2] its id, ARGV[3] its stub ('' = leave it whole: it cannot be
# read), ARGV[4] keep. Only that entry, still whole and at the head of what is not yet stubbed,
# is changed; then the walk goes on (``stub_old``): {position, entry} of the next such entry,
# or nil.
_STUB_LEGACY = (
    _STUB_OLD
    + """
local at = tonumber(ARGV[1])
if tonumber(redis.call('HGET', KEYS[1], 'stubs')) ~= at then return false end
local ok, e = pcall(cjson.decode, redis.call('LINDEX', KEYS[3], at) or '')
if not ok or type(e) ~= 'table' or e['id'] ~= ARGV[2] or e['x'] or e['d'] then return false end
if ARGV[3] ~= '' then
  e['m'], e['x'] = ARGV[3], 1
  redis.call('LSET', KEYS[3], at, cjson.encode(e))
end
redis.call('HSET', KEYS[1], 'stubs', at + 1)
return stub_old(tonumber(ARGV[4])) or false
"""
)

# KEYS: meta, msgs, sums, abandoned. ARGV[3] '1' to restore the summary whose id is ARGV[4],
# '0' for no summary.
_ROLLBACK = (
    _TOUCH
    + _CAS
    + """
if ARGV[3] == '0' then
  redis.call('HDEL', KEYS[1], 'summary')
  redis.call('HSET', KEYS[1], 'watermark', 0)
  touch()
  return {'ok', redis.call('HINCRBY', KEYS[1], 'version', 1)}
end
-- the log is read from its end, a page at a time: a rollback to a recent summary (the
-- whole ones are the latest) reads a page, not the whole log
local hi = redis.call('LLEN', KEYS[3])
while hi > 0 do
  local lo = math.max(0, hi - 100)
  local page = redis.call('LRANGE', KEYS[3], lo, hi - 1)
  for j = #page, 1, -1 do
    local i = lo + j  -- 1-based, as the abandoned hash counts
    local ok, e = pcall(cjson.decode, page[j])
    if not ok or type(e) ~= 'table' then return {'corrupt'} end
    if e['id'] == ARGV[4] then
      local by = redis.call('HGET', KEYS[4], tostring(i))
      if by then return {'abandoned', by} end
      if e['x'] then return {'dropped'} end
      local w = tonumber(e['w'])
      if not w or type(e['m']) ~= 'string' or w < 0 or w > redis.call('LLEN', KEYS[2]) then
        return {'corrupt'}
      end
      redis.call('HSET', KEYS[1], 'summary', e['m'], 'watermark', w)
      touch()
      return {'ok', redis.call('HINCRBY', KEYS[1], 'version', 1)}
    end
  end
  hi = lo
end
return {'unknown'}
"""
)

# Store.rewrite. KEYS: meta, msgs, sums, ids, branches, bmsgs, abandoned. ARGV[1] expected
# epoch, ARGV[2] expected version, ARGV[3] keep, ARGV[4] branch id, ARGV[5] expected length
# ('' = any), ARGV[6] the batch size m, ARGV[7 .. m+6] the new ids, ARGV[m+7 .. 2m+6] their
# encoded messages. A branch already recorded is a retry: {'ok', version}, nothing written.
_REWRITE = (
    _TOUCH
    + """
if redis.call('HEXISTS', KEYS[5], ARGV[4]) == 1 and redis.call('EXISTS', KEYS[1]) == 1 then
  return {'ok', tonumber(redis.call('HGET', KEYS[1], 'version')) or -1}
end
"""
    + _CAS
    + _CATCH_UP
    + _PUSH_FRESH
    + """
local n = redis.call('LLEN', KEYS[2])
if ARGV[5] ~= '' and tonumber(ARGV[5]) ~= n then return {'length', n} end
local keep = tonumber(ARGV[3])
if keep < 0 or keep > n then return {'keep', n} end
local done = catch_up(n, keep)
local moved = {}
if keep < n then moved = redis.call('LRANGE', KEYS[2], keep, -1) end
for j = 1, math.min(#moved, done - keep) do
  local ok, e = pcall(cjson.decode, moved[j])
  if ok and type(e) == 'table' and type(e['id']) == 'string'
      and tonumber(redis.call('HGET', KEYS[4], e['id'])) == keep + j - 1 then
    redis.call('HDEL', KEYS[4], e['id'])
  end
end
local offset = redis.call('LLEN', KEYS[6])
for i = 1, #moved, 1000 do
  redis.call('RPUSH', KEYS[6], unpack(moved, i, math.min(i + 999, #moved)))
end
if keep == 0 then redis.call('DEL', KEYS[2]) else redis.call('LTRIM', KEYS[2], 0, keep - 1) end
local sid = ''
local body = redis.call('HGET', KEYS[1], 'summary')
if body then
  local ok, e = pcall(cjson.decode, body)
  if ok and type(e) == 'table' and type(e['id']) == 'string' then sid = e['id'] end
end
local now = redis.call('TIME')
redis.call('HSET', KEYS[5], ARGV[4], cjson.encode({
  q = redis.call('HLEN', KEYS[5]) + 1, at = keep, n = #moved, s = sid, w = wm, o = offset,
  t = now[1] .. '.' .. string.format('%06d', tonumber(now[2]))}))
local log = redis.call('LRANGE', KEYS[3], 0, -1)
local back, back_w = nil, 0
for i = 1, #log do
  local ok, e = pcall(cjson.decode, log[i])
  if not ok or type(e) ~= 'table' or not tonumber(e['w']) then return {'corrupt'} end
  local free = redis.call('HEXISTS', KEYS[7], tostring(i)) == 0
  if tonumber(e['w']) > keep then
    if free then redis.call('HSET', KEYS[7], tostring(i), ARGV[4]) end
  elseif free and not e['x'] then
    back, back_w = e['m'], tonumber(e['w'])
  end
end
if wm > keep then
  if back then
    redis.call('HSET', KEYS[1], 'summary', back, 'watermark', back_w)
  else
    redis.call('HDEL', KEYS[1], 'summary')
    redis.call('HSET', KEYS[1], 'watermark', 0)
  end
end
push_fresh(tonumber(ARGV[6]), 6, keep)
touch()
return {'ok', redis.call('HINCRBY', KEYS[1], 'version', 1)}
"""
)

# KEYS: branches, bmsgs. ARGV[1] the branch id. Returns {record, messages}, or nil.
_BRANCH_MESSAGES = """
local rec = redis.call('HGET', KEYS[1], ARGV[1])
if not rec then return false end
local ok, e = pcall(cjson.decode, rec)
if not ok or type(e) ~= 'table' or not tonumber(e['o']) or not tonumber(e['n']) then
  return {rec, {}}
end
if tonumber(e['n']) == 0 then return {rec, {}} end
return {rec, redis.call('LRANGE', KEYS[2], e['o'], e['o'] + e['n'] - 1)}
"""

# Staging a long history for a create: KEYS[1] the staging list (private to one create, in the
# session's hash slot), KEYS[2] the session's meta. ARGV[1] the staging TTL in milliseconds,
# ARGV[2..] encoded messages. Fails early when the session exists.
_STAGE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return {'exists'} end
local n = 0
for i = 2, #ARGV, 1000 do
  n = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return {'ok', n}
"""

# Creating a whole session. KEYS: meta, msgs, sums, the staging list, ids (emptied: the next
# append indexes the history), branches, bmsgs, abandoned (emptied). ARGV[1] epoch, ARGV[2]
# watermark, ARGV[3] system ('' = none), ARGV[4] summary ('' = none), ARGV[5] its log entry,
# ARGV[6] how many messages were staged, ARGV[7..] the rest of the history. Everything is
# checked before the first write; the staged list becomes the history by RENAME.
_CREATE_WHOLE = (
    _TOUCH
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('DEL', KEYS[4])
  return {'exists'}
end
local staged = tonumber(ARGV[6])
if staged > 0 and redis.call('LLEN', KEYS[4]) ~= staged then
  local found = redis.call('LLEN', KEYS[4])
  redis.call('DEL', KEYS[4])
  return {'staging', found}
end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
if staged > 0 then redis.call('RENAME', KEYS[4], KEYS[2]) end
for i = 7, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'version', 0, 'watermark', ARGV[2], 'indexed', 0)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'system', ARGV[3]) end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'summary', ARGV[4])
  redis.call('RPUSH', KEYS[3], ARGV[5])
end
touch()
return {'ok', redis.call('LLEN', KEYS[2])}
"""
)

# KEYS: meta, msgs, sums, ids, branches, bmsgs, abandoned.
_CLEAR = (
    _TOUCH
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if not tonumber(redis.call('HGET', KEYS[1], 'version')) then return -1 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
redis.call('HDEL', KEYS[1], 'summary', 'system', 'stubs')
redis.call('HSET', KEYS[1], 'watermark', 0, 'indexed', 0)
redis.call('HINCRBY', KEYS[1], 'version', 1)
touch()
return 1
"""
)

_DELETE = """
local existed = redis.call('EXISTS', KEYS[1])
redis.call('DEL', unpack(KEYS))
return existed
"""

# ARGV[1] owner, ARGV[2] TTL in milliseconds.
_ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# The spend ledger: KEYS[1] a sorted set of entries ("<token>:<tokens>:<cost>") scored by
# time. ARGV[1] time, ARGV[2] entry, ARGV[3] prune entries at or before this time ('' = none).
_RECORD_SPEND = """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1
"""

# Summed on the server: a tenant's week of entries never crosses the network. Entries are
# "<uuid>:<tokens>:<cost>"; the totals come back as strings (a Lua number would be cut to an
# integer), or the first entry that is not one, for the caller to report.
_SPENT_SINCE = """
local tokens, cost = 0, 0
for _, entry in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf')) do
  local used, spent = string.match(entry, '^[^:]*:([^:]*):([^:]*)$')
  local t, c = tonumber(used or ''), tonumber(spent or '')
  if t == nil or c == nil then return {'bad', entry} end
  tokens, cost = tokens + t, cost + c
end
return {'ok', string.format('%d', tokens), string.format('%.17g', cost)}
"""

# Sums the live holds of KEYS[2] (hold id -> "<expires_at>:<tokens>:<cost>"), dropping those
# expired at ARGV[1] (now), leaving out ARGV[3] (the hold being taken); leaves `ht`, `hc`, or
# returns the first hold that is not one, for the caller to report.
_HELD = """
local at, ht, hc = tonumber(ARGV[1]), 0, 0
local holds = redis.call('HGETALL', KEYS[2])
for i = 1, #holds, 2 do
  local e, u, s = string.match(holds[i + 1], '^([^:]*):([^:]*):([^:]*)$')
  local exp, t, c = tonumber(e or ''), tonumber(u or ''), tonumber(s or '')
  if exp == nil or t == nil or c == nil then return {'bad', holds[i + 1]} end
  if exp <= at then
    redis.call('HDEL', KEYS[2], holds[i])
  elseif holds[i] ~= ARGV[3] then
    ht, hc = ht + t, hc + c
  end
end
"""

# Reserve: KEYS[1] the ledger, KEYS[2] its holds. ARGV[1] now, ARGV[2] window start (ZRANGE
# bound), ARGV[3] hold id, ARGV[4] the hold ("<expires_at>:<tokens>:<cost>"), ARGV[5] max
# tokens ('' = none), ARGV[6] max cost ('' = none), ARGV[7] the hold's TTL in milliseconds.
_RESERVE_SPEND = (
    _HELD
    + """
local tokens, cost = ht, hc
for _, entry in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], '+inf')) do
  local used, spent = string.match(entry, '^[^:]*:([^:]*):([^:]*)$')
  local t, c = tonumber(used or ''), tonumber(spent or '')
  if t == nil or c == nil then return {'bad', entry} end
  tokens, cost = tokens + t, cost + c
end
local over = (ARGV[5] ~= '' and tokens >= tonumber(ARGV[5]))
  or (ARGV[6] ~= '' and cost >= tonumber(ARGV[6]))
if not over then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[7]) then
    redis.call('PEXPIRE', KEYS[2], ARGV[7])
  end
end
return {over and 'no' or 'yes', string.format('%d', tokens), string.format('%.17g', cost)}
"""
)

# Settle: KEYS[1] the ledger, KEYS[2] its holds; ARGV[1..4] as for _RECORD_SPEND (the entry is
# "<hold id>:<tokens>:<cost>", so a settle sent twice adds it once), ARGV[5] the hold id.
_SETTLE_SPEND = """
redis.call('HDEL', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1
"""

SCRIPTS: dict[str, str] = {
    "load": _LOAD,
    # KEYS: meta, msgs, sums (one slot). A listing's row, no message read: false for none.
    "info": (
        "if redis.call('EXISTS', KEYS[1]) == 0 then return false end "
        "return {redis.call('HMGET', KEYS[1], 'version', 'watermark', 'summary', 'updated'), "
        "redis.call('LLEN', KEYS[2]), redis.call('LLEN', KEYS[3])}"
    ),
    "exists": "return redis.call('EXISTS', KEYS[1])",
    "probe": _PROBE,
    "history": _HISTORY,
    "append": _APPEND,
    "set_system": _SET_SYSTEM,
    "commit": _COMMIT,
    "stub_legacy": _STUB_LEGACY,
    "stage": _STAGE,
    "create": _CREATE_WHOLE,
    "discard": "return redis.call('DEL', KEYS[1])",
    "summaries": "return redis.call('LRANGE', KEYS[1], 0, -1)",
    "rollback": _ROLLBACK,
    "rewrite": _REWRITE,
    "branches": "return redis.call('HGETALL', KEYS[1])",
    "branch_messages": _BRANCH_MESSAGES,
    "clear": _CLEAR,
    "delete": _DELETE,
    "acquire_lease": _ACQUIRE,
    "release_lease": _RELEASE,
    "record_spend": _RECORD_SPEND,
    "spent_since": _SPENT_SINCE,
    "reserve_spend": _RESERVE_SPEND,
    "settle_spend": _SETTLE_SPEND,
    "release_spend": "return redis.call('HDEL', KEYS[1], ARGV[1])",
}
"""Script name -> Lua source; each store registers them all on its client."""
