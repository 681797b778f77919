import { Module } from '@nestjs/common';
import { StatementRegistry } from '../../src/database/statements';
import { ListCopiesController } from './list-copies.controller';
import { ListCopiesRepository } from './list-copies.repository';
import { ListCopiesService } from './list-copies.service';
import { LIST_COPIES_STATEMENTS } from './list-copies.statements';

@Module({ controllers: [ListCopiesController], providers: [ListCopiesService, ListCopiesRepository] })
export class ListCopiesModule {
  constructor(statements: StatementRegistry) {
    statements.register(LIST_COPIES_STATEMENTS);
  }
}
