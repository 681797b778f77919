import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@nestjs/common';
import { FaultLog } from './fault-log';

describe('FaultLog', () => {
  let lines: Array<{ cause: string; repeats: number }>;
  beforeEach(() => {
    jest.useFakeTimers();
    lines = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((entry: unknown) => {
      lines.push(entry as { cause: string; repeats: number });
    });
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('a burst: the first occurrence at once, the rest counted in one line when the second ends', () => {
    const log = new FaultLog(1000);
    for (let i = 0; i < 100; i++) log.report('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
    expect(lines).toEqual([{ cause: 'ECONNREFUSED', repeats: 0 }]);
    jest.advanceTimersByTime(1000);
    expect(lines).toEqual([
      { cause: 'ECONNREFUSED', repeats: 0 },
      { cause: 'ECONNREFUSED', repeats: 98 }, // the last occurrence and the 98 before it
    ]);
  });

  it('one line per cause per second, causes apart; a quiet second ends the counting', () => {
    const log = new FaultLog(1000);
    // 10 occurrences of each of two causes every 100 ms for 3 s.
    for (let t = 0; t < 3000; t += 100) {
      for (let i = 0; i < 10; i++) {
        log.report('ECONNREFUSED', 'refused');
        log.report('57P01', 'terminating connection due to administrator command');
      }
      jest.advanceTimersByTime(100);
    }
    jest.advanceTimersByTime(1000);
    for (const cause of ['ECONNREFUSED', '57P01']) {
      const own = lines.filter((l) => l.cause === cause);
      expect(own.length).toBeLessThanOrEqual(4); // 3 s of faults: at most one line a second (+ the first)
      expect(own.reduce((n, l) => n + 1 + l.repeats, 0)).toBe(300); // every occurrence counted once
    }
    lines.length = 0;
    jest.advanceTimersByTime(5000);
    expect(lines).toEqual([]); // nothing pending
    log.report('ECONNREFUSED', 'refused');
    expect(lines).toEqual([{ cause: 'ECONNREFUSED', repeats: 0 }]); // a new outage: logged at once
  });

  it('flushAll writes what is still counted, marked as written at shutdown (inside the window)', () => {
    const log = new FaultLog(1000);
    log.report('57014', 'canceling statement due to statement timeout');
    log.report('57014', 'canceling statement due to statement timeout');
    log.flushAll();
    expect(lines).toEqual([
      { cause: '57014', repeats: 0 },
      { cause: '57014', repeats: 0, atShutdown: true },
    ]);
  });

  it('a headline (what failed) starts the line; headlines are counted apart, each with its own line per cause', () => {
    const messages: unknown[] = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((entry: unknown, message?: unknown) => {
      lines.push(entry as { cause: string; repeats: number });
      messages.push(message);
    });
    const log = new FaultLog(1000, 'Webhooks');
    log.report('57P01', 'terminating connection due to administrator command', 'Webhook claim failed');
    log.report('57P01', 'terminating connection due to administrator command', 'Webhook fan-out failed');
    log.report('57P01', 'terminating connection due to administrator command', 'Webhook claim failed');
    jest.advanceTimersByTime(1000);
    expect(messages).toEqual([
      'Webhook claim failed (57P01): terminating connection due to administrator command',
      'Webhook fan-out failed (57P01): terminating connection due to administrator command',
      'Webhook claim failed (57P01): terminating connection due to administrator command',
    ]);
    expect(lines).toEqual([
      { cause: '57P01', repeats: 0 },
      { cause: '57P01', repeats: 0 },
      { cause: '57P01', repeats: 0 }, // the second claim failure, when its window closed
    ]);
    new FaultLog(1000).report('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
    expect(messages.at(-1)).toBe('Database unavailable (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:5432');
  });

  it("writes outside the reporting request's context, so a cause line carries no request's id", () => {
    // nestjs-pino binds each request's logger (its req.id, trace_id) through AsyncLocalStorage.
    const requestContext = new AsyncLocalStorage<string>();
    const contexts: Array<string | undefined> = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {
      contexts.push(requestContext.getStore());
    });
    const log = new FaultLog(1000);
    requestContext.run('request 1', () => log.report('ECONNREFUSED', 'refused'));
    requestContext.run('request 2', () => log.report('ECONNREFUSED', 'refused'));
    requestContext.run('request 3', () => log.flushAll());
    expect(contexts).toEqual([undefined, undefined]);
  });
});
