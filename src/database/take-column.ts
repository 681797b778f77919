/**
 * Each row's `column`, in row order; the rows are then let go of it (set to null). For the
 * large text columns of hot statements (the events feed's chunks of ~50 kB): pg's row objects of a
 * page outlive it in V8's old generation (in a bare pg client reading feed pages, most were
 * collected only by a full GC, ~30 pages later) and, until then, keep their strings alive through
 * every young-generation GC, which copies and promotes them: ~500 kB a page (docs/performance.md,
 * "Events feed, fifth pass"). Let go of, the strings die young with the request.
 */
export function takeColumn<R, K extends keyof R>(rows: R[], column: K): Array<R[K]> {
  const values = rows.map((row) => row[column]);
  for (const row of rows) row[column] = null as R[K];
  return values;
}
