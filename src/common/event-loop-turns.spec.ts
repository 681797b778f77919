import { EventLoopTurns } from './event-loop-turns';

describe('EventLoopTurns', () => {
  it('hands the loop over (a waiting callback runs) once a slice of work has passed, and only then', async () => {
    let clock = 0;
    const turns = new EventLoopTurns(5, () => clock);
    let ran = 0;
    const waiting = () => setImmediate(() => ran++);

    waiting();
    clock = 4;
    await turns.turn();
    expect(ran).toBe(0);

    clock = 5;
    await turns.turn();
    expect(ran).toBe(1);

    // The slice starts again at the hand-over.
    waiting();
    clock = 9;
    await turns.turn();
    expect(ran).toBe(1);
    clock = 10;
    await turns.turn();
    expect(ran).toBe(2);
  });
});
