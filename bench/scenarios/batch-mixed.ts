import { batchMixed as nextBatch } from '../harness/requests';
import { loadScenario } from './load-scenario';

/** Like batchCreate with 10% of the rows failing per-contact rules (an unknown list, a wrong type). */
export const batchMixed = loadScenario('batchMixed', ['empty', 'existing'], (s) => s.batchConnections, (ctx) => nextBatch(ctx.fx));
