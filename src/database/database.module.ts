import { DynamicModule, Global, Module } from '@nestjs/common';
import { type AppConfig, connectionTimeouts } from '../config/app-config';
import { DATABASE_ERROR_CLASSIFIER, type DatabaseErrorClassifier } from '../errors/request-error.filter';
import { DATABASE_OPTIONS, Database, type DatabaseOptions } from './database';
import { classifyDatabaseError } from './database-errors';
import { PrismaService } from './prisma.service';
import { StatementRegistry } from './statements';
import { WarmUpService } from './warm-up.service';

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
      ...connectionTimeouts(config),
      dataDir: config.EMBEDDED_DATA_DIR,
    };
    // Errors that leave Prisma Client unclassified are classified once, by the global filter.
    const classifier: DatabaseErrorClassifier = (error) => classifyDatabaseError(error);
    return {
      module: DatabaseModule,
      providers: [
        { provide: DATABASE_OPTIONS, useValue: options },
        { provide: DATABASE_ERROR_CLASSIFIER, useValue: classifier },
        Database,
        PrismaService,
        StatementRegistry,
        WarmUpService,
      ],
      exports: [Database, PrismaService, StatementRegistry, DATABASE_ERROR_CLASSIFIER],
    };
  }
}
