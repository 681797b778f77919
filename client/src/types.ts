import type { paths } from './generated/openapi';

/**
 * Result and input types, taken from the generated OpenAPI types by path, method and status (not
 * by component name), so they follow the document whatever its schemas are called.
 */
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type ResponseOf<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: infer R;
}
  ? S extends keyof R
    ? JsonOf<R[S]>
    : never
  : never;
type RequestBodyOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer B;
}
  ? JsonOf<NonNullable<B>>
  : never;

/** One contact as POST /api/v2/contacts takes it. */
export type ContactInput = RequestBodyOf<'/api/v2/contacts', 'post'>;

/** POST /api/v2/contacts: created (201), updated or unchanged (200). */
export type ContactSuccess = ResponseOf<'/api/v2/contacts', 'post', 200 | 201>;
/** POST /api/v2/contacts: a per-contact failure (400 or 409); request-level errors are thrown instead. */
export type ContactFailure =
  | Extract<ResponseOf<'/api/v2/contacts', 'post', 400>, { status: 'failed' }>
  | ResponseOf<'/api/v2/contacts', 'post', 409>;

/** POST /api/v2/contacts/batch, 200. */
export type BatchResponse = ResponseOf<'/api/v2/contacts/batch', 'post', 200>;
export type BatchRow = BatchResponse['results'][number];

export type ContactResponse = ResponseOf<'/api/v2/contacts/{email}', 'get', 200>;
/** GET /api/v2/contacts: one page. */
export type ContactsPage = ResponseOf<'/api/v2/contacts', 'get', 200>;
export type ListedContact = ContactsPage['contacts'][number];
/** DELETE /api/v2/contacts/{email}. */
export type ContactDeleted = ResponseOf<'/api/v2/contacts/{email}', 'delete', 200>;
/** DELETE /api/v2/lists/{listId}/contacts/{email}. */
export type ListRemoval = ResponseOf<'/api/v2/lists/{listId}/contacts/{email}', 'delete', 200>;
/** POST /api/v2/lists/{listId}/contacts/remove. */
export type ListRemovalBatch = ResponseOf<'/api/v2/lists/{listId}/contacts/remove', 'post', 200>;
export type ListsResponse = ResponseOf<'/api/v2/lists', 'get', 200>;
export type FieldsResponse = ResponseOf<'/api/v2/fields', 'get', 200>;
/** POST /api/v2/lists (201) and PATCH /api/v2/lists/{id} (200): `{ request_id, list }`. */
export type ListResponse = ResponseOf<'/api/v2/lists', 'post', 201>;
export type ListView = ListResponse['list'];
export type CreateListInput = RequestBodyOf<'/api/v2/lists', 'post'>;
export type UpdateListInput = RequestBodyOf<'/api/v2/lists/{id}', 'patch'>;
/** POST /api/v2/fields (201) and PATCH /api/v2/fields/{key} (200): `{ request_id, field }`. */
export type FieldResponse = ResponseOf<'/api/v2/fields', 'post', 201>;
export type CustomFieldView = FieldResponse['field'];
export type CreateFieldInput = RequestBodyOf<'/api/v2/fields', 'post'>;
export type UpdateFieldInput = RequestBodyOf<'/api/v2/fields/{key}', 'patch'>;
/** GET /api/v2/requests/{request_id} and GET /api/v2/requests?clientRequestId=. */
export type StoredResponse = ResponseOf<'/api/v2/requests/{request_id}', 'get', 200>;

/** POST /api/v2/contacts/{email}/erase (docs/api.md, "Erasing a contact"). */
export type EraseResponse = ResponseOf<'/api/v2/contacts/{email}/erase', 'post', 200>;
/** POST /api/v2/suppressions: the body and its per-row results. */
export type SuppressionInput = RequestBodyOf<'/api/v2/suppressions', 'post'>['suppressions'][number];
export type SuppressResponse = ResponseOf<'/api/v2/suppressions', 'post', 200>;
export type SuppressRow = SuppressResponse['results'][number];
/** GET /api/v2/suppressions: one page. */
export type SuppressionsPage = ResponseOf<'/api/v2/suppressions', 'get', 200>;
export type Suppression = SuppressionsPage['suppressions'][number];
/** DELETE /api/v2/suppressions/{email}. */
export type UnsuppressResponse = ResponseOf<'/api/v2/suppressions/{email}', 'delete', 200>;

/** GET /api/v2/events: one page of the change feed (docs/events.md); `nextCursor` is always a string. */
export type EventsPage = ResponseOf<'/api/v2/events', 'get', 200>;
export type ChangeEvent = EventsPage['events'][number];
export type EventType = ChangeEvent['type'];

/** The request-level error body `{ request_id, error: { code, message } }`. */
export type RequestErrorBody =
  | ResponseOf<'/api/v2/contacts/{email}', 'get', 400 | 401 | 404 | 429 | 500>
  | ResponseOf<'/api/v2/lists/{listId}/contacts/{email}', 'delete', 409>
  | ResponseOf<'/api/v2/contacts', 'post', 403 | 413>
  | ResponseOf<'/api/v2/events', 'get', 410>;
/** Request-level error codes the service documents. */
export type RequestErrorCode = RequestErrorBody['error']['code'];
