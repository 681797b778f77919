import { batchOverwrite as nextBatch } from '../harness/requests';
import { loadScenario } from './load-scenario';

/** POST /contacts/batch of 50 existing contacts, overwrite: true, 25 changed and 25 sent as stored. */
export const batchOverwrite = loadScenario(
  'batchOverwrite',
  ['empty', 'existing'],
  (s) => s.batchConnections,
  async (ctx) => nextBatch(ctx.fx, await ctx.overwriteEmails()),
);
