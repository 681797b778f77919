import { Webhook } from 'standardwebhooks';
import { freePort } from '../../test/utils/net';
import { type Answer, startReceiver } from '../../test/utils/webhook-receiver';
import { nextDelayMs, parseRetryDelays } from '../common/retry-delays';
import { checkTarget, type Resolver } from './webhook-address';
import { retryAfterMsOf, sendAttempt } from './webhook-sender';
import { newWebhookSecret, signedHeaders } from './webhook-signing';

describe('signing (verified with the Standard Webhooks reference library)', () => {
  it('signs so that standardwebhooks verifies, and a changed body or another secret fails', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: 'evt_1', type: 'contact.created', data: { contact: { email: 'ädä@example.com' } } });
    const headers = signedHeaders(secret, 'evt_1', body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('created', 'updated'), headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

describe('sendAttempt', () => {
  it('connects to the checked address, not to what DNS answers later (no rebinding), and sends the signed event', async () => {
    const receiver = await startReceiver();
    try {
      // The first answer is the receiver; a rebinding resolver would answer something else next time.
      const answers = ['127.0.0.1', '10.9.9.9'];
      const resolve: Resolver = jest.fn(() => Promise.resolve([{ address: answers.shift() as string, family: 4 as const }]));
      const target = await checkTarget(`http://hooks.rebind.test:${receiver.port}/hook?x=1`, { allowInsecure: true, resolve });
      const secret = newWebhookSecret();
      const body = '{"id":"evt_2"}';
      const result = await sendAttempt(target, signedHeaders(secret, 'evt_2', body), body);
      expect(result).toEqual({ status: 200, error: null, retryAfterMs: null });
      expect(resolve).toHaveBeenCalledTimes(1);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].headers.host).toBe(`hooks.rebind.test:${receiver.port}`);
      expect(receiver.received[0].path).toBe('/hook?x=1');
      expect(new Webhook(secret).verify(receiver.received[0].body, receiver.received[0].headers as Record<string, string>)).toEqual({ id: 'evt_2' });
    } finally {
      await receiver.close();
    }
  });

  it('does not follow a redirect, reads Retry-After on 429/503, and reports a refused connection', async () => {
    const answers: Answer[] = [{ status: 302, headers: { location: 'http://127.0.0.1:1/' } }, { status: 503, headers: { 'retry-after': '7' } }];
    const receiver = await startReceiver(() => answers.shift() ?? { status: 200 });
    try {
      const target = await checkTarget(receiver.url, { allowInsecure: true, resolve: jest.fn() });
      expect(await sendAttempt(target, {}, '{}')).toEqual({ status: 302, error: null, retryAfterMs: null });
      expect(await sendAttempt(target, {}, '{}')).toEqual({ status: 503, error: null, retryAfterMs: 7000 });
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
    }
    const closed = await checkTarget(`http://127.0.0.1:${await freePort()}/hook`, { allowInsecure: true, resolve: jest.fn() });
    expect(await sendAttempt(closed, {}, '{}')).toMatchObject({ status: null, error: 'connection refused' });
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const receiver = await startReceiver(() => 'hold');
    try {
      const target = await checkTarget(receiver.url, { allowInsecure: true, resolve: jest.fn() });
      expect(await sendAttempt(target, {}, '{}', 300)).toMatchObject({ status: null, error: 'no answer within 0.3 s' });
    } finally {
      await receiver.close();
    }
  });
});

describe('retry schedule', () => {
  it('parses WEBHOOK_RETRY_DELAYS and refuses what is not a list of positive seconds', () => {
    expect(parseRetryDelays('5, 30,0.5')).toEqual([5, 30, 0.5]);
    for (const bad of ['', '5,,6', '0', '-1', 'abc', '5;6']) expect(parseRetryDelays(bad)).toBeNull();
  });

  it('waits the k-th delay plus up to 20% after the k-th failure, then gives up; Retry-After wins', () => {
    const delays = [5, 30];
    expect(nextDelayMs(1, delays, null, () => 0)).toBe(5000);
    expect(nextDelayMs(1, delays, null, () => 0.999)).toBe(5999);
    expect(nextDelayMs(2, delays, null, () => 0.5)).toBe(33000);
    expect(nextDelayMs(3, delays, null)).toBeNull();
    expect(nextDelayMs(1, delays, 120_000)).toBe(120_000);
    expect(retryAfterMsOf('12')).toBe(12_000);
    expect(retryAfterMsOf(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(55_000);
    expect(retryAfterMsOf('soon')).toBeNull();
  });
});
