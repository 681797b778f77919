import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { brokenPathEncodingMiddleware } from './common/path-encoding';
import { requestIdMiddleware } from './common/request-id';
import type { AppConfig } from './config/app-config';
import { setupDocs } from './docs/setup-docs';
import { httpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { MetricsService } from './metrics/metrics.service';
import { IpRateLimitMiddleware } from './rate-limit/ip-rate-limit.middleware';

/**
 * Builds the application exactly as production runs it; main.ts and the e2e tests both use it,
 * so pipes, filters, guards and middleware are the same everywhere.
 */
export async function createApp(config: AppConfig & { DATABASE_URL: string }): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false, // bodies are read after authentication, by JsonBodyInterceptor
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(requestIdMiddleware);
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  app.use(app.get(IpRateLimitMiddleware).handle); // per-IP limit: before routing and authentication
  app.use(brokenPathEncodingMiddleware); // refused later, after the key and the organization limit
  setupDocs(app);
  return app;
}
