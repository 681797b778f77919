/**
 * What every test app and spawned service runs with unless the test sets it: the rate limits out of
 * the way (every request of the suite comes from 127.0.0.1, and with REDIS_URL the counters are
 * shared by every process of the run), so only a test about the limits sets them; and no warm-up
 * (WARM_UP), which would prepare every registered statement on every pool connection at each start,
 * so only a test about the warm-up or about the first requests' speed turns it on.
 */
export const HARNESS_DEFAULTS: Readonly<Record<string, string>> = { IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '1000000', WARM_UP: 'false' };
