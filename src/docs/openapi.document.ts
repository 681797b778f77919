import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { RequestErrorCode } from '../errors/error-codes';

/**
 * The OpenAPI 3 document of the contract (docs/contract.md sections 1–8, 11, 12), written by hand
 * rather than generated from decorators: the bodies are produced by a validation pipeline, not by
 * DTO classes, so a generated document would describe what the code declares, not what it sends.
 * test/ops/conformance.e2e-spec.ts validates real responses against these schemas.
 */

/** Per-contact codes (contract section 4), in rule order. */
export const CONTACT_ERROR_CODES = [
  'INVALID_EMAIL',
  'DUPLICATE_IN_REQUEST',
  'EMPTY_LIST_IDS',
  'TOO_MANY_LIST_IDS',
  'INVALID_LIST',
  'UNKNOWN_FIELD',
  'FIELD_TYPE_MISMATCH',
  'REQUIRED_FIELD_MISSING',
  'SUPPRESSED_EMAIL',
  'DUPLICATE_EMAIL',
] as const;

/** The per-contact codes answered with 409 on the single endpoint; the others are 400. */
const CONFLICT_CODES = ['DUPLICATE_EMAIL', 'SUPPRESSED_EMAIL'];
const SINGLE_400_CODES = CONTACT_ERROR_CODES.filter((c) => c !== 'DUPLICATE_IN_REQUEST' && !CONFLICT_CODES.includes(c));

const SUPPRESSION_REASONS = ['bounced', 'complained', 'unsubscribed'];
const CUSTOM_FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'select'];

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });
const json = (schema: SchemaObject | ReferenceObject) => ({ 'application/json': { schema } });

const string: SchemaObject = { type: 'string' };
const requestId: SchemaObject = { type: 'string', format: 'uuid', description: 'Equals the X-Request-Id header' };
const stringArray: SchemaObject = { type: 'array', items: string };
const count: SchemaObject = { type: 'integer', minimum: 0 };

/** `{ request_id, error: { code, message } }` restricted to the codes one HTTP status can carry. */
function requestError(codes: RequestErrorCode[]): SchemaObject {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['request_id', 'error'],
    properties: {
      request_id: requestId,
      error: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: codes }, message: string },
      },
    },
  };
}

/**
 * One per-contact result. `single`: the whole body of POST /contacts (request_id, dryRun);
 * otherwise a row of a batch (index). One variant per status so each carries exactly its fields.
 */
function contactResult(single: boolean, failureCodes: readonly string[] | null): SchemaObject {
  const common: Record<string, SchemaObject> = single
    ? { request_id: requestId, dryRun: { type: 'boolean', enum: [true], description: 'Present (true) on dry runs only' } }
    : { index: { type: 'integer', minimum: 0, description: 'Position of the row in `contacts`' } };
  const commonRequired = single ? ['request_id'] : ['index'];
  const email: SchemaObject = { type: 'string', description: 'The normalized email' };
  const variant = (properties: Record<string, SchemaObject>, required: string[]): SchemaObject => ({
    type: 'object',
    additionalProperties: false,
    required: [...commonRequired, ...required],
    properties: { ...common, ...properties },
  });
  const id: SchemaObject = { type: 'string', format: 'uuid', description: "The contact's id" };

  const failure = variant(
    {
      email: { type: 'string', nullable: true, description: 'The normalized input when it was a string, else null' },
      status: { type: 'string', enum: ['failed'] },
      code: { type: 'string', enum: [...(failureCodes ?? CONTACT_ERROR_CODES)] },
      message: string,
      invalidListIds: { ...stringArray, description: 'With INVALID_LIST only: each offending id once, in order of first appearance' },
      suppressionReason: { type: 'string', enum: SUPPRESSION_REASONS, description: 'With SUPPRESSED_EMAIL only' },
    },
    ['email', 'status', 'code', 'message'],
  );
  if (failureCodes) return failure;

  return {
    oneOf: [
      variant(
        { id: { ...id, description: "The new contact's id; absent in a dry run" }, email, status: { type: 'string', enum: ['created'] } },
        ['email', 'status'],
      ),
      variant(
        {
          id,
          email,
          status: { type: 'string', enum: ['updated'] },
          changedFields: { ...stringArray, description: 'Keys of the fields whose value changed, sorted' },
          addedListIds: { ...stringArray, description: 'Lists the contact was added to' },
        },
        ['id', 'email', 'status', 'changedFields', 'addedListIds'],
      ),
      variant(
        {
          id,
          email,
          status: { type: 'string', enum: ['unchanged'] },
          changedFields: { ...stringArray, maxItems: 0 },
          addedListIds: { ...stringArray, maxItems: 0 },
        },
        ['id', 'email', 'status'],
      ),
      ...(single ? [] : [failure]),
    ],
  };
}

