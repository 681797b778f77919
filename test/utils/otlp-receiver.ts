import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, flattened with its scope. */
export interface ReceivedSpan {
  scope: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, string | number | boolean>;
}

/** SPAN_KIND_SERVER in OTLP. */
export const SERVER_KIND = 2;
/** SPAN_KIND_CLIENT in OTLP. */
export const CLIENT_KIND = 3;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

/**
 * A real OTLP/HTTP receiver on 127.0.0.1 (POST /v1/traces, JSON encoding): the service exports
 * to it over the network exactly as it would to a collector, and the test reads what arrived.
 */
export async function startOtlpReceiver(): Promise<{
  endpoint: string;
  spans: ReceivedSpan[];
  contentTypes: string[];
  close(): Promise<void>;
}> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      if (req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) {
        spans.push(...parseExport(Buffer.concat(chunks).toString()));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function parseExport(body: string): ReceivedSpan[] {
  const parsed = JSON.parse(body) as {
    resourceSpans: Array<{
      scopeSpans: Array<{
        scope: { name: string };
        spans: Array<{ name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string; attributes?: Array<{ key: string; value: OtlpValue }> }>;
      }>;
    }>;
  };
  const out: ReceivedSpan[] = [];
  for (const resource of parsed.resourceSpans) {
    for (const scoped of resource.scopeSpans) {
      for (const span of scoped.spans) {
        const attributes: ReceivedSpan['attributes'] = {};
        for (const { key, value } of span.attributes ?? []) {
          attributes[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue ?? ''));
        }
        out.push({
          scope: scoped.scope.name,
          name: span.name,
          kind: span.kind,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          attributes,
        });
      }
    }
  }
  return out;
}
