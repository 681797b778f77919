import Ajv from 'ajv';
import addFormats from 'ajv-formats';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking an arbitrary JSON document
type Json = Record<string, any>;

/** What is checked of a response (a supertest Response, or one read with node:http). */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON
}

/** JSON pointer escaping (RFC 6901) for path keys such as `/api/v2/contacts`. */
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Validates real responses against the served OpenAPI document: the document is added to Ajv as
 * one schema (id `openapi`), and each response schema is compiled through a JSON pointer into it,
 * so its `#/components/...` references resolve exactly as an OpenAPI tool would resolve them.
 * OpenAPI 3.0's `nullable` is understood by Ajv; `example` is declared as an annotation.
 */
export class OpenApiValidator {
  private readonly ajv: Ajv;

  constructor(private readonly document: Json) {
    this.ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addKeyword('example');
    // The document's own top-level members, so Ajv (strict) accepts it as the root of the references.
    for (const member of ['openapi', 'info', 'servers', 'paths', 'components', 'security', 'tags']) this.ajv.addKeyword(member);
    this.ajv.addSchema(document, 'openapi');
  }

  /** Checks status, body and headers of `res` against the operation `method path`; returns the problems found. */
  problems(res: HttpAnswer, method: string, path: string): string[] {
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${path} is not in the document`];
    const status = String(res.status);
    const pointerBase = `openapi#/paths/${escape(path)}/${method.toLowerCase()}/responses/${status}`;
    const declared = operation.responses[status];
    if (!declared) return [`${method} ${path} answered ${status}, which the document does not declare`];
    const [response, responsePointer] = declared.$ref
      ? [this.resolve(declared.$ref), `openapi${declared.$ref as string}`]
      : [declared, pointerBase];
    return [
      ...this.bodyProblems(res, response, `${responsePointer}/content/application~1json/schema`),
      ...this.headerProblems(res, response),
    ];
  }

  /** Validates a body against `#/components/schemas/<name>` (for bodies outside any operation, e.g. 404 of an unknown route). */
  schemaProblems(body: unknown, name: string): string[] {
    return this.validate(body, `openapi#/components/schemas/${name}`);
  }

  private bodyProblems(res: HttpAnswer, response: Json, schemaPointer: string): string[] {
    if (!response.content) return [];
    const problems: string[] = [];
    if (!/^application\/json\b/.test(String(res.headers['content-type']))) {
      problems.push(`content-type is ${String(res.headers['content-type'])}, expected application/json`);
    }
    problems.push(...this.validate(res.body, schemaPointer));
    if (res.body?.request_id !== undefined && res.body.request_id !== res.headers['x-request-id']) {
      problems.push('body request_id differs from X-Request-Id');
    }
    return problems;
  }

  private headerProblems(res: HttpAnswer, response: Json): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries<Json>(response.headers ?? {})) {
      const header = declared.$ref ? this.resolve(declared.$ref) : declared;
      const value = res.headers[name.toLowerCase()] as string | undefined;
      if (value === undefined) {
        if (header.required) problems.push(`header ${name} is missing`);
        continue;
      }
      const schema = header.schema as Json;
      const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (!this.ajv.validate(schema, typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText()}`);
    }
    return problems;
  }

  private validate(data: unknown, pointer: string): string[] {
    const validate = this.ajv.getSchema(pointer);
    if (!validate) return [`no schema at ${pointer}`];
    if (validate(data)) return [];
    return (validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }

  private resolve(ref: string): Json {
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<Json>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
  }
}
