import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { CustomFieldsModule } from '../custom-fields/custom-fields.module';
import { StatementRegistry } from '../database/statements';
import { SuppressionsModule } from '../suppressions/suppressions.module';
import { ImportWorker } from './import-worker.service';
import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';
import { IMPORTS_STATEMENTS } from './imports.statements';

/** Imports of contract section 17: the upload, the reads and the processing shared by every instance. */
@Module({
  imports: [ContactsModule, CustomFieldsModule, SuppressionsModule],
  controllers: [ImportsController],
  providers: [ImportsService, ImportWorker],
})
export class ImportsModule {
  constructor(statements: StatementRegistry) {
    statements.register(IMPORTS_STATEMENTS);
  }
}