const schemas: Record<string, SchemaObject> = {
  ContactInput: {
    type: 'object',
    additionalProperties: false,
    description:
      'One contact. A key other than these, or a property of the wrong JSON type (`null` included, except for `email`), ' +
      'is a shape error: 400 INVALID_REQUEST. `email` is checked per contact (INVALID_EMAIL): ASCII only, ' +
      'trimmed and lowercased, local part ≤ 64 and address ≤ 254 characters, domain with at least one dot. ' +
      'Internationalized addresses are refused.',
    properties: {
      email: { type: 'string', example: 'ada@example.com' },
      listIds: { ...stringArray, description: '1 to 20 list ids (EMPTY_LIST_IDS, TOO_MANY_LIST_IDS, INVALID_LIST)' },
      fields: {
        type: 'object',
        description:
          'Standard fields (firstName, lastName, phone, company, jobTitle, city, country: strings ≤ 255 code points) and the ' +
          "organization's custom fields (GET /api/v2/fields). `null` clears a field. Merged on update.",
        additionalProperties: { description: 'string, number, boolean or null, as the field type requires' },
      },
      overwrite: { type: 'boolean', default: false, description: 'true updates an existing or suppressed contact' },
    },
  },
  BatchInput: {
    type: 'object',
    additionalProperties: false,
    required: ['contacts'],
    properties: {
      contacts: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        items: ref('ContactInput'),
        description: 'Empty: 400 INVALID_REQUEST. More than 50: 400 BATCH_LIMIT_EXCEEDED.',
      },
    },
  },
  ContactSuccess: contactResult(true, null),
  ContactFailure: contactResult(true, SINGLE_400_CODES),
  ContactConflict: contactResult(true, CONFLICT_CODES),
  BatchRow: contactResult(false, null),
  BatchResponse: {
    type: 'object',
    additionalProperties: false,
    required: ['request_id', 'results', 'summary'],
    properties: {
      request_id: requestId,
      dryRun: { type: 'boolean', enum: [true], description: 'Present (true) on dry runs only' },
      results: { type: 'array', items: ref('BatchRow'), description: 'One entry per input row, in input order' },
      summary: {
        type: 'object',
        additionalProperties: false,
        required: ['created', 'updated', 'unchanged', 'failed'],
        properties: { created: count, updated: count, unchanged: count, failed: count },
      },
    },
  },
  ContactResponse: {
    type: 'object',
    additionalProperties: false,
    required: ['request_id', 'contact'],
    properties: {
      request_id: requestId,
      contact: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'email', 'listIds', 'fields', 'suppressed', 'createdAt', 'updatedAt'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          email: string,
          listIds: stringArray,
          fields: {
            type: 'object',
            description: 'Every field with a value; dates as YYYY-MM-DD strings',
            additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
          },
          suppressed: {
            type: 'object',
            nullable: true,
            additionalProperties: false,
            required: ['reason'],
            properties: { reason: { type: 'string', enum: SUPPRESSION_REASONS } },
          },
          createdAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
  ListsResponse: {
    type: 'object',
    additionalProperties: false,
    required: ['request_id', 'lists'],
    properties: {
      request_id: requestId,
      lists: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'name', 'archived'],
          properties: { id: { type: 'string', format: 'uuid' }, name: string, archived: { type: 'boolean' } },
        },
      },
    },
  },
  FieldsResponse: {
    type: 'object',
    additionalProperties: false,
    required: ['request_id', 'standard', 'custom'],
    properties: {
      request_id: requestId,
      standard: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['key', 'type', 'maxLength'],
          properties: { key: string, type: { type: 'string', enum: ['text'] }, maxLength: { type: 'integer', enum: [255] } },
        },
      },
      custom: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['key', 'type', 'required'],
          properties: {
            key: { type: 'string', pattern: '^[a-zA-Z][a-zA-Z0-9_]{0,63}$' },
            type: { type: 'string', enum: CUSTOM_FIELD_TYPES },
            required: { type: 'boolean' },
            defaultValue: { description: 'Any JSON value fitting the type, or null when there is none' },
            options: { ...stringArray, nullable: true, description: 'The allowed values of a select field (null or empty otherwise)' },
          },
        },
      },
    },
  },
  StoredResponse: {
    type: 'object',
    additionalProperties: false,
    required: ['request_id', 'original'],
    properties: {
      request_id: { ...requestId, description: "This GET's own request id" },
      original: {
        type: 'object',
        additionalProperties: false,
        required: ['request_id', 'status', 'body'],
        properties: {
          request_id: { type: 'string', format: 'uuid', description: 'The id of the POST' },
          status: { type: 'integer', description: 'The HTTP status the POST answered' },
          body: {
            oneOf: [ref('ContactSuccess'), ref('ContactFailure'), ref('ContactConflict'), ref('BatchResponse')],
            description: 'The body as answered',
          },
        },
      },
    },
  },
  Health: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { type: 'string', enum: ['ok', 'unavailable'] } },
  },
  Error400: requestError([RequestErrorCode.INVALID_REQUEST, RequestErrorCode.BATCH_LIMIT_EXCEEDED]),
  Error401: requestError([RequestErrorCode.INVALID_API_KEY]),
  Error404: requestError([RequestErrorCode.NOT_FOUND, RequestErrorCode.CONTACT_NOT_FOUND, RequestErrorCode.REQUEST_NOT_FOUND]),
  Error413: requestError([RequestErrorCode.PAYLOAD_TOO_LARGE]),
  Error429: requestError([RequestErrorCode.RATE_LIMIT_EXCEEDED]),
  Error500: requestError([RequestErrorCode.INTERNAL_ERROR]),
  Error503: requestError([RequestErrorCode.SERVICE_UNAVAILABLE]),
};

