import { takeColumn } from './take-column';

describe('takeColumn', () => {
  it('returns the column in row order and leaves null in the rows, other columns untouched', () => {
    const rows = [
      { chunk: 1, events: 'b' },
      { chunk: 0, events: 'a' },
    ];
    expect(takeColumn(rows, 'events')).toEqual(['b', 'a']);
    expect(rows).toEqual([
      { chunk: 1, events: null },
      { chunk: 0, events: null },
    ]);
  });
});
