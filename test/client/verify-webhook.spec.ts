import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../client/src';

/** The client's verifyWebhook against signatures made by the Standard Webhooks reference library. */
describe('verifyWebhook', () => {
  const secret = 'whsec_' + Buffer.from('a secret of thirty-two bytes!!!!').toString('base64');
  const body = JSON.stringify({ id: 'evt_0123', type: 'contact.created', occurredAt: '2026-11-24T00:00:00.000Z', requestId: null, data: { contact: { id: 'c' } } });
  const signed = (at = new Date(), payload = body) => ({
    'webhook-id': 'evt_0123',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('evt_0123', at, payload),
  });

  it('accepts what the reference library signs, with headers in any case or as Fetch Headers, and returns the event', () => {
    expect(verifyWebhook(secret, signed(), body)).toEqual(JSON.parse(body));
    const upper = Object.fromEntries(Object.entries(signed()).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(secret, upper, Buffer.from(body)).id).toBe('evt_0123');
    expect(verifyWebhook(secret, new Headers(signed()), body).type).toBe('contact.created');
    const several = signed();
    several['webhook-signature'] = `v1,${Buffer.alloc(32).toString('base64')} ${several['webhook-signature']}`;
    expect(verifyWebhook(secret, several, body).id).toBe('evt_0123');
  });

  it('refuses a changed body, another secret, a stale timestamp and missing headers', () => {
    expect(() => verifyWebhook(secret, signed(), body.replace('created', 'deleted'))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook('whsec_' + Buffer.from('another secret of 32 bytes......').toString('base64'), signed(), body)).toThrow(/signature/);
    expect(() => verifyWebhook(secret, signed(new Date(Date.now() - 10 * 60_000)), body)).toThrow(/Timestamp/);
    const { 'webhook-id': _omitted, ...rest } = signed();
    expect(() => verifyWebhook(secret, rest, body)).toThrow(/webhook-id/);
  });

  it('verifies what the service signs (the same check standardwebhooks makes)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { signedHeaders } = require('../../src/webhooks/webhook-signing') as typeof import('../../src/webhooks/webhook-signing');
    expect(verifyWebhook(secret, signedHeaders(secret, 'evt_0123', body), body).id).toBe('evt_0123');
  });
});
