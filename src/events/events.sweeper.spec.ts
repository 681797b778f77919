import type { AppConfig } from '../config/app-config';
import type { EventsRepository } from './events.repository';
import { FIRST_SWEEP_AFTER_MS } from '../common/periodic-sweep';
import { EVENT_SWEEP_INTERVAL_MS, EventsSweeper } from './events.sweeper';

/** When the retention sweep runs: once soon after boot, then on the interval (not only after a full interval). */
describe('EventsSweeper schedule', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sweeps one minute after boot and then every interval', async () => {
    const deleteExpired = jest.fn().mockResolvedValue({ events: 0, commits: 0 });
    const sweeper = new EventsSweeper(
      { deleteExpired } as unknown as EventsRepository,
      { EVENT_RETENTION_DAYS: 7 } as AppConfig,
    );
    sweeper.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(FIRST_SWEEP_AFTER_MS - 1);
    expect(deleteExpired).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(deleteExpired).toHaveBeenCalledTimes(1);
    expect(deleteExpired).toHaveBeenCalledWith(7, expect.any(Number));
    await jest.advanceTimersByTimeAsync(EVENT_SWEEP_INTERVAL_MS - FIRST_SWEEP_AFTER_MS);
    expect(deleteExpired).toHaveBeenCalledTimes(2);
    await sweeper.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(EVENT_SWEEP_INTERVAL_MS);
    expect(deleteExpired).toHaveBeenCalledTimes(2);
  });
});
