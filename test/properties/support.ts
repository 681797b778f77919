import { UUID_RE, type Res } from '../contract/helpers';

/**
 * Sends one generated request and checks what every answer keeps: an X-Request-Id that the body
 * repeats, and never a 5xx. A request-level error must be exactly the contract's body, with the
 * status `statusOf` gives its code, and must leave `footprint` (the rows the endpoint could change)
 * as it was. Returns the answer, whether it was such an error (then nothing more is to check) and
 * the footprint from before the request.
 */
export async function sendChecked(
  send: () => Promise<Res>,
  footprint: () => Promise<string>,
  statusOf: Record<string, number>,
): Promise<{ res: Res; requestLevelError: boolean; before: string }> {
  const before = await footprint();
  const res = await send();
  const requestId = res.headers['x-request-id'];
  expect(requestId).toMatch(UUID_RE);
  expect(res.status).toBeLessThan(500);
  expect(typeof res.body).toBe('object');
  expect(res.body.request_id).toBe(requestId);
  if (res.body.error === undefined) return { res, requestLevelError: false, before };
  expect(res.body).toEqual({ request_id: requestId, error: { code: expect.any(String), message: expect.any(String) } });
  expect(statusOf[res.body.error.code]).toBe(res.status);
  expect(await footprint()).toBe(before);
  return { res, requestLevelError: true, before };
}

/** Counts the generated requests a file checks, and prints the number after its tests. */
export function generatedRequests(file: string): { checked(): void } {
  let count = 0;
  afterAll(() => {
    process.stdout.write(`[properties] ${file}: ${count} generated requests checked\n`);
  });
  return {
    checked: () => {
      count += 1;
    },
  };
}

/**
 * How many generated cases a property runs: `count` in `npm test`, times PROPERTY_RUNS_FACTOR (a
 * positive integer, 1 unless set) for a deeper search, e.g. `PROPERTY_RUNS_FACTOR=10 npx jest
 * test/properties`. `count` is chosen so that the default run still reaches every outcome the
 * property is written to check; the file prints what it covered.
 */
export function propertyRuns(count: number): number {
  const factor = Number(process.env.PROPERTY_RUNS_FACTOR ?? '1');
  if (!Number.isInteger(factor) || factor < 1) throw new Error(`PROPERTY_RUNS_FACTOR must be a positive integer, not ${process.env.PROPERTY_RUNS_FACTOR}`);
  return count * factor;
}

/**
 * Tallies the kinds of outcome a property's cases reach (a status, an error code). `expectReached`
 * fails when a kind the generators are written to produce never came up, so lowering the run count
 * or changing a generator cannot quietly stop a branch from being checked.
 */
export class Outcomes {
  private readonly counts: Record<string, number> = {};

  constructor(private readonly name: string) {}

  saw(kind: string): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
  }

  expectReached(kinds: readonly string[]): void {
    process.stdout.write(`[properties] ${this.name}: outcomes ${JSON.stringify(this.counts)}\n`);
    expect({ name: this.name, missing: kinds.filter((kind) => !this.counts[kind]) }).toEqual({ name: this.name, missing: [] });
  }
}
