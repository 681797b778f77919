import { singleUnchanged as nextSingle } from '../harness/requests';
import { loadScenario } from './load-scenario';

/** POST /contacts of an existing contact sent as stored, overwrite: true (nothing to write but the answer). */
export const singleUnchanged = loadScenario(
  'singleUnchanged',
  ['empty'],
  (s) => s.singleConnections,
  async (ctx) => nextSingle(ctx.fx, await ctx.overwriteEmails()),
);
