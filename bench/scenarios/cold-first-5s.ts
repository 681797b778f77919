import { runHttp } from '../harness/load';
import { singleCreate } from '../harness/requests';
import type { Scenario } from '../harness/scenario';

/**
 * Single creates during the first 5 s after the service said ready, before any other load, with no
 * warm-up: what a freshly started instance answers while V8 is still compiling. Not listed under
 * `scenarios`; the JSON line's `coldStart` sets it beside `singleCreate`.
 */
export const coldFirst5s: Scenario = {
  name: 'coldFirst5s',
  phases: ['empty'],
  run: async (ctx) => ({
    unlisted: [await runHttp(ctx.service, ctx.stats, ctx.fx, 'coldFirst5s', ctx.settings.singleConnections, 5, 0, singleCreate(ctx.fx))],
  }),
};
