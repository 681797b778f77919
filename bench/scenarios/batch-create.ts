import { batchCreate as nextBatch } from '../harness/requests';
import { loadScenario } from './load-scenario';

/** POST /contacts/batch of 50 new contacts (2 lists, 4 fields): the service's write throughput, contacts/s. */
export const batchCreate = loadScenario('batchCreate', ['empty', 'existing'], (s) => s.batchConnections, (ctx) => nextBatch(ctx.fx));
