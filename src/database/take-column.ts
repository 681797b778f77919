/**
 * Each row's `column`, in row order; the rows are then let go of it (set to null). For the
 * large text columns of hot statements (the events feed's chunks of ~50 kB): the strings of pg's
 * row objects of a page were still reachable through those rows at the next young-generation GC,
 * which copied and promoted them (~450 kB a page, collected only by the next full GC); let go of,
 * they die young with the request. Measured, not explained (docs/performance.md, "Events feed,
 * fifth pass").
 */
export function takeColumn<R, K extends keyof R>(rows: R[], column: K): Array<R[K]> {
  const values = rows.map((row) => row[column]);
  for (const row of rows) row[column] = null as R[K];
  return values;
}
