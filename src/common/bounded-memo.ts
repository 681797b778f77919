/**
 * `compute` remembered per key, for values that are few and repeat (a webhook's URL, a secret's
 * key, a statement's text). Bounded: past `limit` keys it starts over, so a flood of distinct keys
 * costs memory only up to the limit.
 */
export function boundedMemo<K, V>(limit: number, compute: (key: K) => V): (key: K) => V {
  const values = new Map<K, V>();
  return (key) => {
    if (values.has(key)) return values.get(key) as V;
    const value = compute(key);
    if (values.size >= limit) values.clear();
    values.set(key, value);
    return value;
  };
}
