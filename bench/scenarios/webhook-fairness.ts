import { withClient } from '../harness/database';
import { count5xx, log, round } from '../harness/figures';
import { BATCH, contactRow, freshEmail, makeFixtures, postBatch } from '../harness/fixtures';
import { startHookReceiver } from '../harness/receiver';
import { batchCreate } from '../harness/requests';
import type { Scenario } from '../harness/scenario';
import { createWebhook, deleteWebhook, eventCommits, quantileOf } from '../harness/webhooks';

/** How long organization A's receiver takes to answer each delivery. */
const SLOW_RECEIVER_MS = 1500;
/** How long B's events are waited for after B's last contact, at most. */
const WAIT_MS = 300_000;

/**
 * Whether one organization's webhook backlog delays another's deliveries. Two organizations of
 * their own: A's webhook goes to a receiver that answers each delivery after 1.5 s, B's to one that
 * answers at once. A writes BENCH_FAIRNESS_EVENTS contacts (batches of 50, 4 at a time), so its
 * deliveries pile up; then B creates one contact a second for 3 × BENCH_SECONDS. Figures: B's
 * latency from each event's commit (event_commits.committed_at) to its arrival at B's receiver
 * (p50/p99/max, ms; an event that had not arrived within 300 s of B's last contact counts as never,
 * so a p99 that falls on one is null), how many of B's events there were and arrived, A's events
 * not yet at A's receiver when B started, and how many A's receiver had got when B's last event
 * arrived: a fair service delivers B's events within a second or two while A's backlog is still draining.
 */
export const webhookFairness: Scenario = {
  name: 'webhookFairness',
  phases: ['empty'],
  run: async (ctx) => {
    const { service, settings } = ctx;
    const a = await makeFixtures(ctx.url, 'Fairness A');
    const b = await makeFixtures(ctx.url, 'Fairness B');
    const slow = await startHookReceiver({ delayMs: SLOW_RECEIVER_MS });
    const instant = await startHookReceiver();
    const hookA = await createWebhook(service, a, slow.url, ['contact.created']);
    const hookB = await createWebhook(service, b, instant.url, ['contact.created']);
    let failed = 0;
    const failedStatuses: Record<string, number> = {};
    try {
      const batches = Math.ceil(settings.fairnessEvents / BATCH);
      log(`webhookFairness: A writes ${batches * BATCH} contacts for a receiver answering in ${SLOW_RECEIVER_MS} ms`);
      const nextA = batchCreate(a);
      let made = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (made < batches) {
            made++;
            await postBatch(service, a, nextA().body.contacts as Record<string, unknown>[]);
          }
        }),
      );
      const bSeconds = 3 * settings.seconds;
      const aPendingAtBStart = batches * BATCH - slow.arrivals.size;
      log(`webhookFairness: A's receiver has ${slow.arrivals.size} of ${batches * BATCH}; B creates one contact a second for ${bSeconds} s`);
      const started = Date.now();
      const posts: Promise<void>[] = [];
      for (let i = 0; i < bSeconds; i++) {
        const due = started + i * 1000;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        posts.push(
          fetch(`${service.baseUrl}/api/v2/contacts`, {
            method: 'POST',
            headers: { authorization: `Bearer ${b.key}`, 'content-type': 'application/json' },
            body: JSON.stringify(contactRow(freshEmail('fair-b'), b)),
          }).then(
            async (res) => {
              await res.arrayBuffer();
              if (res.status !== 201) {
                failed++;
                failedStatuses[res.status] = (failedStatuses[res.status] ?? 0) + 1;
              }
            },
            () => {
              failed++;
              failedStatuses.error = (failedStatuses.error ?? 0) + 1;
            },
          ),
        );
      }
      await Promise.all(posts);
      const bEvents = await withClient(ctx.url, (client) => eventCommits(client, b.organizationId, 'contact.created', started - 1000));
      const lastPosted = Date.now();
      while (bEvents.some((event) => !instant.arrivals.has(event.id)) && Date.now() - lastPosted < WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 50)); // the receivers' last batch of arrivals
      const latencies = bEvents.map((event) => (instant.arrivals.get(event.id) ?? Number.POSITIVE_INFINITY) - event.committedMs).sort((x, y) => x - y);
      const report = {
        receiverDelayMs: SLOW_RECEIVER_MS,
        aEvents: batches * BATCH,
        aPendingAtBStart,
        aDelivered: slow.arrivals.size,
        bSeconds,
        bCount: bEvents.length,
        bDelivered: bEvents.filter((event) => instant.arrivals.has(event.id)).length,
        bP50Ms: quantileOf(latencies, 0.5),
        bP99Ms: quantileOf(latencies, 0.99),
        bMaxMs: quantileOf(latencies, 1),
        bFailedRequests: failed,
        bFailedStatuses: failedStatuses,
        waitedSeconds: round((Date.now() - lastPosted) / 1000, 1),
      };
      log(`webhookFairness: B's p99 ${report.bP99Ms} ms (${report.bDelivered} of ${report.bCount}); A delivered ${report.aDelivered} of ${report.aEvents}`);
      return { report, status5xx: count5xx(failedStatuses) };
    } finally {
      await deleteWebhook(service, a, hookA);
      await deleteWebhook(service, b, hookB);
      await slow.close();
      await instant.close();
    }
  },
};
