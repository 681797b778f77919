import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { ListMembershipsController } from './list-memberships.controller';
import { ListMembershipsRepository } from './list-memberships.repository';
import { ListMembershipsService } from './list-memberships.service';

/** Taking contacts off lists (docs/api.md, "Removing from lists"). */
@Module({ imports: [EventsModule], controllers: [ListMembershipsController], providers: [ListMembershipsRepository, ListMembershipsService] })
export class ListMembershipsModule {}
