import { applyDecorators, type Type } from '@nestjs/common';
import { ApiProperty, ApiResponse, ApiSchema, ApiSecurity, getSchemaPath } from '@nestjs/swagger';
import type { HeaderObject, ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { httpStatusOf, RequestErrorCode } from '../errors/error-codes';

/**
 * The building blocks every controller's OpenAPI metadata is made of: the response headers of the
 * contract, the request-level error models (one per HTTP status, their codes derived from
 * httpStatusOf), and `@ApiKeyAuth()`, which a controller behind the API key carries.
 */

export const BEARER_AUTH = 'bearerAuth';
export const API_KEY_HEADER_AUTH = 'apiKeyHeader';

/** `request_id` of every body that has one. */
export const requestIdProperty = { type: String, format: 'uuid', description: 'Equals the X-Request-Id header' } as const;

const integerHeader = (description: string): HeaderObject => ({ description, required: true, schema: { type: 'integer', minimum: 0 } });

export const REQUEST_ID_HEADER: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description: 'Server-generated id of this request (a client-sent value is ignored)',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  },
};

/** On every response once the API key was accepted (docs/api.md#rate-limits). */
export const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'X-RateLimit-Limit': integerHeader("The organization's budget per window (ORG_RATE_LIMIT)"),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current window, this one counted'),
  'X-RateLimit-Reset': integerHeader('Seconds until the window has room again (0 when it has room now)'),
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
};

const retryAfter = (description: string): Record<string, HeaderObject> => ({
  'Retry-After': { description, required: true, schema: { type: 'integer', minimum: 1 } },
});

/** Echoed by both POST endpoints when the request sent it (docs/api.md#lost-responses). */
export const CLIENT_REQUEST_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';
export const CLIENT_REQUEST_ID_HEADER: Record<string, HeaderObject> = {
  'X-Client-Request-Id': {
    description: 'The X-Client-Request-Id the request sent, echoed',
    required: false,
    schema: { type: 'string', pattern: CLIENT_REQUEST_ID_PATTERN },
  },
};

/** Headers of a response: X-Request-Id always; the organization's limit headers once the key was accepted. */
export function responseHeaders(authenticated: boolean, extra: Record<string, HeaderObject> = {}): Record<string, HeaderObject> {
  return { ...REQUEST_ID_HEADER, ...(authenticated ? RATE_LIMIT_HEADERS : {}), ...extra };
}

/** The request-level error body `{ request_id, error: { code, message } }`, its codes those of one HTTP status. */
function requestErrorModel(status: number): Type<unknown> {
  const codes = Object.values(RequestErrorCode).filter((code) => httpStatusOf(code) === status);
  @ApiSchema({ name: `Error${status}`, description: `Request-level error: ${codes.join(', ')}` })
  class RequestErrorModel {
    @ApiProperty(requestIdProperty)
    request_id!: string;

    @ApiProperty({
      type: 'object',
      selfRequired: true, // `required` below lists the properties of the object
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: { type: 'string', enum: codes }, message: { type: 'string' } },
    })
    error!: { code: RequestErrorCode; message: string };
  }
  return RequestErrorModel;
}

/** Every HTTP status a request-level error can have, from the one mapping of codes to statuses. */
export const REQUEST_ERROR_MODELS: ReadonlyMap<number, Type<unknown>> = new Map(
  [...new Set(Object.values(RequestErrorCode).map(httpStatusOf))].sort().map((status) => [status, requestErrorModel(status)]),
);

export function requestErrorModelOf(status: number): Type<unknown> {
  const model = REQUEST_ERROR_MODELS.get(status);
  if (!model) throw new Error(`No request-level error has HTTP status ${status}`);
  return model;
}

export const schemaRef = (model: Type<unknown> | string): ReferenceObject => ({ $ref: getSchemaPath(model) });

