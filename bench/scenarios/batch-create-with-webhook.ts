import { round } from '../harness/figures';
import { runHttp } from '../harness/load';
import { startHookReceiver } from '../harness/receiver';
import { batchCreate } from '../harness/requests';
import type { Scenario } from '../harness/scenario';
import { adminCall, createWebhook, deleteWebhook } from '../harness/webhooks';

/**
 * batchCreate while one webhook delivers every event to a receiver answering at once: what delivery
 * costs the write path (`webhookRatio` = this ÷ batchCreate). Its entry in the JSON line: events
 * delivered during the load and after it, how long the backlog took to drain (waited for up to
 * 120 s), and repeated requests.
 */
export const batchCreateWithWebhook: Scenario = {
  name: 'batchCreateWithWebhook',
  phases: ['empty'],
  run: async (ctx) => {
    const { service, fx, settings } = ctx;
    const receiver = await startHookReceiver();
    const id = await createWebhook(service, fx, receiver.url, ['contact.created', 'contact.updated']);
    try {
      const started = Date.now();
      const measured = await runHttp(service, ctx.stats, fx, 'batchCreateWithWebhook', settings.batchConnections, settings.seconds, settings.warmupSeconds, batchCreate(fx));
      const loadEnded = Date.now();
      const deliveredDuringLoad = receiver.arrivals.size;
      const deadline = Date.now() + 120_000;
      for (;;) {
        const page = (await adminCall(service, fx, 'GET', `/api/v2/webhooks/${id}/deliveries?limit=1`)) as { deliveries: { state: string }[] };
        // Newest first: the newest delivered means the backlog is through (order per webhook is by due time).
        if (page.deliveries[0]?.state !== 'pending' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await new Promise((resolve) => setTimeout(resolve, 50)); // the receiver's last batch of arrivals
      const delivered = receiver.arrivals.size;
      return {
        listed: [measured],
        report: {
          delivered,
          deliveredDuringLoad,
          deliveredPerSecondDuringLoad: round(deliveredDuringLoad / ((loadEnded - started) / 1000)),
          drainSeconds: round((Date.now() - loadEnded) / 1000, 2),
          duplicateRequests: receiver.requests() - delivered,
        },
      };
    } finally {
      await deleteWebhook(service, fx, id);
      await receiver.close();
    }
  },
};
