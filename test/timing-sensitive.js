/**
 * The test files whose assertions depend on wall-clock time or on the machine's load: a bound on
 * elapsed time, a window or back-off that must pass (or not) between two requests, or a service
 * saturated on purpose. The one list of them (jest.config.js reads it).
 *
 * `npm test` runs every other file on four Jest workers first, then these in band, one at a time with
 * nothing beside them (test/utils/timing-last-runner.js), so that what they measure is the service,
 * not a neighbouring test file. JEST_SELECTION=timing or =rest (jest.config.js) runs only these or
 * only the others; test/architecture/test-selection.spec.ts checks that every entry is a test file
 * and that the two selections together are the whole suite, each file once.
 *
 * A new test that asserts a duration, a time-out, a window or behaviour under load belongs here.
 * One whose only bounds are lower bounds (load makes things later, never earlier) or far from what
 * they bound, and that otherwise waits on conditions, does not: it runs beside another file, where
 * its waits cost nothing. When one case of a file is timed, that case gets a small file of its own.
 */
module.exports = {
  'src/rate-limit/failover.store.spec.ts': 'a slow shared store is bypassed in < 500 ms',
  'src/webhooks/webhook-sender.spec.ts': 'a 2xx head is the answer in < 500 ms while its body trickles; attempts stopped in < 2 s',
  'test/contacts/lock-wait.e2e-spec.ts': 'a lock wait ends by lock_timeout in < 3 s',
  'test/contract/key-expiry.e2e-spec.ts': 'a key expiring 1.5 s after it is made must answer 200 before then',
  'test/faults/database-faults.e2e-spec.ts': 'every request answered within REQUEST_BOUND_MS, connect time-out bounds',
  'test/faults/lists-fields-faults.e2e-spec.ts': 'answers within CONNECT_TIMEOUT_MS + 4 s with the database gone',
  'test/faults/listing-removal-faults.e2e-spec.ts': 'requests stuck on a lock end at the lock time-out',
  'test/faults/prisma-faults.e2e-spec.ts': 'every request answered within REQUEST_BOUND_MS',
  'test/http-body/oversized-upload.e2e-spec.ts': 'lingering close of oversized uploads: drain a bounded amount for a bounded time',
  'test/ops/readiness-under-load.e2e-spec.ts': 'readiness sampled while the service is saturated: 0 false 503s',
  'test/ops/shutdown.e2e-spec.ts': 'SIGTERM: sockets closed in < 3 s, exit within 2 s',
  'test/rate-limit/ip-rate-limit.e2e-spec.ts': 'a sliding 3-second window must not pass during the test',
  'test/rate-limit/org-rate-limit.e2e-spec.ts': 'Retry-After to the second: refused just before, accepted just after',
  'test/rate-limit/redis-failover.e2e-spec.ts': 'answers within the Redis time-out (< 1.5 s) when Redis hangs',
  'test/rate-limit/redis-rate-limit.e2e-spec.ts': 'a sliding 3-second window shared by instances in Redis',
  'test/webhooks/fairness.e2e-spec.ts': "B's events within 2 s of commit at p99 while A's backlog drains",
  'test/webhooks/shutdown.e2e-spec.ts': 'attempts in flight get the 3-second shutdown window, the rest are released at once',
};