/** What a module adds to the OpenAPI document besides what its controllers' metadata reaches. */
export interface OpenApiModels {
  /** Models no route names directly (e.g. those only referenced by a `$ref` string). */
  extraModels?: Type<unknown>[];
  /** Named unions: swagger cannot name a oneOf, so each becomes a component `{ oneOf: [...] }`. */
  unions?: Record<string, readonly Type<unknown>[]>;
}

const OPENAPI_MODELS = Symbol('openapi-models');

/**
 * On a feature module's class: the models it describes. docs/openapi.ts collects them from the
 * app's modules, so the document is assembled from the modules and docs/ imports none of them.
 */
export const DescribesOpenApiModels =
  (models: OpenApiModels): ClassDecorator =>
  (target) => {
    Reflect.defineMetadata(OPENAPI_MODELS, models, target);
  };

/** The models a module class declared with @DescribesOpenApiModels (none when it did not). */
export function openApiModelsOf(moduleClass: Type<unknown>): OpenApiModels {
  return (Reflect.getMetadata(OPENAPI_MODELS, moduleClass) as OpenApiModels | undefined) ?? {};
}

/** A JSON response of `model` (a class, or a raw schema such as a oneOf), with the contract's headers. */
export function ApiAnswer(
  status: number,
  description: string,
  model: Type<unknown> | SchemaObject | ReferenceObject,
  options: { authenticated?: boolean; headers?: Record<string, HeaderObject> } = {},
): MethodDecorator & ClassDecorator {
  const headers = responseHeaders(options.authenticated ?? true, options.headers);
  return typeof model === 'function'
    ? ApiResponse({ status, description, type: model, headers })
    : ApiResponse({ status, description, schema: model, headers });
}

/** A request-level error answer of `status`. */
export const ApiRequestError = (status: number, description: string, options: { authenticated?: boolean; headers?: Record<string, HeaderObject> } = {}) =>
  ApiAnswer(status, description, requestErrorModelOf(status), options);

/** The answers any API request can get whatever its route: a server failure, the database unavailable, a timeout. */
export const ApiServerErrors = () =>
  applyDecorators(
    ApiRequestError(500, 'Server-side failure (INTERNAL_ERROR); the message carries no internals, and a failed POST writes nothing', {
      authenticated: false,
    }),
    ApiRequestError(
      503,
      'SERVICE_UNAVAILABLE: the database cannot serve right now and nothing was written; retry after Retry-After seconds',
      { authenticated: false, headers: retryAfter('Whole seconds (≥ 1) before retrying') },
    ),
    ApiRequestError(408, 'REQUEST_TIMEOUT: headers or body not received within the configured time; the connection is closed', {
      authenticated: false,
    }),
  );

/**
 * A controller (or route) behind the API key: either security scheme, and the answers every such
 * route can give besides its own (401, 429, 500, 503, 408).
 */
export function ApiKeyAuth(): MethodDecorator & ClassDecorator {
  const organizationRefusal = Object.fromEntries(
    Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [name, { ...header, required: false, description: `${header.description} (organization refusals)` }]),
  );
  return applyDecorators(
    ApiSecurity(BEARER_AUTH),
    ApiSecurity(API_KEY_HEADER_AUTH),
    ApiRequestError(401, 'Missing, unknown, expired or revoked API key, or two different keys (INVALID_API_KEY; one message for all)', {
      authenticated: false,
      headers: { 'WWW-Authenticate': { description: 'Always `Bearer`', required: true, schema: { type: 'string', enum: ['Bearer'] } } },
    }),
    ApiRequestError(
      429,
      'Per-IP or per-organization limit reached (RATE_LIMIT_EXCEEDED). Refused requests do not count. ' +
        'The X-RateLimit-* headers accompany an organization refusal.',
      { authenticated: false, headers: { ...retryAfter('Whole seconds (≥ 1) until a request would be accepted'), ...organizationRefusal } },
    ),
    ApiServerErrors(),
  );
}
