import { createTestApp, type TestApp } from '../utils/test-app';
import { OpenApiValidator } from './openapi-validator';

describe('health', () => {
  let t: TestApp;
  let docs: OpenApiValidator;
  afterEach(async () => {
    await t?.close();
  });

  it('GET /health/live and /health/ready answer 200 without an API key', async () => {
    t = await createTestApp();
    docs = new OpenApiValidator((await t.http().get('/api/docs-json').expect(200)).body);
    const live = await t.http().get('/health/live').expect(200);
    expect(live.body).toEqual({ status: 'ok' });
    expect(docs.problems(live, 'GET', '/health/live')).toEqual([]);
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body).toEqual({ status: 'ok' });
    expect(docs.problems(ready, 'GET', '/health/ready')).toEqual([]);
  });

  it('GET /health/ready answers 503 when the database is unreachable, while /health/live stays 200', async () => {
    t = await createTestApp();
    docs = new OpenApiValidator((await t.http().get('/api/docs-json').expect(200)).body);
    await t.http().get('/health/ready').expect(200);
    await t.database.drop(); // WITH (FORCE): the app's connections are cut and the database is gone

    const ready = await t.http().get('/health/ready').expect(503);
    expect(ready.body).toEqual({ status: 'unavailable' });
    expect(docs.problems(ready, 'GET', '/health/ready')).toEqual([]);
    await t.http().get('/health/live').expect(200);
  });
});
