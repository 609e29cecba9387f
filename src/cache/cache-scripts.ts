/**
 * The result cache's Redis scripts. Each runs atomically, so an entry and its index entries
 * never disagree, whichever API process writes. Layout under one namespace's base
 * `<prefix>:cache:{<namespace>}:` (the braces put a whole namespace in one Redis Cluster slot,
 * which a script touching several of its keys needs):
 *
 *   e:<key>  hash: q (query as stored), c (content, JSON text), ttl (s), tl (trust level),
 *            tg (tags, JSON array), sa (stored at, ms), ea (expires at, ms), h (hits).
 *            Redis expires it after ttl, for memory only: visibility is decided by `ea`
 *            against the service clock.
 *   s        sorted set of keys by stored-at: clearing by older_than reads a range, never the keyspace
 *   x        sorted set of keys by expires-at: each store drops a batch of expired entries
 *   t:<tag>  sorted set of the keys carrying the tag, by expires-at, trimmed of expired keys
 *            whenever it is written or read
 *   n        hash: key -> approximate bytes the entry takes (kept apart from the entry, so an
 *            entry Redis has already expired is still accounted for until it is dropped)
 *   b        the namespace's total of n: a store that takes it past the namespace's budget
 *            evicts the entries nearest expiry (expired ones first, as they sort lowest in x)
 *
 * Every index key expires with its longest-lived member, so a namespace nobody writes to again
 * disappears entirely; one that keeps being written is trimmed by those writes.
 *
 * All or nothing: Redis does not undo a script's writes when it fails halfway, so every script
 * checks what could make it fail (the JSON it decodes) before its first write, and reads what it
 * stored earlier without failing on it. (Out of memory cannot cut one short either: Redis refuses
 * a script's first write then, and lets a script that has written finish.)
 */

/**
 * Removes an entry and its index entries; the entry's tags come from its own hash. tagsOf gives
 * nil for tags that cannot be decoded: stores before the check was added wrote some (a lone
 * surrogate), and such an entry must still go; its tag sets lose it when they are trimmed or expire.
 */
const DROP = `
local function tagsOf(json)
  local ok, tags = pcall(cjson.decode, json)
  if ok then return tags end
  return nil
end
local function drop(base, m)
  local e = base .. 'e:' .. m
  local tags = tagsOf(redis.call('HGET', e, 'tg') or '[]')
  if tags then
    for _, t in ipairs(tags) do redis.call('ZREM', base .. 't:' .. t, m) end
  end
  redis.call('DEL', e)
  redis.call('ZREM', base .. 's', m)
  redis.call('ZREM', base .. 'x', m)
  local bytes = redis.call('HGET', base .. 'n', m)
  if bytes then
    redis.call('HDEL', base .. 'n', m)
    if redis.call('DECRBY', base .. 'b', bytes) <= 0 then redis.call('DEL', base .. 'b') end
  end
end
`;

/**
 * KEYS[1] entry. ARGV: now (ms), 1 to count the read as a hit or 0 not to (a process keeping a
 * near copy counts its hits itself: a write here would invalidate the copy it is making). The
 * entry's fields ({q, c, ttl, tl, tg, sa, ea, h}, h with the hit when counted), or nil when it
 * is absent or expired by the clock (then no hit is counted).
 */
export const GET_SCRIPT = `
local v = redis.call('HMGET', KEYS[1], 'q', 'c', 'ttl', 'tl', 'tg', 'sa', 'ea', 'h')
if not v[1] or tonumber(v[7]) <= tonumber(ARGV[1]) then return false end
if ARGV[2] == '1' then v[8] = redis.call('HINCRBY', KEYS[1], 'h', 1) else v[8] = tonumber(v[8]) end
return v
`;

/**
 * KEYS[1] entry. ARGV: hits, the stored-at (ms) of the entry they were served from. Adds hits
 * served from a process's near copies to the entry's count, unless the entry is gone (HINCRBY
 * alone would recreate it as a bare hash without expiry) or was stored again since (they were
 * hits of its predecessor).
 */
export const HITS_SCRIPT = `
if redis.call('HGET', KEYS[1], 'sa') ~= ARGV[2] then return false end
return redis.call('HINCRBY', KEYS[1], 'h', ARGV[1])
`;

