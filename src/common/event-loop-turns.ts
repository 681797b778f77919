import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/**
 * Lets long per-row work share the event loop: `turn()` hands the loop to whatever else waits
 * (other requests' callbacks, I/O) once `sliceMs` of work ran since the last hand-over, and costs
 * one clock read otherwise. Work that awaits only promises that are already settled (an async
 * generator fed from a buffer, a loop over rows) never lets timers and I/O run on its own.
 */
export class EventLoopTurns {
  private since: number;

  /**
   * `sliceMs`: the longest stretch of work before a hand-over; 5 ms keeps another request's wait
   * for the loop well under its own time, for a clock read per row.
   */
  constructor(
    private readonly sliceMs = 5,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.since = now();
  }

  async turn(): Promise<void> {
    if (this.now() - this.since < this.sliceMs) return;
    await nextTurn();
    this.since = this.now();
  }
}
