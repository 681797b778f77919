import type { Server } from 'node:http';
import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { flagUnmetExpectation } from './http-body/expectation';
import { brokenPathEncodingMiddleware } from './http-body/path-encoding';
import { requestIdMiddleware } from './common/request-id';
import { securityHeadersMiddleware } from './common/security-headers';
import type { AppConfig } from './config/app-config';
import type { DatabaseTarget } from './database/database.module';
import { setupDocs } from './docs/setup-docs';
import { answerClientError, answerConnect, trackResponses } from './http-body/client-error';
import { trackConnections } from './http-body/graceful-shutdown';
import { httpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { MetricsService } from './metrics/metrics.service';
import { IpRateLimitMiddleware } from './rate-limit/ip-rate-limit.middleware';
import { unsampledRequestsUntraced } from './tracing/unsampled-requests';

/**
 * Builds the application exactly as production runs it; main.ts and the e2e tests both use it,
 * so pipes, filters, guards and middleware are the same everywhere. `extraModules` mounts
 * test-only modules (e.g. test/example-module's) behind the same pipeline.
 */
export async function createApp(
  config: AppConfig & DatabaseTarget,
  extraModules: Array<Type | DynamicModule> = [],
): Promise<NestExpressApplication> {
  const root = AppModule.forRoot(config);
  const module = extraModules.length ? { ...root, imports: [...(root.imports ?? []), ...extraModules] } : root;
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bodyParser: false, // bodies are read after the guards (key, limits, scope), by ReadBodyGuard
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(unsampledRequestsUntraced); // first: nothing under an unsampled request makes a span
  app.use(requestIdMiddleware);
  app.use(securityHeadersMiddleware);
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  app.use(app.get(IpRateLimitMiddleware).handle); // per-IP limit: before routing and authentication
  app.use(brokenPathEncodingMiddleware); // refused later, after the key and the organization limit
  setupDocs(app);

  const server: Server = app.getHttpServer();
  trackResponses(server); // what answerClientError needs to know of a connection
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect); // otherwise closed by Node with no answer at all
  // No automatic "100 Continue": a client that waits for it is told to send its body only when
  // the body is about to be read, after the key, the limits and the scope (ReadBodyGuard).
  server.on('checkContinue', (req, res) => server.emit('request', req, res));
  // Any other expectation: not Node's bare 417 but the contract's answer (UnmetExpectationGuard).
  server.on('checkExpectation', (req, res) => {
    flagUnmetExpectation(req);
    server.emit('request', req, res);
  });
  // Headers not received in time: 408 REQUEST_TIMEOUT (answerClientError), checked every
  // second rather than Node's 30 s. The body has its own timeout in the body reader; the
  // request timeout is a backstop for bodies nobody reads.
  server.headersTimeout = config.HEADERS_TIMEOUT_MS;
  server.requestTimeout = config.HEADERS_TIMEOUT_MS + config.BODY_TIMEOUT_MS;
  // Read by Node when the server starts listening (an option of createServer, untyped as a property).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1000, config.HEADERS_TIMEOUT_MS);
  trackConnections(server); // SIGTERM drain (drainHttpServer)
  return app;
}