/**
 * KEYS[1] entry. ARGV: base, key, now (ms), expires at (ms), ttl (ms), query, content,
 * ttl (s), trust level, tags (JSON array), how many expired entries to drop first, the entry's
 * approximate size (bytes), the namespace's budget (bytes). Returns {1 when a live entry was
 * replaced else 0, entries evicted to stay within the budget}. The tags are decoded first: tags
 * the decoder refuses fail the store before it writes anything.
 */
export const PUT_SCRIPT = `${DROP}
local tags = cjson.decode(ARGV[10])
local base, m, now, expires, ttlms = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
for _, old in ipairs(redis.call('ZRANGEBYSCORE', base .. 'x', '-inf', now, 'LIMIT', 0, ARGV[11])) do drop(base, old) end
local previous = redis.call('HGET', KEYS[1], 'ea')
local replaced = 0
if previous and tonumber(previous) > tonumber(now) then replaced = 1 end
drop(base, m)
redis.call('HSET', KEYS[1], 'q', ARGV[6], 'c', ARGV[7], 'ttl', ARGV[8], 'tl', ARGV[9], 'tg', ARGV[10], 'sa', now, 'ea', expires, 'h', 0)
redis.call('PEXPIRE', KEYS[1], ttlms)
local function outlive(key)
  if redis.call('PTTL', key) < ttlms then redis.call('PEXPIRE', key, ttlms) end
end
local function index(key, score)
  redis.call('ZADD', key, score, m)
  outlive(key)
end
index(base .. 's', now)
index(base .. 'x', expires)
for _, t in ipairs(tags) do
  local key = base .. 't:' .. t
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  index(key, expires)
end
redis.call('HSET', base .. 'n', m, ARGV[12])
outlive(base .. 'n')
local total = redis.call('INCRBY', base .. 'b', ARGV[12])
outlive(base .. 'b')
local evicted = 0
while total > tonumber(ARGV[13]) do
  local victim = redis.call('ZRANGE', base .. 'x', 0, 0)[1]
  if victim == m then victim = redis.call('ZRANGE', base .. 'x', 1, 1)[1] end
  if not victim then break end
  local ea = redis.call('HGET', base .. 'e:' .. victim, 'ea')
  if ea and tonumber(ea) > tonumber(now) then evicted = evicted + 1 end
  drop(base, victim)
  total = tonumber(redis.call('GET', base .. 'b'))
end
return {replaced, evicted}
`;

/**
 * One batch of a clear. KEYS[1] the set to walk: the stored-at index when ARGV tag is '' (then
 * only members stored before the bound are read), else that tag's set (expired members trimmed
 * first). ARGV: base, now (ms), stored-before bound (ms, or '' for none), offset, batch size,
 * tag. Every member read is dropped unless it was stored at or after the bound. Index entries
 * that no longer match their entry are removed: the entry is gone, or (a tag set written while
 * clocks disagreed) the key was stored again without the tag. Returns {live entries dropped,
 * members kept, members read}: the caller moves the offset past the kept ones and stops after
 * a short batch.
 */
export const CLEAR_BATCH_SCRIPT = `${DROP}
local function carries(json, tag)
  local tags = tagsOf(json)
  -- Tags that cannot be read: the entry goes with any set that lists it.
  if not tags then return true end
  for _, t in ipairs(tags) do
    if t == tag then return true end
  end
  return false
end
local base, now, before, offset, size, tag = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local members
if tag == '' then
  members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. before, 'LIMIT', offset, size)
else
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  members = redis.call('ZRANGE', KEYS[1], offset, offset + size - 1)
end
local deleted, kept = 0, 0
for _, m in ipairs(members) do
  local v = redis.call('HMGET', base .. 'e:' .. m, 'sa', 'ea', 'tg')
  if not v[1] then
    drop(base, m)
    redis.call('ZREM', KEYS[1], m)
  elseif tag ~= '' and not carries(v[3], tag) then
    redis.call('ZREM', KEYS[1], m)
  elseif before ~= '' and tonumber(v[1]) >= tonumber(before) then
    kept = kept + 1
  else
    if tonumber(v[2]) > now then deleted = deleted + 1 end
    drop(base, m)
    -- drop has done this unless the entry's tags could not be read
    redis.call('ZREM', KEYS[1], m)
  end
end
return {deleted, kept, #members}
`;
