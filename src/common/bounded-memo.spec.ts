import { boundedMemo } from './bounded-memo';

describe('boundedMemo', () => {
  it('computes each key once, remembers undefined and null answers too, and starts over past its limit', () => {
    const compute = jest.fn((key: string) => (key === 'none' ? null : key.toUpperCase()));
    const memo = boundedMemo(2, compute);
    expect([memo('a'), memo('a'), memo('none'), memo('none')]).toEqual(['A', 'A', null, null]);
    expect(compute).toHaveBeenCalledTimes(2);
    memo('b'); // a third key: the memo starts over, keeping only 'b'
    memo('a');
    expect(compute.mock.calls.map(([key]) => key)).toEqual(['a', 'none', 'b', 'a']);
  });
});
