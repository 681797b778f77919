import type { Response } from 'express';

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
  const chunks = page.chunks.map((chunk, i) => Buffer.from(i === 0 ? chunk : `,${chunk}`));
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, head.length + tail.length);
  res.status(200);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(length));
  res.write(head);
  for (const chunk of chunks) res.write(chunk);
  res.end(tail);
}
