import type { Response } from 'express';

/**
 * Written between two chunks, instead of a copy of the next chunk behind a comma (`,${chunk}`:
 * ~500 kB of new strings a page, a third of what a feed page allocated; docs/performance.md,
 * "Events feed, fifth pass").
 */
const COMMA = Buffer.from(',');

/**
 * A page whose items PostgreSQL already rendered as JSON text (the events feed, the contacts
 * listing): `{ "request_id": …, "<items>": [ …chunks… ], "nextCursor": … }`, written chunk by
 * chunk with its Content-Length, so the ~500–600 kB body of 1,000 items is never one string or one
 * buffer. Fresh large allocations are what costs here (a string of the whole body and its Buffer:
 * 7 ms of CPU a page, against under 1 ms for the same bytes in ~60 kB chunks; docs/performance.md,
 * "Events feed").
 *
 * `chunks`: the array's members in order, comma-separated within a chunk; none for an empty page.
 */
export function sendJsonPage(res: Response, page: { requestId: string; itemsKey: string; chunks: readonly string[]; nextCursor: string | null }): void {
  const head = Buffer.from(`{"request_id":${JSON.stringify(page.requestId)},${JSON.stringify(page.itemsKey)}:[`);
  const tail = Buffer.from(`],"nextCursor":${JSON.stringify(page.nextCursor)}}`);
  const chunks = page.chunks.map((chunk) => Buffer.from(chunk));
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, head.length + tail.length + Math.max(0, chunks.length - 1));
  res.status(200);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(length));
  res.write(head);
  chunks.forEach((chunk, i) => {
    if (i > 0) res.write(COMMA);
    res.write(chunk);
  });
  res.end(tail);
}
