import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { EventsModule } from '../events/events.module';
import { ListMembershipsController } from './list-memberships.controller';
import { ListMembershipsRepository } from './list-memberships.repository';
import { ListMembershipsService } from './list-memberships.service';
import { LIST_MEMBERSHIPS_STATEMENTS } from './list-memberships.statements';

/** Taking contacts off lists (docs/api.md, "Removing from lists"). */
@Module({ imports: [EventsModule], controllers: [ListMembershipsController], providers: [ListMembershipsRepository, ListMembershipsService] })
export class ListMembershipsModule {
  constructor(statements: StatementRegistry) {
    statements.register(LIST_MEMBERSHIPS_STATEMENTS);
  }
}
