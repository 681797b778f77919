import { Module } from '@nestjs/common';
import { ListsController } from './lists.controller';
import { ListsRepository } from './lists.repository';

@Module({ controllers: [ListsController], providers: [ListsRepository], exports: [ListsRepository] })
export class ListsModule {}
