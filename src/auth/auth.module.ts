import { Module } from '@nestjs/common';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyRepository } from './api-key.repository';

@Module({
  providers: [ApiKeyRepository, ApiKeyGuard],
  exports: [ApiKeyRepository, ApiKeyGuard],
})
export class AuthModule {}