const integerHeader = (description: string, required = false): HeaderObject => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

const headers: Record<string, HeaderObject> = {
  'X-Request-Id': { description: 'Server-generated id of this request (a client-sent value is ignored)', required: true, schema: { type: 'string', format: 'uuid' } },
  'X-RateLimit-Limit': integerHeader("The organization's budget per window (ORG_RATE_LIMIT)", true),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current window, this one counted', true),
  'X-RateLimit-Reset': integerHeader('Seconds until the window has room again (0 when it has room now)', true),
  RateLimit: {
    description: 'IETF httpapi rate-limit draft, structured-field form: `"org";r=<remaining>;t=<seconds>`',
    required: true,
    schema: { type: 'string', pattern: '^"org";r=\\d+;t=\\d+$' },
  },
  'RateLimit-Policy': {
    description: 'IETF httpapi rate-limit draft: `"org";q=<limit>;w=<window seconds>`',
    required: true,
    schema: { type: 'string', pattern: '^"org";q=\\d+;w=\\d+$' },
  },
  'Retry-After': { description: 'Whole seconds (≥ 1) until a request would be accepted', required: true, schema: { type: 'integer', minimum: 1 } },
  'WWW-Authenticate': { description: 'Always `Bearer`', required: true, schema: { type: 'string', enum: ['Bearer'] } },
};

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'];

/** Headers of a response: X-Request-Id always; the organization's limit headers once the key was accepted. */
function responseHeaders(authenticated: boolean, extra: string[] = []) {
  const names = ['X-Request-Id', ...(authenticated ? RATE_LIMIT_HEADERS : []), ...extra];
  return Object.fromEntries(names.map((n) => [n, headerRef(n)]));
}

const response = (description: string, schema: string, authenticated: boolean): ResponseObject => ({
  description,
  headers: responseHeaders(authenticated),
  content: json(ref(schema)),
});

