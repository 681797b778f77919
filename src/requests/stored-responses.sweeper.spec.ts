import { Logger } from '@nestjs/common';
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

  it('sweeps every interval on a timer that never keeps the process alive, and stops on shutdown', async () => {
    const deleteExpired = jest.fn().mockResolvedValue(0);
    const sweeper = sweeperWith(deleteExpired);
    const setIntervalSpy = jest.spyOn(global, 'setInterval');
    sweeper.onApplicationBootstrap();
    const timer = setIntervalSpy.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);

    await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS * 2);
    expect(deleteExpired).toHaveBeenCalledTimes(2);
    await sweeper.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS * 2);
    expect(deleteExpired).toHaveBeenCalledTimes(2);
  });

  it('logs a failed sweep instead of throwing', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const sweeper = sweeperWith(jest.fn().mockRejectedValue(new Error('database down')));
    await expect(sweeper.sweep()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('database down'));
  });
});
