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
  /** The rest of the span as exported (OTLP JSON), with its scope's version and its resource's attributes. */
  otlp: {
    traceState?: string;
    flags?: number;
    status?: { code?: number; message?: string };
    events?: unknown[];
    links?: unknown[];
    droppedAttributesCount?: number;
    droppedEventsCount?: number;
    droppedLinksCount?: number;
    scopeVersion?: string;
    resource: Record<string, string | number | boolean>;
  };
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
      resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
      scopeSpans: Array<{
        scope: { name: string; version?: string };
        spans: Array<
          { name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string; attributes?: Array<{ key: string; value: OtlpValue }> } & Omit<
            ReceivedSpan['otlp'],
            'scopeVersion' | 'resource'
          >
        >;
      }>;
    }>;
  };
  const valuesOf = (list: Array<{ key: string; value: OtlpValue }> | undefined) => {
    const values: ReceivedSpan['attributes'] = {};
    for (const { key, value } of list ?? []) {
      values[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue ?? ''));
    }
    return values;
  };
  const out: ReceivedSpan[] = [];
  for (const resource of parsed.resourceSpans) {
    const resourceAttributes = valuesOf(resource.resource?.attributes);
    for (const scoped of resource.scopeSpans) {
      for (const span of scoped.spans) {
        const attributes = valuesOf(span.attributes);
        const { traceState, flags, status, events, links, droppedAttributesCount, droppedEventsCount, droppedLinksCount } = span;
        out.push({
          scope: scoped.scope.name,
          name: span.name,
          kind: span.kind,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          attributes,
          otlp: {
            traceState,
            flags,
            status,
            events,
            links,
            droppedAttributesCount,
            droppedEventsCount,
            droppedLinksCount,
            scopeVersion: scoped.scope.version,
            resource: resourceAttributes,
          },
        });
      }
    }
  }
  return out;
}
