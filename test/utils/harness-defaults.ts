/**
 * What every test app and spawned service runs with unless the test sets it: the rate limits out of
 * the way (every request of the suite comes from 127.0.0.1, and with REDIS_URL the counters are
 * shared by every process of the run), so only a test about the limits sets them.
 */
export const HARNESS_LIMITS: Readonly<Record<string, string>> = { IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '1000000' };
