import { DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { DATABASE_OPTIONS, Database, type DatabaseOptions } from './database';
import { PrismaService } from './prisma.service';

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig & { DATABASE_URL: string }): DynamicModule {
    const options: DatabaseOptions = {
      url: config.DATABASE_URL,
      poolSize: config.DB_POOL_SIZE,
      connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    };
    return {
      module: DatabaseModule,
      providers: [{ provide: DATABASE_OPTIONS, useValue: options }, Database, PrismaService],
      exports: [Database, PrismaService],
    };
  }
}
