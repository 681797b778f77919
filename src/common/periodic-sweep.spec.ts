import { Logger } from '@nestjs/common';
import { PeriodicSweep } from './periodic-sweep';

describe('PeriodicSweep', () => {
  const logger = new Logger('Test');
  afterEach(() => jest.restoreAllMocks());

  const sweepOf = (sweep: () => Promise<number>) =>
    new PeriodicSweep<number>({ everyMs: 1000, firstAfterMs: 100, logger, failureMessage: 'Sweeping failed', failedResult: -1, sweep });

  it('joins a sweep in flight instead of starting a second one, and stop() waits for it', async () => {
    let finish!: (deleted: number) => void;
    const sweep = jest.fn(() => new Promise<number>((resolve) => (finish = resolve)));
    const periodic = sweepOf(sweep);
    const first = periodic.run();
    const second = periodic.run(() => Promise.resolve(99));
    expect(sweep).toHaveBeenCalledTimes(1);

    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    expect(periodic.stopping).toBe(true);
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish(3);
    await stopping;
    await expect(first).resolves.toBe(3);
    await expect(second).resolves.toBe(3);
  });

  it('logs a failed sweep as one line without a stack and resolves to the failed result', async () => {
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const periodic = sweepOf(() => Promise.reject(new Error('connection refused')));
    await expect(periodic.run()).resolves.toBe(-1);
    expect(warn.mock.calls).toEqual([['Sweeping failed: Error: connection refused']]);
    // the next sweep runs again (the failed one no longer counts as in flight)
    const sweep = jest.fn().mockResolvedValue(0);
    await expect(periodic.run(sweep)).resolves.toBe(0);
    expect(sweep).toHaveBeenCalledTimes(1);
  });
});
