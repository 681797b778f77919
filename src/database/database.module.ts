import { DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { DATABASE_OPTIONS, Database, type DatabaseOptions } from './database';
import { PrismaService } from './prisma.service';

/** Where the database is: its URL and, for the embedded server, its data folder. */
export interface DatabaseTarget {
  DATABASE_URL: string;
  EMBEDDED_DATA_DIR?: string;
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig & DatabaseTarget): DynamicModule {
    const options: DatabaseOptions = {
      url: config.DATABASE_URL,
      poolSize: config.DB_POOL_SIZE,
      connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      dataDir: config.EMBEDDED_DATA_DIR,
    };
    return {
      module: DatabaseModule,
      providers: [{ provide: DATABASE_OPTIONS, useValue: options }, Database, PrismaService],
      exports: [Database, PrismaService],
    };
  }
}
