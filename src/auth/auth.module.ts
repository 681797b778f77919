import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyRepository } from './api-key.repository';
import { AUTH_STATEMENTS } from './auth.statements';
import { ScopeGuard } from './scope.guard';

@Module({
  providers: [ApiKeyRepository, ApiKeyGuard, ScopeGuard],
  exports: [ApiKeyRepository, ApiKeyGuard, ScopeGuard],
})
export class AuthModule {
  constructor(statements: StatementRegistry) {
    statements.register(AUTH_STATEMENTS);
  }
}
