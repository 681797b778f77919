import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { spanCollector } from '../../test/utils/span-collector';
import { Pool } from 'pg';
import { POOL_WAIT_ATTRIBUTE, STATEMENT_SCOPE, traceStatements } from './statement-spans';

/**
 * The statement spans of statement-spans.ts on a real pg pool (one connection, so checkouts
 * queue), under spans of the SDK as start-tracing.ts sets it up: what each statement hands to
 * the span processors, inside and outside a recording span.
 */
describe('statement spans: our own PostgreSQL spans, only inside a sampled trace', () => {
  const { ended, provider, tracer, options } = spanCollector();
  traceStatements(options);
  let pool: Pool;

  beforeAll(() => {
    const url = process.env.TEST_PG_SERVER_URL;
    if (!url) throw new Error('TEST_PG_SERVER_URL is set by test/global-setup.ts');
    pool = new Pool({ connectionString: url, max: 1 });
  });
  afterAll(async () => {
    await pool.end();
    await provider.shutdown();
  });
  beforeEach(() => void (ended.length = 0));

  const inSpan = <T>(name: string, work: (span: Span) => Promise<T>): Promise<T> => {
    const span = tracer.startSpan(name);
    return context.with(trace.setSpan(context.active(), span), () => work(span)).finally(() => span.end());
  };

  it('a statement inside a recording span: one finished span under it, with its text, database and the checkout wait on the first statement only', async () => {
    const parent = await inSpan('request', async (span) => {
      const client = await pool.connect();
      try {
        await client.query('SELECT 1 AS one');
        await client.query({ name: 'test.two', text: 'SELECT 2 AS two' });
      } finally {
        client.release();
      }
      await pool.query('select $1::int AS three', [3]);
      return span.spanContext();
    });

    expect(ended.map((s) => s.name)).toEqual([expect.stringMatching(/^pg\.query:SELECT \S+$/), expect.stringMatching(/^pg\.query:test\.two /), expect.stringMatching(/^pg\.query:SELECT /)]);
    for (const span of ended) {
      expect(span).toMatchObject({ kind: SpanKind.CLIENT, ended: true, instrumentationScope: { name: STATEMENT_SCOPE }, status: { code: SpanStatusCode.UNSET } });
      expect(span.spanContext()).toMatchObject({ traceId: parent.traceId, traceFlags: parent.traceFlags });
      expect(span.parentSpanContext?.spanId).toBe(parent.spanId);
      expect(span.attributes['db.system.name']).toBe('postgresql');
      expect(span.attributes['server.port']).toEqual(expect.any(Number));
      const [start, end] = [span.startTime, span.endTime].map(([s, ns]) => s * 1e3 + ns / 1e6);
      expect(end).toBeGreaterThanOrEqual(start);
      expect(Math.abs(start - Date.now())).toBeLessThan(60_000);
    }
    expect(ended.map((s) => s.attributes['db.query.text'])).toEqual(['SELECT 1 AS one', 'SELECT 2 AS two', 'select $1::int AS three']);
    expect(ended[1].attributes['db.postgresql.plan']).toBe('test.two');
    // Parameters are never recorded.
    expect(JSON.stringify(ended.map((s) => s.attributes))).not.toContain('"3"');
    expect(ended[0].attributes[POOL_WAIT_ATTRIBUTE]).toEqual(expect.any(Number));
    expect(ended[1].attributes[POOL_WAIT_ATTRIBUTE]).toBeUndefined();
    expect(ended[2].attributes[POOL_WAIT_ATTRIBUTE]).toEqual(expect.any(Number));
  });

  it('a failing statement: error status, its code and an exception event, masked like the logs', async () => {
    await inSpan('request', async () => {
      await expect(pool.query("SELECT 'x@example.com'::int")).rejects.toThrow();
    });
    expect(ended).toHaveLength(1);
    expect(ended[0].status.code).toBe(SpanStatusCode.ERROR);
    expect(ended[0].attributes['error.type']).toBe('22P02');
    expect(ended[0].events.map((e) => e.name)).toEqual(['exception']);
    expect(JSON.stringify(ended[0].status) + JSON.stringify(ended[0].events)).not.toContain('x@example.com');
  });

  it('statements outside a recording span make no span', async () => {
    await pool.query('SELECT 1');
    const client = await pool.connect();
    await client.query('SELECT 2');
    client.release();
    expect(ended).toEqual([]);
  });

  it('an unsampled caller waiting on the pool does not join the trace of the request that releases the connection', async () => {
    let unsampled: Promise<unknown> | undefined;
    await inSpan('holder', async () => {
      const client = await pool.connect();
      // Queued behind the only connection, asked for outside any span.
      unsampled = context.with(ROOT_CONTEXT, () => pool.query('SELECT 42 AS unsampled'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await client.query('SELECT 41 AS sampled');
      client.release(); // inside the holder's span: the pool hands the connection to the waiting query here
    });
    await unsampled;
    expect(ended.map((s) => s.attributes['db.query.text'])).toEqual(['SELECT 41 AS sampled']);
  });
});
