import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { toRecord, type RateLimitStore, type SlidingWindowRecord } from './sliding-window';

/**
 * One decision, atomic in Redis (a script runs alone), over a sorted set of accepted requests
 * scored by Redis TIME in microseconds, so every instance reads the same clock and two instances
 * can never both take the last slot. Refused requests are not added.
 * Numbers are passed to redis.call as strings formatted with %.0f: Lua's default number format
 * (%.14g) would round a 16-digit microsecond time.
 * Returns { accepted (0/1), requests in the window, microseconds until there is room }.
 */
const TAKE_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function s(n) return string.format('%.0f', n) end
redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. s(now - window))
local count = redis.call('ZCARD', key)
local accepted = 0
if count < limit then
  redis.call('ZADD', key, s(now), s(now) .. ':' .. ARGV[3])
  count = count + 1
  accepted = 1
end
redis.call('PEXPIRE', key, s(math.ceil(window / 1000) + 1000))
local untilRoom = 0
if count >= limit then
  local blocking = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  untilRoom = tonumber(blocking[2]) + window + 1 - now
end
return { accepted, count, untilRoom }
`;

type TakeCommand = (key: string, limit: number, windowUs: number, member: string) => Promise<[number, number, number]>;

/** The shared store: counters in Redis, used when REDIS_URL is set. */
export class RedisSlidingWindowStore implements RateLimitStore {
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {
    redis.defineCommand('contactSyncSlidingWindowTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  }

  async increment(key: string, ttl: number, limit: number): Promise<SlidingWindowRecord> {
    const take = (this.redis as unknown as { contactSyncSlidingWindowTake: TakeCommand }).contactSyncSlidingWindowTake.bind(this.redis);
    // The member must be unique: two requests may share a microsecond.
    const member = `${this.instance}:${(this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER)}`;
    const [accepted, count, usUntilRoom] = await take(this.keyPrefix + key, limit, ttl * 1000, member);
    return toRecord(accepted === 1, Number(count), Math.ceil(Number(usUntilRoom) / 1000));
  }
}
