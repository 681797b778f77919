import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { CustomFieldsRepository } from './custom-fields.repository';
import { FieldsController } from './fields.controller';

@Module({ imports: [EventsModule], controllers: [FieldsController], providers: [CustomFieldsRepository], exports: [CustomFieldsRepository] })
export class CustomFieldsModule {}
