import type { Scenario } from '../harness/scenario';
import { batchCreate } from './batch-create';
import { batchCreateWithWebhook } from './batch-create-with-webhook';
import { batchMixed } from './batch-mixed';
import { batchOverwrite } from './batch-overwrite';
import { batchSweep } from './batch-sweep';
import { coldFirst5s } from './cold-first-5s';
import { erase } from './erase';
import { export1M } from './export-1m';
import { feed } from './feed';
import { import1M } from './import-1m';
import { listing } from './listing';
import { rawBatch } from './raw-batch';
import { rawBatchSameWork } from './raw-batch-same-work';
import { rawSingle } from './raw-single';
import { singleCreate } from './single-create';
import { singleUnchanged } from './single-unchanged';
import { webhookFairness } from './webhook-fairness';
import { webhookLatency } from './webhook-latency';

/**
 * Every scenario, in the order a run makes them. coldFirst5s comes first (nothing may warm the
 * service before it); webhookFairness after the others of its phase, as it leaves the most work behind it, except import1M, which
 * comes last because it leaves two million contacts behind it. In the existing
 * phase (`--existing N`) the scenarios of that phase run in the same order.
 */
export const SCENARIOS: readonly Scenario[] = [
  coldFirst5s,
  batchCreate,
  batchCreateWithWebhook,
  webhookLatency,
  batchOverwrite,
  batchMixed,
  singleCreate,
  singleUnchanged,
  batchSweep,
  feed,
  rawBatch,
  rawBatchSameWork,
  rawSingle,
  webhookFairness,
  erase,
  listing,
  export1M,
  import1M,
];
