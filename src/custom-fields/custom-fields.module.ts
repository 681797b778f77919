import { Module } from '@nestjs/common';
import { CustomFieldsRepository } from './custom-fields.repository';
import { FieldsController } from './fields.controller';

@Module({ controllers: [FieldsController], providers: [CustomFieldsRepository], exports: [CustomFieldsRepository] })
export class CustomFieldsModule {}
