import { bootApp, expectRequestError, Org } from './helpers';

/**
 * docs/api.md#authentication: a key is refused from its expiry on, also one already used (and so
 * known to the service). Timed: the first request must be answered within the key's 1.5 s of life,
 * so this file runs alone (test/timing-sensitive.js); the other authentication cases are in
 * test/contract/auth.e2e-spec.ts.
 */
describe('a key that expires after use', () => {
  const app = bootApp();

  it('is refused once expired', async () => {
    const org = await Org.create(app.t);
    const expiresAt = Date.now() + 1500;
    const key = await org.newKey({ expiresAt: new Date(expiresAt) });
    expect((await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, expiresAt + 200 - Date.now()));
    expectRequestError(await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`), 401, 'INVALID_API_KEY');
  });
});
