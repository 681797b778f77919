import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthModule } from './auth/auth.module';
import { ScopeGuard } from './auth/scope.guard';
import { ContactsModule } from './contacts/contacts.module';
import { CustomFieldsModule } from './custom-fields/custom-fields.module';
import { BrokenPathEncodingGuard } from './http-body/path-encoding';
import { APP_CONFIG, type AppConfig } from './config/app-config';
import { DatabaseModule, type DatabaseTarget } from './database/database.module';
import { RequestErrorFilter } from './errors/request-error.filter';
import { HealthModule } from './health/health.module';
import { UnmetExpectationGuard } from './http-body/expectation';
import { ListMembershipsModule } from './list-memberships/list-memberships.module';
import { ListsModule } from './lists/lists.module';
import { loggerParams } from './logging/logging';
import { MetricsModule } from './metrics/metrics.module';
import { OrgRateLimitGuard } from './rate-limit/org-rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RequestsModule } from './requests/requests.module';
import { ErasureModule } from './erasure/erasure.module';
import { EventsModule } from './events/events.module';
import { SuppressionsModule } from './suppressions/suppressions.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { RequestValidationPipe } from './validation/request-validation.pipe';
import { DryRunOnlyWhereOffered } from './contacts/dry-run.pipe';

/**
 * The request path, in order: request id and per-IP limit (middleware) → ApiKeyGuard →
 * organization limit (guard) → key scope (guard) → the route's guards → JsonBodyGuard (size, JSON;
 * a route guard every POST and PATCH route names, after its header checks: `@JsonBody()` or
 * `@TakesNoBody()`; not global, so GET and DELETE routes never run it) → the route's after-body
 * checks (DryRunCheck) → controller → pipeline. Global guards run in the order they are listed here.
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
        ContactsModule,
        SuppressionsModule,
        ErasureModule,
        ListMembershipsModule,
        RequestsModule,
        EventsModule,
        RateLimitModule,
        WebhooksModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_GUARD, useExisting: ApiKeyGuard },
        { provide: APP_GUARD, useExisting: OrgRateLimitGuard }, // right after the key: it needs the caller
        { provide: APP_GUARD, useExisting: ScopeGuard }, // after the limit, so a 403 counts; before the body
        { provide: APP_GUARD, useClass: BrokenPathEncodingGuard }, // path checks come after both limits
        { provide: APP_GUARD, useClass: UnmetExpectationGuard }, // so does an Expect other than 100-continue
        { provide: APP_GUARD, useClass: DryRunOnlyWhereOffered }, // ?dryRun on a route without one: 400, nothing done
        { provide: APP_PIPE, useClass: RequestValidationPipe }, // request DTOs (class-validator)
        { provide: APP_FILTER, useClass: RequestErrorFilter },
      ],
      exports: [APP_CONFIG],
    };
  }
}
