import { Logger } from '@nestjs/common';
import { FIRST_SWEEP_AFTER_MS } from '../common/periodic-sweep';
import type { StoredResponsesRepository } from './stored-responses.repository';
import { SWEEP_INTERVAL_MS, StoredResponsesSweeper } from './stored-responses.sweeper';

describe('StoredResponsesSweeper', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  const sweeperWith = (deleteExpired: jest.Mock) =>
    new StoredResponsesSweeper({ deleteExpired } as unknown as StoredResponsesRepository);

  it('sweeps one minute after boot and then every interval, on timers that never keep the process alive, and stops on shutdown', async () => {
    const deleteExpired = jest.fn().mockResolvedValue(0);
    const sweeper = sweeperWith(deleteExpired);
    const setTimeoutSpy = jest.spyOn(global, 'setTimeout');
    const setIntervalSpy = jest.spyOn(global, 'setInterval');
    sweeper.onApplicationBootstrap();
    const timers = [...setTimeoutSpy.mock.results, ...setIntervalSpy.mock.results].map((r) => r.value as NodeJS.Timeout);
    expect(timers).toHaveLength(2);
    expect(timers.map((timer) => timer.hasRef())).toEqual([false, false]);

    // an instance restarted more often than the interval still sweeps: the first sweep comes after one minute
    await jest.advanceTimersByTimeAsync(FIRST_SWEEP_AFTER_MS - 1);
    expect(deleteExpired).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(deleteExpired).toHaveBeenCalledTimes(1);
    // then one sweep per interval, counted from boot
    await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS - FIRST_SWEEP_AFTER_MS);
    expect(deleteExpired).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS);
    expect(deleteExpired).toHaveBeenCalledTimes(3);
    await sweeper.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS * 2);
    expect(deleteExpired).toHaveBeenCalledTimes(3);
  });

  it('a shutdown before the first sweep cancels it', async () => {
    const deleteExpired = jest.fn().mockResolvedValue(0);
    const sweeper = sweeperWith(deleteExpired);
    sweeper.onApplicationBootstrap();
    await sweeper.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS * 2);
    expect(deleteExpired).not.toHaveBeenCalled();
  });

  it('logs a failed sweep instead of throwing', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const sweeper = sweeperWith(jest.fn().mockRejectedValue(new Error('database down')));
    await expect(sweeper.sweep()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('database down'));
  });
});
