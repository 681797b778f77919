/**
 * Every attribute the HTTP server span (@opentelemetry/instrumentation-http, with the route from
 * the Express instrumentation) has for one request from Node's client on 127.0.0.1, as exported
 * (test/ops/tracing.e2e-spec.ts).
 */
export function httpServerSpanAttributes(request: { method: string; path: string; route: string; status: number; port: number }) {
  return {
    'http.request.method': request.method,
    'url.scheme': 'http',
    'url.path': request.path,
    'network.peer.address': '127.0.0.1',
    'network.peer.port': expect.any(Number),
    'network.protocol.version': '1.1',
    'user_agent.original': 'node',
    'server.address': '127.0.0.1',
    'server.port': request.port,
    'http.response.status_code': request.status,
    'http.route': request.route,
    'client.address': '127.0.0.1',
  };
}