const responses: Record<string, ResponseObject> = {
  Unauthorized: {
    description: 'Missing, unknown, expired or revoked API key, or two different keys (INVALID_API_KEY; one message for all)',
    headers: responseHeaders(false, ['WWW-Authenticate']),
    content: json(ref('Error401')),
  },
  PayloadTooLarge: response(
    'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE); a Content-Length over the limit is refused unread',
    'Error413',
    true,
  ),
  TooManyRequests: {
    description:
      'Per-IP or per-organization limit reached (RATE_LIMIT_EXCEEDED). Refused requests do not count. ' +
      'The X-RateLimit-* headers accompany an organization refusal.',
    headers: {
      ...responseHeaders(false, ['Retry-After']),
      ...Object.fromEntries(
        RATE_LIMIT_HEADERS.map((n) => [n, { ...headers[n], required: false, description: `${headers[n].description} (organization refusals)` }]),
      ),
    },
    content: json(ref('Error429')),
  },
  InternalError: {
    description: 'Server-side failure (INTERNAL_ERROR); the message carries no internals, and a failed batch writes nothing',
    headers: responseHeaders(false),
    content: json(ref('Error500')),
  },
  ServiceUnavailable: {
    description: 'The database cannot serve right now (SERVICE_UNAVAILABLE); nothing was written; retry after Retry-After',
    headers: responseHeaders(false, ['Retry-After']),
    content: json(ref('Error503')),
  },
};

const responseRef = (name: string): ReferenceObject => ({ $ref: `#/components/responses/${name}` });

/** Responses every authenticated operation can give besides its own. */
const commonErrors = {
  '401': responseRef('Unauthorized'),
  '429': responseRef('TooManyRequests'),
  '500': responseRef('InternalError'),
  '503': responseRef('ServiceUnavailable'),
};

const dryRunParameter = {
  name: 'dryRun',
  in: 'query' as const,
  required: false,
  description:
    'true: answer exactly what the real call would (statuses, codes, HTTP status) and write nothing. ' +
    'The body then carries `"dryRun": true`, and a would-be created contact has no `id`.',
  schema: { type: 'boolean', default: false },
};

const jsonBodyErrors =
  'Wrong Content-Type, malformed or empty JSON, non-UTF-8 body, unsupported Content-Encoding, or wrong shape ' +
  '(the message names the path, e.g. `contacts[3].listIds must be an array of strings`)';

const createContact: OperationObject = {
  tags: ['Contacts'],
  operationId: 'upsertContact',
  summary: 'Create or update one contact',
  description:
    'Checks, in order: per-IP limit → API key → organization limit → body size → JSON → shape → per-contact rules ' +
    '(the first failing rule is the `code`). Outcomes: absent → created (201); existing with `overwrite: true` → ' +
    'updated or unchanged (200). A per-contact failure is the whole body: 400, or 409 for DUPLICATE_EMAIL and SUPPRESSED_EMAIL.',
  parameters: [dryRunParameter],
  requestBody: { required: true, content: json(ref('ContactInput')) },
  responses: {
    '201': response('Created (status `created`)', 'ContactSuccess', true),
    '200': response('Updated or unchanged (status `updated` / `unchanged`)', 'ContactSuccess', true),
    '400': {
      description: `A per-contact failure (status \`failed\`), or INVALID_REQUEST: ${jsonBodyErrors}`,
      headers: responseHeaders(true),
      content: json({ oneOf: [ref('ContactFailure'), ref('Error400')] }),
    },
    '409': response('DUPLICATE_EMAIL (exists, overwrite not true) or SUPPRESSED_EMAIL (suppressed, overwrite not true)', 'ContactConflict', true),
    '413': responseRef('PayloadTooLarge'),
    ...commonErrors,
  },
};

const batchContacts: OperationObject = {
  tags: ['Contacts'],
  operationId: 'syncContacts',
  summary: 'Create or update up to 50 contacts',
  description:
    'Each row follows the single endpoint’s rules, plus DUPLICATE_IN_REQUEST for a later row repeating an earlier ' +
    'row’s normalized email. A shape error anywhere refuses the whole request (400) and writes nothing. All ' +
    'successful rows are written in one transaction.',
  parameters: [dryRunParameter],
  requestBody: { required: true, content: json(ref('BatchInput')) },
  responses: {
    '200': response('One result per row, in input order, and a summary', 'BatchResponse', true),
    '400': response(`INVALID_REQUEST (${jsonBodyErrors}; \`contacts\` missing, not an array or empty) or BATCH_LIMIT_EXCEEDED (more than 50 entries)`, 'Error400', true),
    '413': responseRef('PayloadTooLarge'),
    ...commonErrors,
  },
};

