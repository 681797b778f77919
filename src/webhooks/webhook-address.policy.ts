import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { type Resolver, systemResolver, type TargetPolicy } from './webhook-address';

/** The address policy of this instance: WEBHOOK_ALLOW_INSECURE and the resolver (the system's; tests inject another). */
@Injectable()
export class WebhookAddressPolicy {
  private resolver: Resolver = systemResolver;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  policy(): TargetPolicy {
    return { allowInsecure: this.config.WEBHOOK_ALLOW_INSECURE, resolve: this.resolver };
  }

  /** For tests: answer DNS questions with `resolver` (a hostile one, for instance). */
  useResolver(resolver: Resolver): void {
    this.resolver = resolver;
  }
}
