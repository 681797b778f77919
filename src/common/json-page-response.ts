import type { Response } from 'express';

/**
 * Written between two chunks, instead of a copy of the next chunk behind a comma (`,${chunk}`):
 * such a copy would allocate a new string as large as the page itself.
 */
const COMMA = Buffer.from(',');

/**
 * A page whose items PostgreSQL already rendered as JSON text (the events feed, the contacts
 * listing): `{ "request_id": …, "<items>": [ …chunks… ], "nextCursor": … }`, written chunk by
 * chunk with its Content-Length, so the body of 1,000 items is never one string or one buffer.
 * Fresh large allocations are what costs here: a string of the whole body and its Buffer cost
 * several times the CPU of writing the same bytes in chunks.
 *
 * `chunks`: the array's members in order, comma-separated within a chunk; none for an empty page.
 */
export function sendJsonPage(res: Response, page: { requestId: string; itemsKey: string; chunks: readonly string[]; nextCursor: string | null }): void {
  const head = Buffer.from(`{"request_id":${JSON.stringify(page.requestId)},${JSON.stringify(page.itemsKey)}:[`);
  const tail = Buffer.from(`],"nextCursor":${JSON.stringify(page.nextCursor)}}`);
  // The chunks are written as the strings they are: Node encodes them into memory of its own for
  // the write and frees it when the write is done. A Buffer of each would be memory V8 counts as
  // external, freed only by a GC, and large pages of it make V8 start mark-compacts far more often
  // while pages are read.
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
