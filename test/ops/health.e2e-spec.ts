import { useTestApp } from '../utils/test-app';
import { OpenApiValidator } from './openapi-validator';

/** One app for both tests: the second ends by dropping its database, so it runs last. */
describe('health', () => {
  const app = useTestApp();
  const servedDocs = async () => new OpenApiValidator((await app.t.http().get('/api/docs-json').expect(200)).body);

  it('GET /health/live and /health/ready answer 200 without an API key', async () => {
    const docs = await servedDocs();
    const live = await app.t.http().get('/health/live').expect(200);
    expect(live.body).toEqual({ status: 'ok' });
    expect(docs.problems(live, 'GET', '/health/live')).toEqual([]);
    const ready = await app.t.http().get('/health/ready').expect(200);
    expect(ready.body).toEqual({ status: 'ok' });
    expect(docs.problems(ready, 'GET', '/health/ready')).toEqual([]);
  });

  it('GET /health/ready answers 503 when the database is unreachable, while /health/live stays 200', async () => {
    const docs = await servedDocs();
    await app.t.http().get('/health/ready').expect(200);
    await app.t.database.drop(); // WITH (FORCE): the app's connections are cut and the database is gone

    const ready = await app.t.http().get('/health/ready').expect(503);
    expect(ready.body).toEqual({ status: 'unavailable' });
    expect(docs.problems(ready, 'GET', '/health/ready')).toEqual([]);
    await app.t.http().get('/health/live').expect(200);
  });
});
