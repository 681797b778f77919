import { Module } from '@nestjs/common';
import { ListCopiesController } from './list-copies.controller';
import { ListCopiesRepository } from './list-copies.repository';
import { ListCopiesService } from './list-copies.service';

@Module({ controllers: [ListCopiesController], providers: [ListCopiesService, ListCopiesRepository] })
export class ListCopiesModule {}
