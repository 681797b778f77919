/** Contract section 7: at most 50 contacts per batch. */
export const BATCH_LIMIT = 50;

/**
 * One contact input after the shape check (contract section 4; see dto/create-contact.dto.ts).
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
