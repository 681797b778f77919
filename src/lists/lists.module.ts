import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { ListsController } from './lists.controller';
import { ListsRepository } from './lists.repository';

@Module({ imports: [EventsModule], controllers: [ListsController], providers: [ListsRepository], exports: [ListsRepository] })
export class ListsModule {}
