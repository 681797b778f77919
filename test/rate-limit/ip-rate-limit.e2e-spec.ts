import { createOrganization } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';
import { portOf, refusals, sendHeadersOnly } from './support';

/** Per-IP limit: the first check, before routing and authentication. IP_RATE_LIMIT=3 per 3 s. */
describe('per-IP rate limit', () => {
  describe('without TRUST_PROXY', () => {
    const app = useTestApp({ IP_RATE_LIMIT: '3', RATE_WINDOW_SECONDS: '3' });

    it('counts every request of an address before authentication and refuses the next with 429', async () => {
      const org = await createOrganization(app.t.prisma);
      await app.t.http().get('/api/v2/lists').expect(401); // unauthenticated requests count (key guessing)
      await app.t.http().get('/api/v2/lists').set('Authorization', 'Bearer guess').expect(401);
      await app.t.http().get('/no/such/route').expect(404); // so do unknown routes
      const before = await refusals(app.t, 'ip');

      // Refused before the key is looked at: no 401 for a missing key, no pass for a valid one.
      const guess = await app.t.http().get('/api/v2/lists').expect(429);
      expect(guess.body).toEqual({
        request_id: guess.headers['x-request-id'],
        error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) },
      });
      expect(guess.headers['retry-after']).toBe('3');
      expect(guess.headers['www-authenticate']).toBeUndefined();
      await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${org.apiKey}`).expect(429);
      // X-Forwarded-For is not believed: a forged address is still this socket's address.
      await app.t.http().get('/api/v2/lists').set('X-Forwarded-For', '203.0.113.9').expect(429);
      expect(await refusals(app.t, 'ip')).toBe(before + 3);

      // A refused request's body is never read: 5 MB announced, none sent, answered at once.
      const raw = await sendHeadersOnly(portOf(app.t), '/api/v2/contacts', {
        'Content-Type': 'application/json',
        'Content-Length': String(5_000_000),
      });
      expect(raw.status).toBe(429);

      // Decided: health and metrics are exempt (probes must never see a 429).
      await app.t.http().get('/health/live').expect(200);
      await app.t.http().get('/metrics').expect(200);
    });
  });

  describe('with TRUST_PROXY=true', () => {
    const app = useTestApp({ IP_RATE_LIMIT: '3', RATE_WINDOW_SECONDS: '3', TRUST_PROXY: 'true' });
    const from = (address: string) => app.t.http().get('/api/v2/lists').set('X-Forwarded-For', address);

    it('counts the client named by X-Forwarded-For, each address on its own budget', async () => {
      for (let i = 0; i < 3; i++) await from('198.51.100.7').expect(401);
      await from('198.51.100.7').expect(429);
      // The left-most entry is the client; the proxies after it do not change who is counted.
      await from('198.51.100.7, 10.0.0.1').expect(429);
      await from('198.51.100.8').expect(401);
    });

    it('counts an IPv6 client per /64', async () => {
      for (let i = 0; i < 3; i++) await from(`2001:db8:1:2::${i + 1}`).expect(401);
      await from('2001:db8:1:2:ffff::1').expect(429);
      await from('2001:db8:1:3::1').expect(401);
    });
  });
});
