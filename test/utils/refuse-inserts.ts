import type { PrismaService } from '../../src/database/prisma.service';

/**
 * Makes PostgreSQL itself refuse inserts into `table` whose new row matches `condition` (SQL over
 * NEW), with a real error raised inside the app's transaction: how tests prove that a failed
 * write leaves nothing behind. `name` names the trigger and its function (unique per database).
 */
export async function refuseInsertsWhere(prisma: PrismaService, name: string, table: string, condition: string): Promise<void> {
  await prisma.$executeRawUnsafe(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${condition} THEN RAISE EXCEPTION '${name}: insert refused by the test'; END IF;
      RETURN NEW;
    END $$`);
  await prisma.$executeRawUnsafe(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
}
