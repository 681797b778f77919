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
  // The chunks are written as the strings they are: Node encodes them into memory of its own for
  // the write and frees it when the write is done. A Buffer of each (~520 kB a page) was memory V8
  // counts as external, freed only by a GC: it made V8 start a mark-compact every ~250 ms while
  // pages were read (2.4 times as many; docs/performance.md, "Events feed, eighth pass").
  const { chunks } = page;
  const length = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk), head.length + tail.length + Math.max(0, chunks.length - 1));
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
