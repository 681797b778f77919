import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { EventsModule } from '../events/events.module';
import { ListsController } from './lists.controller';
import { ListsRepository } from './lists.repository';
import { LISTS_STATEMENTS } from './lists.statements';

@Module({ imports: [EventsModule], controllers: [ListsController], providers: [ListsRepository], exports: [ListsRepository] })
export class ListsModule {
  constructor(statements: StatementRegistry) {
    statements.register(LISTS_STATEMENTS);
  }
}
