import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { EventsModule } from '../events/events.module';
import { CustomFieldsRepository } from './custom-fields.repository';
import { CUSTOM_FIELDS_STATEMENTS } from './custom-fields.statements';
import { FieldsController } from './fields.controller';

@Module({ imports: [EventsModule], controllers: [FieldsController], providers: [CustomFieldsRepository], exports: [CustomFieldsRepository] })
export class CustomFieldsModule {
  constructor(statements: StatementRegistry) {
    statements.register(CUSTOM_FIELDS_STATEMENTS);
  }
}
