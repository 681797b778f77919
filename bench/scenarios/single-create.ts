import { singleCreate as nextSingle } from '../harness/requests';
import { loadScenario } from './load-scenario';

/** POST /contacts of one new contact: the single endpoint's rate, requests/s. */
export const singleCreate = loadScenario('singleCreate', ['empty'], (s) => s.singleConnections, (ctx) => nextSingle(ctx.fx));
