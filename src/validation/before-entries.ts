/**
 * Validation group of the checks that run on the body as sent, before any nested value is copied,
 * transformed or validated (RequestValidationPipe): a batch's count, a missing or non-array list,
 * unknown keys. Put a decorator in it with `{ groups: [BEFORE_ENTRIES] }`; it runs again in the full
 * validation, so precedence stays that of the decorators. It sees the top-level values as sent
 * (no @Transform), and a refusal costs no work per entry however many entries were sent.
 */
export const BEFORE_ENTRIES = 'beforeEntries';
