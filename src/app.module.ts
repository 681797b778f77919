import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthModule } from './auth/auth.module';
import { ScopeGuard } from './auth/scope.guard';
import { ContactsModule } from './contacts/contacts.module';
import { ExportsModule } from './exports/exports.module';
import { CustomFieldsModule } from './custom-fields/custom-fields.module';
import { BrokenPathEncodingGuard } from './http-body/path-encoding';
import { APP_CONFIG, type AppConfig } from './config/app-config';
import { DatabaseModule, type DatabaseTarget } from './database/database.module';
import { RequestErrorFilter } from './errors/request-error.filter';
import { HealthModule } from './health/health.module';
import { UnmetExpectationGuard } from './http-body/expectation';
import { ReadBodyGuard } from './http-body/read-body.guard';
import { ListMembershipsModule } from './list-memberships/list-memberships.module';
import { ListsModule } from './lists/lists.module';
import { loggerParams } from './logging/logging';
import { MetricsModule } from './metrics/metrics.module';
import { OrgRateLimitGuard } from './rate-limit/org-rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { ClientRequestIdGuard } from './requests/client-request-id';
import { RequestsModule } from './requests/requests.module';
import { ErasureModule } from './erasure/erasure.module';
import { EventsModule } from './events/events.module';
import { SuppressionsModule } from './suppressions/suppressions.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { ImportsModule } from './imports/imports.module';
import { RequestValidationPipe } from './validation/request-validation.pipe';
import { DryRunOnlyWhereOffered } from './contacts/dry-run.pipe';

/**
 * The request path, in order: request id, security headers and per-IP limit (middleware) →
 * routing → ApiKeyGuard → organization limit → key scope → path, Expect, ?dryRun and
 * X-Client-Request-Id checks → ReadBodyGuard (on POST and PATCH: size, media type, encoding, JSON)
 * (the global guards, in the order listed here) → pipes (the body's shape, query values) →
 * controller → pipeline. So no body is read before the key, the limits and the scope have passed.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig & DatabaseTarget): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        LoggerModule.forRoot(loggerParams(config)),
        DatabaseModule.forRoot(config),
        MetricsModule,
        AuthModule,
        HealthModule,
        ListsModule,
        CustomFieldsModule,
        ExportsModule, // before ContactsModule: GET /contacts/export, not /contacts/:email
        ContactsModule,
        SuppressionsModule,
        ErasureModule,
        ListMembershipsModule,
        RequestsModule,
        EventsModule,
        RateLimitModule,
        WebhooksModule,
        ImportsModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_GUARD, useExisting: ApiKeyGuard },
        { provide: APP_GUARD, useExisting: OrgRateLimitGuard }, // right after the key: it needs the caller
        { provide: APP_GUARD, useExisting: ScopeGuard }, // after the limit, so a 403 counts
        { provide: APP_GUARD, useClass: BrokenPathEncodingGuard }, // path checks come after both limits
        { provide: APP_GUARD, useClass: UnmetExpectationGuard }, // so does an Expect other than 100-continue
        { provide: APP_GUARD, useClass: DryRunOnlyWhereOffered }, // ?dryRun: bad, or on a route without one: 400, nothing done
        { provide: APP_GUARD, useClass: ClientRequestIdGuard }, // on the routes that take X-Client-Request-Id
        { provide: APP_GUARD, useClass: ReadBodyGuard }, // the last guard: the body is read after every check
        { provide: APP_PIPE, useClass: RequestValidationPipe }, // request DTOs (class-validator)
        { provide: APP_FILTER, useClass: RequestErrorFilter },
      ],
      exports: [APP_CONFIG],
    };
  }
}
