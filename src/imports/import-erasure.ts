import { runIn, type SqlClient } from '../database/statements';
import { ERASE_IMPORT_ROWS } from './imports.statements';

/** Erasure's part in imports: every import row and result of the address loses it, in erasure's transaction. Returns how many rows. */
export async function eraseImportRows(tx: SqlClient, organizationId: string, email: string): Promise<number> {
  const [row] = await runIn(tx, ERASE_IMPORT_ROWS, [organizationId, email]);
  return row.erased;
}
