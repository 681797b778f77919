/** At most 50 contacts per batch (docs/api.md#endpoints). */
export const BATCH_LIMIT = 50;

/**
 * One contact input after the shape check (docs/api.md#a-contact; see dto/create-contact.dto.ts).
 * `email` is still unchecked (it is rule 1, a per-contact failure, not a shape error). `fields` is
 * a Map so that a key named `__proto__` or `constructor` stays an ordinary key and never touches a
 * prototype.
 */
export interface ContactInput {
  email: unknown;
  listIds: string[] | undefined;
  fields: ReadonlyMap<string, unknown>;
  overwrite: boolean;
}
