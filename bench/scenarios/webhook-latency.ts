import http from 'node:http';
import { withClient } from '../harness/database';
import { log, round } from '../harness/figures';
import { BATCH } from '../harness/fixtures';
import { startHookReceiver } from '../harness/receiver';
import { batchCreate } from '../harness/requests';
import type { Scenario } from '../harness/scenario';
import { createWebhook, deleteWebhook, eventCommits, quantileOf } from '../harness/webhooks';

/** Batches a second (of 50 new contacts each): 2,000 events a second. */
const BATCHES_PER_SECOND = 40;

/**
 * 2,000 events a second (40 batches of 50 new contacts a second, paced, not closed-loop) for
 * BENCH_SECONDS with one webhook to a receiver answering at once: the latency from each event's
 * commit (event_commits.committed_at) to its arrival at the receiver, p50/p99/max and the share
 * within 2 s; the service's CPU per event delivered.
 */
export const webhookLatency: Scenario = {
  name: 'webhookLatency',
  phases: ['empty'],
  run: async (ctx) => {
    const { service, fx, settings, stats } = ctx;
    const receiver = await startHookReceiver();
    const id = await createWebhook(service, fx, receiver.url, ['contact.created']);
    const next = batchCreate(fx);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    let sent = 0;
    let failed = 0;
    const failedStatuses: Record<string, number> = {};
    const fail = (status: string) => {
      failed++;
      failedStatuses[status] = (failedStatuses[status] ?? 0) + 1;
    };
    const inFlight = new Set<Promise<void>>();
    const post = () => {
      const made = next();
      const done = new Promise<void>((resolve) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: service.port,
            path: made.path,
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' },
          },
          (res) => {
            if (res.statusCode !== 200) fail(String(res.statusCode));
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', () => {
          fail('error');
          resolve();
        });
        req.end(JSON.stringify(made.body));
      });
      inFlight.add(done);
      void done.then(() => inFlight.delete(done));
      sent++;
    };
    try {
      log(`webhookLatency: ${BATCHES_PER_SECOND * BATCH} events/s for ${settings.seconds} s`);
      await stats.reset();
      const cpuBefore = service.cpuSeconds();
      const started = Date.now();
      // On schedule: a tick that comes late sends what is owed.
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          const owed = Math.floor(((Date.now() - started) / 1000) * BATCHES_PER_SECOND) - sent;
          for (let i = 0; i < owed; i++) post();
          if (Date.now() - started >= settings.seconds * 1000) {
            clearInterval(timer);
            resolve();
          }
        }, 5);
      });
      await Promise.all([...inFlight]);
      const expected = (sent - failed) * BATCH;
      const deadline = Date.now() + 60_000;
      while (receiver.arrivals.size < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const cpuAfter = service.cpuSeconds();
      const { top } = await stats.read();
      const events = await withClient(ctx.url, (client) => eventCommits(client, fx.organizationId, 'contact.created', started - 1000));
      const latencies = events.map((event) => (receiver.arrivals.get(event.id) ?? Number.POSITIVE_INFINITY) - event.committedMs).sort((a, b) => a - b);
      return {
        report: {
          eventsPerSecondOffered: round((sent * BATCH) / settings.seconds),
          events: events.length,
          delivered: receiver.arrivals.size,
          failedRequests: failed,
          failedStatuses,
          p50Ms: quantileOf(latencies, 0.5),
          p99Ms: quantileOf(latencies, 0.99),
          maxMs: quantileOf(latencies, 1),
          shareWithin2s: round(latencies.filter((ms) => ms <= 2000).length / Math.max(1, latencies.length), 4),
          // The service's CPU (writing the events and delivering them) per event delivered: steadier than latency on a shared machine.
          serviceCpuMsPerEvent: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / Math.max(1, receiver.arrivals.size), 3),
          topStatements: top,
        },
      };
    } finally {
      agent.destroy();
      await deleteWebhook(service, fx, id);
      await receiver.close();
    }
  },
};
