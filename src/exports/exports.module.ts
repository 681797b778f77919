import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { ExportsController } from './exports.controller';
import { EXPORTS_STATEMENTS } from './exports.statements';

/**
 * GET /api/v2/contacts/export (contract section 17). Listed before ContactsModule in AppModule:
 * routes are matched in registration order, and ContactsController's GET /contacts/:email would
 * otherwise take `export` for an email.
 */
@Module({ controllers: [ExportsController] })
export class ExportsModule {
  constructor(statements: StatementRegistry) {
    statements.register(EXPORTS_STATEMENTS);
  }
}
