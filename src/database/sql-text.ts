/**
 * Shared SQL helpers: fragments of SQL text that belong to no module (a module's own SQL stays in
 * its `*.statements.ts`; docs/extending.md, "Data access").
 */

/** SQL of a timestamptz as JavaScript's toISOString writes it (UTC, milliseconds, `Z`): the API's times. */
export const isoTimeSql = (time: string): string => `to_char(${time} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