const getContact: OperationObject = {
  tags: ['Contacts'],
  operationId: 'getContact',
  summary: 'Read one contact',
  parameters: [
    {
      name: 'email',
      in: 'path',
      required: true,
      description: 'URL-encoded; normalized (trimmed, lowercased) before lookup',
      schema: { type: 'string' },
    },
  ],
  responses: {
    '200': response('The contact', 'ContactResponse', true),
    '400': response('Broken percent-encoding in the path (INVALID_REQUEST), checked after the key and the limits', 'Error400', true),
    '404': response('CONTACT_NOT_FOUND: no such contact in this organization, or not a valid email', 'Error404', true),
    ...commonErrors,
  },
};

const getStoredResponse: OperationObject = {
  tags: ['Contacts'],
  operationId: 'getStoredResponse',
  summary: 'What a POST of this organization answered under a request id (kept 24 hours)',
  description: 'Every POST answered from the contacts pipeline is kept; dry runs and request-level errors are not.',
  parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string' } }],
  responses: {
    '200': response('The original answer', 'StoredResponse', true),
    '400': response('Broken percent-encoding in the path (INVALID_REQUEST), checked after the key and the limits', 'Error400', true),
    '404': response('REQUEST_NOT_FOUND: unknown, expired or another organization’s id', 'Error404', true),
    ...commonErrors,
  },
};

const health = (summary: string, withUnavailable: boolean): OperationObject => ({
  tags: ['Operations'],
  summary,
  security: [],
  responses: {
    '200': { description: 'Up', headers: responseHeaders(false), content: json(ref('Health')) },
    ...(withUnavailable
      ? { '503': { description: 'The database does not answer', headers: responseHeaders(false), content: json(ref('Health')) } }
      : {}),
  },
});

export const openApiDocument: OpenAPIObject = {
  openapi: '3.0.3',
  info: {
    title: 'Contact Sync API',
    version: '2.0.0',
    description:
      'Create, update and sync an organization’s contacts. Every response carries `X-Request-Id`; every ' +
      'request-level error body is `{ request_id, error: { code, message } }`. An unknown route, or a known path ' +
      'with another method, is 404 NOT_FOUND with or without a key (schema `Error404`). Responses never carry a ' +
      'stack trace, SQL or another organization’s data. Rate limits: 300 requests per organization in any ' +
      '60-second window (all keys, all endpoints), and 1,200 per IP. Operations endpoints (health, metrics at ' +
      '`GET /metrics` in Prometheus text format, these docs) need no key.',
  },
  servers: [{ url: '/' }],
  security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
  tags: [
    { name: 'Contacts', description: 'Contacts of the organization of the API key' },
    { name: 'Organization', description: 'Lists and fields of the organization' },
    { name: 'Operations', description: 'No API key, not counted against the organization' },
  ],
  paths: {
    '/api/v2/contacts': { post: createContact },
    '/api/v2/contacts/batch': { post: batchContacts },
    '/api/v2/contacts/{email}': { get: getContact },
    '/api/v2/requests/{request_id}': { get: getStoredResponse },
    '/api/v2/lists': {
      get: {
        tags: ['Organization'],
        operationId: 'listLists',
        summary: 'The organization’s lists, archived ones included',
        responses: { '200': response('The lists', 'ListsResponse', true), ...commonErrors },
      },
    },
    '/api/v2/fields': {
      get: {
        tags: ['Organization'],
        operationId: 'listFields',
        summary: 'Standard fields and the organization’s custom fields',
        responses: { '200': response('The fields', 'FieldsResponse', true), ...commonErrors },
      },
    },
    '/health/live': { get: health('The process answers', false) },
    '/health/ready': { get: health('The database answers', true) },
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <key>`' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Same key; if both are sent they must match' },
    },
    schemas,
    headers,
    responses,
  },
};
