/** How long an answer can be read back (docs/api.md, "Lost responses"). */
export const STORED_RESPONSE_TTL_HOURS = 24;

/** An answer as sent: HTTP status and body. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** What GET /requests answers as `original`. */
export interface StoredAnswer extends Answer {
  request_id: string;
  /** Present when the POST sent X-Client-Request-Id; absent (not null) when it sent none. */
  client_request_id?: string;
}
